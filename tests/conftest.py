"""Shared helpers for tests that run the plugin as users do, through pytester."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

# The plugin imports its library (numpy, pygit2, pydantic) only once an agent is selected, which
# for in-process pytester runs happens inside the run; pytester then drops modules first imported
# there, and numpy cannot be imported twice in one process. Import them up front.
import pytest_codesearch.agents.builtin.fixtures  # noqa: F401
import pytest_codesearch.session.controller  # noqa: F401
import pytest_codesearch.session.items  # noqa: F401
import pytest_codesearch.runner.process  # noqa: F401  (multiprocessing.connection must not be imported twice)
from example_project import write_project

# Most end-to-end tests start pytest in new processes (pytester subprocesses, their xdist workers, agents'
# child processes). Where the environment sets PYTHONDONTWRITEBYTECODE (this machine kind does), each of
# them compiled and assertion-rewrote every module again, about a second apiece: let them cache bytecode
# as Python does by default.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# CI runs the property tests with a fixed derivation of examples, so a submission's result does not
# depend on the draw; locally each run draws anew and may find what CI did not.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    """A pytester directory holding the example sources and gold set."""
    return write_project(pytester.path)


@pytest.fixture
def make_conftest(pytester: pytest.Pytester) -> Callable[[str], None]:
    """Write a conftest.py (dedented source) into the pytester directory."""

    def write(source: str) -> None:
        pytester.makeconftest(source)

    return write
