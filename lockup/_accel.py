"""Which engine runs: the compiled extensions or the Python sources.

``make engine`` (scripts/compile_engine.py) compiles the engine's modules (see
:data:`COMPILED`) with mypyc, each into an extension module beside its source, and records
in each the SHA-256 of the source it was built from (``BUILT_FROM``) and of the package's
other sources it was compiled against (``BUILT_AGAINST``, e.g. ``cards.py`` for the
engine). Python would import an extension in preference to its source even after the
source changed, so the package checks, module by module and before anything imports
them: a stale or unmarked extension is passed over, with a warning, for its source.
Setting ``LOCKUP_PURE_PYTHON=1`` always uses the sources (and warns about nothing).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import warnings
from pathlib import Path
from types import ModuleType

PURE_ENV = "LOCKUP_PURE_PYTHON"
"""Set (to anything but empty or ``0``) to run the engine from its Python sources."""

PACKAGE = Path(__file__).parent

COMPILED = ("cards", "playout", "engine")
"""The modules ``make engine`` compiles, in import order (each before those using it)."""

SOURCE = PACKAGE / "playout.py"


def source_path(module: str) -> Path:
    """The source of one of the package's modules (``"engine"`` -> ``lockup/engine.py``)."""
    return PACKAGE / f"{module}.py"


def source_digest(path: Path = SOURCE) -> str:
    """The SHA-256 of a source, as the build records it in ``BUILT_FROM``."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pure_python_requested() -> bool:
    """Whether ``LOCKUP_PURE_PYTHON`` asks for the Python sources."""
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def is_compiled(module: ModuleType) -> bool:
    """Whether a module is a compiled extension rather than run from its source."""
    return not str(getattr(module, "__file__", "")).endswith(".py")


def _run_source(module: str, name: str, package: str, register: bool) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, source_path(module))
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    loaded.__package__ = package
    if register:
        sys.modules[name] = loaded
    try:
        spec.loader.exec_module(loaded)
    except BaseException:
        if register:
            del sys.modules[name]
        raise
    return loaded


def source_module(module: str = "playout", name: str | None = None) -> ModuleType:
    """A new module run from ``lockup/<module>.py`` itself, whatever is built beside it,
    named ``name`` (not registered in ``sys.modules``; its imports are the package's)."""
    return _run_source(module, name or f"lockup.{module}", "lockup", register=False)


def source_package(name: str = "lockup_source") -> ModuleType:
    """A package ``name`` holding every module of :data:`COMPILED` run from its source and
    importing the others from it: the whole engine in pure Python beside the compiled one
    (the benchmark measures both in one process)."""
    if name in sys.modules:
        return sys.modules[name]
    package = ModuleType(name)
    # The package's other modules (what the engine imports besides COMPILED, such as
    # lockup.refusals) come from their sources in lockup/, which has no build of them.
    package.__path__ = [str(PACKAGE)]
    sys.modules[name] = package
    for module in COMPILED:
        setattr(package, module, _run_source(module, f"{name}.{module}", name, register=True))
    return package


def stale(module: ModuleType, short: str) -> str | None:
    """Why a compiled module may not run (its build is out of date), or None if it may."""
    if getattr(module, "BUILT_FROM", None) != source_digest(source_path(short)):
        return f"lockup/{short}.py has changed since its compiled extension was built"
    against = getattr(module, "BUILT_AGAINST", None)
    if not isinstance(against, dict):
        return f"lockup/{short}.py's compiled extension is from an older `make engine`"
    for other, digest in sorted(against.items()):
        if digest != source_digest(PACKAGE / other):
            return f"lockup/{other} has changed since lockup/{short}.py was compiled against it"
    return None


def load(short: str) -> ModuleType:
    """Import ``lockup.<short>``: the extension if built from the current sources, else the
    source. Runs before anything imports the module (``lockup/__init__.py``)."""
    name = f"lockup.{short}"
    current = sys.modules.get(name)
    if current is not None:
        return current
    if not pure_python_requested():
        why: str | None
        try:
            module = importlib.import_module(name)
        except ImportError as error:  # a build that no longer fits the other modules
            why = f"lockup/{short}.py's compiled extension does not import ({error})"
        else:
            if not is_compiled(module):
                return module
            why = stale(module, short)
            if why is None:
                return module
            del sys.modules[name]
        warnings.warn(
            f"{why}: using the Python source (run `make engine` to rebuild)",
            RuntimeWarning,
            stacklevel=3,
        )
    module = _run_source(short, name, "lockup", register=True)
    setattr(sys.modules["lockup"], short, module)
    return module


def load_engine() -> dict[str, ModuleType]:
    """Load every module of :data:`COMPILED`, in order (see :func:`load`)."""
    return {short: load(short) for short in COMPILED}


def implementations() -> dict[str, str]:
    """For each module of :data:`COMPILED`: ``"compiled"`` or ``"python"``, as loaded."""
    return {short: "compiled" if is_compiled(load(short)) else "python" for short in COMPILED}
