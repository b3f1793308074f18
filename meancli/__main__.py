"""``python -m meancli``: the same as the ``meancli`` command."""

import sys

from meancli.cli.app import main

sys.exit(main())
