"""The ``native`` profile: pytest-codesearch's own metrics and truth (docs/metrics.md), nothing changed."""

from __future__ import annotations

from pytest_codesearch.scoring.profiles.base import Profile

PROFILE = Profile(
    name="native",
    summary="pytest-codesearch's own metrics and truth derived by its rules",
    source="docs/metrics.md, docs/swebench-format.md",
)
