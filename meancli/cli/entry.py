"""The console entry point: answers ``meancli --version`` before importing
the command-line framework, and hands everything else to app.main."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run meancli with ``argv`` (default: sys.argv[1:]); returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        from .. import __version__

        sys.stdout.write(f"meancli {__version__}\n")
        return 0
    from .app import main as app_main

    return app_main(args)


if __name__ == "__main__":
    sys.exit(main())
