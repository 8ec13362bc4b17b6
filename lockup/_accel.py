"""Which playout the engine uses: the compiled extension or the Python source.

``make engine`` compiles :mod:`lockup.playout` with mypyc into an extension module beside
``playout.py``, and records in it the SHA-256 of the source it was built from
(``BUILT_FROM``). Python would import that extension in preference to the source even
after the source changed, so the package checks before the engine is imported: a stale
or unmarked extension is passed over, with a warning, for the source. Setting
``LOCKUP_PURE_PYTHON=1`` always uses the source.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import warnings
from pathlib import Path
from types import FunctionType, ModuleType

PURE_ENV = "LOCKUP_PURE_PYTHON"
"""Set (to anything but empty or ``0``) to run the playout from its Python source."""

SOURCE = Path(__file__).with_name("playout.py")


def source_digest(path: Path = SOURCE) -> str:
    """The SHA-256 of a playout source, as the build records it in ``BUILT_FROM``."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pure_python_requested() -> bool:
    """Whether ``LOCKUP_PURE_PYTHON`` asks for the playout's Python source."""
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def source_module(name: str = "lockup.playout") -> ModuleType:
    """A new module run from ``playout.py`` itself, whatever is built beside it."""
    spec = importlib.util.spec_from_file_location(name, SOURCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def is_compiled(module: ModuleType) -> bool:
    """Whether a playout module is a compiled extension (its functions are not Python's)."""
    return not isinstance(module.play_out, FunctionType)


def load_playout() -> ModuleType:
    """Import ``lockup.playout``: the extension if built from the current source, else
    the source. Must run before :mod:`lockup.engine` is imported."""
    name = "lockup.playout"
    if pure_python_requested():
        current = sys.modules.get(name)
        if current is not None and not is_compiled(current):
            return current
    else:
        module = importlib.import_module(name)
        if not is_compiled(module):
            return module
        if getattr(module, "BUILT_FROM", None) == source_digest():
            return module
        warnings.warn(
            "lockup/playout.py has changed since its compiled extension was built: using "
            "the Python source (run `make engine` to rebuild)",
            RuntimeWarning,
            stacklevel=2,
        )
    module = source_module(name)
    sys.modules[name] = module
    setattr(sys.modules["lockup"], "playout", module)  # noqa: B010 - the package's attribute
    return module
