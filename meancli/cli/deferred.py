"""Standard modules typer imports at start-up that no meancli run uses, imported
only when first used.

typer's main module imports ``subprocess`` (and with it ``locale`` and
``selectors``) for two things: ``typer.launch`` (opening a
file or URL) and installing shell completion (``--install-completion``). And
typer imports ``shutil`` (for the terminal's size), which imports ``bz2`` and
``lzma`` only to note that its archive formats can use them, and ``fnmatch`` for
``shutil.ignore_patterns``. meancli uses none of these in a run, yet their
imports were about 13 million instructions, 2.5% of a one-file run (callgrind).
While typer is imported, ``sys.modules`` holds a stand-in for each: the importer
binds its name to the stand-in, which imports the real module when one of its
attributes is first read (``subprocess.run``), then serves that module's
attributes. The stand-ins leave ``sys.modules`` as soon as typer is imported,
so every later ``import subprocess`` gets the real module. A module already
imported (a test runner, a program that calls meancli in-process) is left as
it is.

Not handled: a Python built without ``_bz2`` or ``_lzma`` -- shutil then takes
its bztar or xztar archive format as available in the ``meancli`` process (it
never makes archives; typer's shutil is only asked the terminal's size).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# The top-level modules typer's import binds by name (``import subprocess``) and
# uses only in what meancli does not run: typer.launch and completion installs
# (subprocess); shutil's archives and ignore_patterns (bz2, lzma, fnmatch).
TYPER_UNUSED = ("subprocess", "bz2", "lzma", "fnmatch")


class OnFirstUse(types.ModuleType):
    """A stand-in for the top-level module of its name: reading an attribute it
    lacks imports the module and copies its namespace in, so later reads are
    plain lookups (the functions' globals are the real module's)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            # the import system's and introspection's questions (__path__,
            # __file__, ...) are answered as the bare stand-in's
            raise AttributeError(name)
        if sys.modules.get(self.__name__) is self:  # read while typer is imported
            del sys.modules[self.__name__]
        module = __import__(self.__name__)
        self.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
        return getattr(module, name)


@contextmanager
def stand_ins(names: tuple[str, ...] = TYPER_UNUSED) -> Iterator[None]:
    """Inside, each of ``names`` not yet imported is an :class:`OnFirstUse` in
    ``sys.modules``; on the way out (an exception, a Ctrl-C included) every
    stand-in still there is removed."""
    placed = [name for name in names if name not in sys.modules]
    for name in placed:
        sys.modules[name] = OnFirstUse(name)
    try:
        yield
    finally:
        for name in placed:
            if isinstance(sys.modules.get(name), OnFirstUse):
                del sys.modules[name]
