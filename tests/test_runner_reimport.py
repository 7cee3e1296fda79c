"""A child process imports the module that registered an agent again: same name, same file, once."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_codesearch.runner.reimport import MAIN_ALIAS, import_as


@pytest.fixture
def clean_modules() -> Iterator[None]:
    """Undo what a test imports: the modules it adds or replaces in ``sys.modules``."""
    saved = dict(sys.modules)
    yield
    for name in [n for n in sys.modules if n not in saved]:
        del sys.modules[name]
    sys.modules.update(saved)


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


RUNS_LOGGED = (
    "import pathlib\nwith open(pathlib.Path(__file__).with_suffix('.log'), 'a') as log:\n    log.write('ran\\n')\n"
)


@pytest.mark.usefixtures("clean_modules")
def test_a_package_conftest_off_sys_path_is_imported_with_its_parents(tmp_path: Path) -> None:
    """``--import-mode=importlib`` names ``pkg/sub/conftest.py`` ``pkg.sub.conftest`` without touching sys.path."""
    _write(tmp_path, {
        "cspkg/__init__.py": "KIND = 'regular'\n",
        "cspkg/sub/helpers.py": "ANSWER = 'from helpers'\n",  # cspkg/sub has no __init__.py: a namespace package
        "cspkg/sub/conftest.py": "from .helpers import ANSWER\n",
    })
    module = import_as("cspkg.sub.conftest", str(tmp_path / "cspkg" / "sub" / "conftest.py"))
    assert module.ANSWER == "from helpers"
    assert sys.modules["cspkg"].KIND == "regular"
    assert list(sys.modules["cspkg.sub"].__path__) == [str(tmp_path / "cspkg" / "sub")]
    assert sys.modules["cspkg.sub.conftest"] is module and sys.modules["cspkg"].sub.conftest is module


@pytest.mark.usefixtures("clean_modules")
def test_a_rootdir_relative_name_gets_its_directory_as_a_package(tmp_path: Path) -> None:
    """``tests/conftest.py`` without ``__init__.py`` is ``tests.conftest`` under importlib mode."""
    _write(tmp_path, {"cstests/conftest.py": "from . import shared\n", "cstests/shared.py": "Y = 2\n"})
    module = import_as("cstests.conftest", str(tmp_path / "cstests" / "conftest.py"))
    assert module.shared.Y == 2
    assert list(sys.modules["cstests"].__path__) == [str(tmp_path / "cstests")]


@pytest.mark.usefixtures("clean_modules")
def test_a_name_another_file_answers_to_is_imported_from_the_given_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two rootdir-less conftests are both ``conftest``; sys.path finds the first, the agent is in the second."""
    _write(tmp_path, {"a/conftest.py": "WHERE = 'a'\n", "b/conftest.py": RUNS_LOGGED + "WHERE = 'b'\n"})
    monkeypatch.syspath_prepend(str(tmp_path / "a"))
    sys.modules.pop("conftest", None)  # this suite's own conftest has the same name
    wanted = str(tmp_path / "b" / "conftest.py")
    module = import_as("conftest", wanted)
    assert (module.WHERE, module.__file__) == ("b", wanted)
    assert import_as("conftest", wanted) is module
    assert (tmp_path / "b" / "conftest.log").read_text() == "ran\n"  # its module code ran once


@pytest.mark.usefixtures("clean_modules")
def test_a_module_its_name_finds_is_imported_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, {"csplugin/__init__.py": "", "csplugin/agents.py": "from . import helper\n",
                      "csplugin/helper.py": "X = 1\n"})
    monkeypatch.syspath_prepend(str(tmp_path))
    module = import_as("csplugin.agents", str(tmp_path / "csplugin" / "agents.py"))
    assert module.helper.X == 1
    assert sys.modules["csplugin"].__spec__.origin == str(tmp_path / "csplugin" / "__init__.py")


@pytest.mark.usefixtures("clean_modules")
def test_a_script_is_imported_without_running_its_main_block(tmp_path: Path) -> None:
    _write(tmp_path, {"bench.py": "RAN = False\nif __name__ == '__main__':\n    raise SystemExit('main ran')\n"})
    module = import_as("__main__", str(tmp_path / "bench.py"))
    assert (module.__name__, module.RAN) == (MAIN_ALIAS, False)
