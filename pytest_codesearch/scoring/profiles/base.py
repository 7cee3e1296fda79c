"""What a scoring profile is: a paper's truth convention, answer convention, denominator and metric names.

A profile scores the same answer as a published evaluator does. Every profile keeps the native metrics
(so reports, gates and comparisons work the same) and may add metrics of its own, or give a native name
the value the paper's evaluator computes (CoSIL's ``map``: over the first 5 files only). Its metrics are
registry entries (``scoring/registry.py``, section ``profiles``), so the docs and reports define them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pytest_codesearch.scoring.registry import names_of


@dataclass(frozen=True)
class ProfileInput:
    """What a profile may read about one answered case."""

    files: Sequence[str]
    """The answer's files in their answered ranks: normalised paths, or the entry as given when it names no
    file of the snapshot (it holds its rank and matches nothing); repeats kept."""
    given_files: Sequence[str]
    """The answer's files exactly as the agent gave them (no cleaning at all), best first."""
    functions: Sequence[str]
    """The answer's function-level entities (``path.py:Class.method``) as given, best first, repeats kept."""
    truth_files: frozenset[str]
    """The case's ground-truth files."""
    truth_functions: Sequence[str]
    """The case's ``ground_truth_functions`` (possibly empty)."""
    ks: tuple[int, ...]
    """The run's cut-offs."""


Scorer = Callable[[ProfileInput], dict[str, float]]


@dataclass(frozen=True)
class Profile:
    """One scoring convention (see the module docstring)."""

    name: str
    """What ``--codesearch-profile`` takes."""
    summary: str
    """One line: whose convention it is."""
    source: str
    """The published file whose rules it follows."""
    truth: str = "native"
    """The convention of truth derived from patches (``goldset/conventions.py``)."""
    always: tuple[str, ...] = ()
    """Registry scopes whose metrics every case carries under this profile."""
    also_always: tuple[str, ...] = ()
    """Names of native optional metrics every case carries under it (scored 0 without truth at that level)."""
    score: Scorer | None = field(default=None, compare=False)
    """The profile's own metric values for one answered case (None: the native metrics alone)."""

    def metric_names(self, ks: Sequence[int]) -> list[str]:
        """Return the names the profile adds to the metrics every case carries, in report order."""
        own = [name for name, _, _ in names_of(frozenset(self.always), tuple(ks))]
        return [*own, *(name for name in self.also_always if name not in own)]
