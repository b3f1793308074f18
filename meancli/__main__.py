"""``python -m meancli``: the same as the ``meancli`` command."""

import sys

from meancli.cli.entry import main

sys.exit(main())
