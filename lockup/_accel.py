"""Which engine runs: the compiled extensions or the Python sources.

``make engine`` (scripts/compile_engine.py) compiles the engine's modules (see
:data:`COMPILED`) with mypyc as one group: one shared library (:data:`GROUP`) holds the
code of all of them, so that they call each other natively, and each module gets an
extension beside its source that loads it. The build records in each module the SHA-256 of
every source of the group (``BUILT_FROM``) and of the package's other sources it was
compiled against (``BUILT_AGAINST``: ``refusals.py``). Python would import an extension in
preference to its source even after the source changed, so the package checks, before
anything imports them: if any of those sources changed since the build (or the build is
incomplete or from an older ``make engine``), every module of the group runs from its
source, with one warning. The group is used or passed over as a whole, never in part.
Setting ``LOCKUP_PURE_PYTHON=1`` always uses the sources (and warns about nothing).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
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
"""The modules ``make engine`` compiles, as one group, in import order (each before those
using it)."""

GROUP = "engine_group"
"""The group's shared library, ``lockup/engine_group__mypyc.*.so``, which the modules'
extensions load."""

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
    """Why a module of the compiled group may not run (the group is out of date), or None
    if it may: every source the group was built from, and compiled against, unchanged."""
    built_from = getattr(module, "BUILT_FROM", None)
    against = getattr(module, "BUILT_AGAINST", None)
    if not isinstance(built_from, dict) or not isinstance(against, dict):
        return f"lockup/{short}.py's compiled extension is from an older `make engine`"
    if set(built_from) != {f"{m}.py" for m in COMPILED}:
        return f"lockup/{short}.py's compiled extension is from another group of modules"
    changed = [
        f"lockup/{source}"
        for source, digest in built_from.items()
        if digest != source_digest(PACKAGE / source)
    ]
    if changed:
        verb = "has" if len(changed) == 1 else "have"
        return f"{', '.join(changed)} {verb} changed since the compiled engine was built"
    for other, digest in sorted(against.items()):
        if digest != source_digest(PACKAGE / other):
            return f"lockup/{other} has changed since the compiled engine was built against it"
    return None


def _compiled_group() -> str | None:
    """Import the compiled group, module by module in :data:`COMPILED`'s order, checking
    each before importing the next; None when all of it runs, else why not (what was
    imported is then dropped again). The caller has checked every module has a build."""
    first: tuple[object, object] | None = None
    for short in COMPILED:
        why: str | None
        try:
            module = importlib.import_module(f"lockup.{short}")
        except ImportError as error:  # e.g. its shared library is missing
            why = f"lockup/{short}.py's compiled extension does not import ({error})"
        else:
            stamps = (getattr(module, "BUILT_FROM", None), getattr(module, "BUILT_AGAINST", None))
            if not is_compiled(module):
                why = f"lockup/{short}.py has no compiled extension"
            elif first is not None and stamps != first:
                why = f"lockup/{short}.py's compiled extension is from another build"
            else:
                first = stamps
                why = stale(module, short) if short == COMPILED[0] else None
        if why is not None:
            _forget()
            return why
    return None


def _forget() -> None:
    """Drop whatever of the group has been imported, for the sources to replace it."""
    package = sys.modules["lockup"]
    for short in COMPILED:
        sys.modules.pop(f"lockup.{short}", None)
        if short in vars(package):
            delattr(package, short)


def _has_build(short: str) -> bool:
    """Whether ``lockup.<short>`` would import an extension (without importing it)."""
    spec = importlib.util.find_spec(f"lockup.{short}")
    return spec is not None and isinstance(spec.loader, importlib.machinery.ExtensionFileLoader)


def load_engine() -> dict[str, ModuleType]:
    """Load every module of :data:`COMPILED`: the compiled group if it is built and up to
    date, else all of them from their sources (with one warning when a build is there but
    may not run). Runs before anything imports them (``lockup/__init__.py``)."""
    names = [f"lockup.{short}" for short in COMPILED]
    if all(name in sys.modules for name in names):
        return {short: sys.modules[name] for short, name in zip(COMPILED, names, strict=True)}
    if not pure_python_requested():
        builds = [short for short in COMPILED if _has_build(short)]
        why: str | None = None
        if builds == list(COMPILED):
            why = _compiled_group()
            if why is None:
                return {short: sys.modules[f"lockup.{short}"] for short in COMPILED}
        elif builds:
            missing = ", ".join(f"lockup/{s}.py" for s in COMPILED if s not in builds)
            why = f"the compiled engine is incomplete (no extension for {missing})"
        if why is not None:
            sources = ", ".join(f"lockup/{short}.py" for short in COMPILED)
            warnings.warn(
                f"{why}: running the whole engine ({sources}) from its Python sources"
                " (run `make engine` to rebuild)",
                RuntimeWarning,
                stacklevel=2,
            )
    _forget()
    loaded = {}
    for short in COMPILED:
        loaded[short] = _run_source(short, f"lockup.{short}", "lockup", register=True)
        setattr(sys.modules["lockup"], short, loaded[short])
    return loaded


def load(short: str) -> ModuleType:
    """``lockup.<short>`` for a module of :data:`COMPILED`, as :func:`load_engine` loads it
    (the compiled group or the sources, never a mix)."""
    return load_engine()[short]


def implementations() -> dict[str, str]:
    """For each module of :data:`COMPILED`: ``"compiled"`` or ``"python"``, as loaded (the
    same for all of them: the group runs as a whole)."""
    return {short: "compiled" if is_compiled(load(short)) else "python" for short in COMPILED}
