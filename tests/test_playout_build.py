"""The compiled engine (make engine) and its Python sources: the right one runs, both agree."""

import importlib.util
import json
import os
import pickle
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import state

from lockup import _accel
from lockup.engine import Game, SeatView, implementation

ROOT = Path(__file__).resolve().parent.parent
MODULES = _accel.COMPILED
BUILT = {m: sorted((ROOT / "lockup").glob(f"{m}.*.so")) for m in MODULES}
LIBRARY = sorted((ROOT / "lockup").glob(f"{_accel.GROUP}__mypyc.*.so"))
needs_build = pytest.mark.skipif(
    not (all(BUILT.values()) and LIBRARY), reason="no compiled engine here (make engine)"
)
REPORT = (
    "import json, sys, lockup, lockup.engine as e; from lockup._accel import implementations;"
    "print(json.dumps([e.implementation(), implementations(),"
    " {m: sys.modules['lockup.' + m].__file__ for m in implementations()}]))"
)


def run_python(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(cwd), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_build_script_compiles_what_the_package_checks() -> None:
    spec = importlib.util.spec_from_file_location(
        "compile_engine", ROOT / "scripts/compile_engine.py"
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.MODULES == _accel.COMPILED and script.GROUP == _accel.GROUP
    for module in MODULES:
        path = _accel.source_path(module)
        assert script.source_digest(path) == _accel.source_digest(path)


@needs_build
@pytest.mark.parametrize("module", MODULES)
def test_a_fresh_build_is_what_runs_and_carries_its_sources_digests(module: str) -> None:
    loaded = sys.modules[f"lockup.{module}"]
    assert _accel.is_compiled(loaded) and Path(loaded.__file__) in BUILT[module]
    # Every module of the group carries the digests of every source of the group.
    assert loaded.BUILT_FROM == {
        f"{m}.py": _accel.source_digest(_accel.source_path(m)) for m in MODULES
    }
    assert "refusals.py" in loaded.BUILT_AGAINST
    for other, digest in loaded.BUILT_AGAINST.items():
        assert digest == _accel.source_digest(ROOT / "lockup" / other)
    assert _accel.stale(loaded, module) is None
    assert _accel.implementations()[module] == "compiled"
    assert implementation() == "compiled"


@needs_build
def test_the_modules_run_as_one_group_from_one_library() -> None:
    # One shared library holds the code of all three (so that they call each other as C
    # functions); each module's extension loads it, and there is no other build.
    code = (
        "import json, sys, lockup; from lockup._accel import implementations;"
        "print(json.dumps([implementations(), sorted(m for m in sys.modules if 'mypyc' in m)]))"
    )
    done = run_python(code, ROOT)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    found, libraries = json.loads(done.stdout)
    assert found == {m: "compiled" for m in MODULES}
    assert libraries == [f"lockup.{_accel.GROUP}__mypyc"]
    assert sorted((ROOT / "lockup").glob("*__mypyc.*.so")) == LIBRARY


@needs_build
def test_the_compiled_game_lists_its_fields_and_pickles() -> None:
    # A native class has no real __slots__: the engine lists the fields there all the same
    # (the tests compare games field by field), and they must be all of them.
    assert set(Game.__slots__) == set(Game.__mypyc_attrs__)  # type: ignore[attr-defined]
    rng = random.Random(5)
    game = Game.new(rng)
    for _ in range(17):
        if game.discard_due is not None:
            game.discard_random(rng)
        else:
            game.play(game.legal_cards()[-1])
    again = pickle.loads(pickle.dumps(game))
    assert state(again) == state(game) and state(game.clone()) == state(game)
    view = pickle.loads(pickle.dumps(game.view(2)))
    assert isinstance(view, SeatView) and view == game.view(2)


def copy_package(tmp_path: Path) -> Path:
    """The package with its build, beside the test (without the parts the engine needs not)."""
    shutil.copytree(
        ROOT / "lockup",
        tmp_path / "lockup",
        ignore=shutil.ignore_patterns("web", "tui", "server", "__pycache__"),
    )
    return tmp_path / "lockup"


def assert_all_from_source(done: subprocess.CompletedProcess[str], package: Path) -> None:
    assert done.returncode == 0, done.stderr
    overall, found, files = json.loads(done.stdout)
    assert overall == "python" and found == {m: "python" for m in MODULES}
    assert files == {m: str(package / f"{m}.py") for m in MODULES}
    # One warning for the whole group.
    assert done.stderr.count("RuntimeWarning") == 1, done.stderr
    assert "running the whole engine (lockup/cards.py, lockup/playout.py," in done.stderr
    assert "from its Python sources (run `make engine` to rebuild)" in done.stderr


@needs_build
@pytest.mark.parametrize("module", [*MODULES, "refusals"])
def test_an_edited_source_makes_the_whole_group_run_from_source(
    tmp_path: Path, module: str
) -> None:
    package = copy_package(tmp_path)
    source = package / f"{module}.py"
    source.write_text(source.read_text() + "\n# changed after the build\n")
    done = run_python(REPORT, tmp_path)
    assert_all_from_source(done, package)
    if module == "refusals":
        expected = "lockup/refusals.py has changed since the compiled engine was built against it"
    else:
        expected = f"lockup/{module}.py has changed since the compiled engine was built"
    assert expected in done.stderr
    # The package runs what it reports: the sources, calling each other.
    check = run_python(
        "import lockup.engine as e, lockup.playout as p, lockup.cards as c;"
        "assert e.nth_card is p.nth and e.card_str is c.card_str;"
        "assert type(e.Game.new.__func__).__name__ == 'function'",
        tmp_path,
        PYTHONWARNINGS="ignore",
    )
    assert check.returncode == 0, check.stderr


@needs_build
def test_an_incomplete_or_broken_build_makes_the_whole_group_run_from_source(
    tmp_path: Path,
) -> None:
    package = copy_package(tmp_path)
    # No build of one module: the others' extensions are passed over too.
    for path in package.glob("playout.*.so"):
        path.unlink()
    done = run_python(REPORT, tmp_path)
    assert_all_from_source(done, package)
    assert "the compiled engine is incomplete (no extension for lockup/playout.py)" in done.stderr
    # The group's library broken: the modules' extensions do not import.
    shutil.rmtree(package)
    package = copy_package(tmp_path)
    for path in package.glob(f"{_accel.GROUP}__mypyc.*.so"):
        path.write_bytes(b"not a library")
    done = run_python(REPORT, tmp_path)
    assert_all_from_source(done, package)
    assert "lockup/cards.py's compiled extension does not import" in done.stderr


def test_lockup_pure_python_runs_the_sources() -> None:
    done = run_python(REPORT, ROOT, LOCKUP_PURE_PYTHON="1")
    assert done.returncode == 0, done.stderr
    overall, found, files = json.loads(done.stdout)
    assert overall == "python" and found == {m: "python" for m in MODULES}
    assert files == {m: str(ROOT / "lockup" / f"{m}.py") for m in MODULES}
    assert done.stderr == ""


# Public arguments the engine refuses itself (a refusal or a ValueError), which compiled
# code must not turn into a TypeError of its own; the results must be the same both ways.
PROBE = """
import json, random
from lockup.cards import parse_card
from lockup.engine import Game, IllegalMove, Rules

def outcome(call):
    try:
        value = call()
    except IllegalMove as error:
        return ["IllegalMove", error.code, str(error)]
    except Exception as error:
        return [type(error).__name__, str(error)]
    if hasattr(value, "to_dict"):
        value = value.to_dict()
    return ["ok", repr(value)]

game = Game.new(random.Random(3))
card = game.legal_cards()[0]
calls = {
    "dealer str": lambda: Game(Rules(), "1"),
    "dealer bool": lambda: Game(Rules(), True).dealer,
    "dealer float": lambda: Game(Rules(), 9.0),
    "rules float target": lambda: Rules(target=20.0),
    "rules bool target": lambda: Rules(target=True),
    "rules int picture": lambda: Rules(picture_exception=1),
    "parse int": lambda: parse_card(5),
    "play str": lambda: game.clone().play("QD"),
    "play float": lambda: game.clone().play(float(card)),
    "play big": lambda: game.clone().play(2**70),
    "play negative": lambda: game.clone().play(-1),
    "play None": lambda: game.clone().play(None),
    "play bool seat": lambda: game.clone().play(card, True),
    "why_not str": lambda: game.why_not("QD"),
    "why_not list": lambda: game.why_not([card]),
    "is_legal str": lambda: game.is_legal("QD"),
    "discard str": lambda: game.clone().discard("QD"),
    "view str": lambda: game.view("0"),
    "view bool": lambda: game.view(True).seat,
    "legal_mask bool": lambda: game.legal_mask(game.turn == 1),
    "deal tuples": lambda: Game(Rules(), 0).deal(tuple(tuple(range(13 * s, 13 * s + 13)) for s in range(4))),
    "deal str": lambda: Game(Rules(), 0).deal("not a deal"),
    "from_view tuple": lambda: Game.from_view(game.view(0), tuple(game.hands)).legal_mask(),
}
print(json.dumps({name: outcome(call) for name, call in calls.items()}))
"""


@needs_build
def test_compiled_and_source_refuse_bad_arguments_alike() -> None:
    compiled = run_python(PROBE, ROOT)
    source = run_python(PROBE, ROOT, LOCKUP_PURE_PYTHON="1")
    assert compiled.returncode == 0 and source.returncode == 0, compiled.stderr + source.stderr
    found, expected = json.loads(compiled.stdout), json.loads(source.stdout)
    assert found == expected
    assert found["play str"][:2] == ["IllegalMove", "not-a-card"]
    assert found["dealer str"][0] == found["view str"][0] == "ValueError"


@needs_build
def test_the_python_sources_pass_the_rules_tests_too() -> None:
    # The in-process suite checks the compiled engine; this runs the engine's rule tests
    # again in a process that runs the Python sources.
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        + [
            str(ROOT / "tests" / name)
            for name in (
                "test_rules.py",
                "test_engine_speed_paths.py",
                "test_properties.py",
                "test_conformance.py",
            )
        ],
        cwd=ROOT,
        env={**os.environ, "LOCKUP_PURE_PYTHON": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
    assert "skipped" not in done.stdout  # the check that the sources ran, too
