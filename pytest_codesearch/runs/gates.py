"""Quality gates: floors an agent's mean must reach, and regressions against a saved baseline run.

``--codesearch-fail-under "ndcg@10=0.40,recall@10=0.60"`` gives floors: every agent's mean of each
metric must be at least its floor. ``--codesearch-fail-on "ndcg@10:-0.02,latency_p90:+20%"`` gives
tolerances against a baseline: a metric (higher is better) fails when it drops by more than the
amount (``-0.02`` absolute, ``-5%`` relative to the baseline); a latency figure (lower is better:
``latency_p50``, ``latency_p90``, ``latency_p99``, ``latency_mean``, in ms) fails when it grows by
more than the amount (``+20%``, or ``+50`` ms). A regression fails the gate only when the paired
difference on the cases both runs answered is significant (Holm-adjusted p < alpha, as in
``compare_runs``, over the family of the gated agent x metric tests), unless ``require_significance`` is False (``--codesearch-gate-any``).
Each failure is one line naming the agent, the metric, the value and the threshold.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from pytest_codesearch.report.model import RunReport
from pytest_codesearch.runs.compare import LATENCY_FIGURES, ComparisonError, compare_runs, summary_value


class GateError(ValueError):
    """A gate specification that cannot be parsed; str() names the option and the bad part."""


@dataclass(frozen=True)
class Floor:
    """An agent's mean of ``metric`` must be at least ``minimum``."""

    metric: str
    minimum: float


@dataclass(frozen=True)
class Tolerance:
    """How far ``metric`` may move the wrong way from the baseline: ``amount`` (a fraction when ``relative``)."""

    metric: str
    amount: float
    relative: bool

    @property
    def lower_is_better(self) -> bool:
        """Return True for latency figures."""
        return self.metric in LATENCY_FIGURES

    def threshold(self, baseline: float) -> float:
        """Return the worst value still accepted, given the baseline's value."""
        step = baseline * self.amount if self.relative else self.amount
        return baseline + step

    def describe(self) -> str:
        """Return the tolerance as it was written, e.g. '+20%' or '-0.02'."""
        return f"{self.amount * 100:+g}%" if self.relative else f"{self.amount:+g}"


def parse_floors(text: str, where: str = "--codesearch-fail-under") -> list[Floor]:
    """Return the floors of 'metric=minimum,...'; ``GateError`` names ``where`` and the bad part."""
    floors = []
    for part in _parts(text, where):
        metric, sep, value = part.partition("=")
        if not sep or not metric.strip():
            raise GateError(f"{where}: {part!r}: expected METRIC=MINIMUM, e.g. ndcg@10=0.40")
        floors.append(Floor(metric.strip(), _number(value, where, part)))
    return floors


def parse_tolerances(text: str, where: str = "--codesearch-fail-on") -> list[Tolerance]:
    """Return the tolerances of 'metric:-0.02,latency_p90:+20%'; the sign must point the wrong way."""
    tolerances = []
    for part in _parts(text, where):
        metric, sep, value = part.rpartition(":")
        metric, value = metric.strip(), value.strip()
        if not sep or not metric or value[:1] not in "+-" or not value[1:]:
            raise GateError(f"{where}: {part!r}: expected METRIC:-AMOUNT or METRIC:+AMOUNT%, e.g. ndcg@10:-0.02")
        relative = value.endswith("%")
        amount = _number(value.removesuffix("%"), where, part) / (100.0 if relative else 1.0)
        tolerance = Tolerance(metric, amount, relative)
        if (amount > 0) != tolerance.lower_is_better and amount != 0:
            good = "+" if tolerance.lower_is_better else "-"
            raise GateError(
                f"{where}: {part!r}: {metric} is {'lower' if good == '+' else 'higher'} is better, "
                f"so its tolerance is {good}AMOUNT (how far it may get worse)"
            )
        tolerances.append(tolerance)
    return tolerances


def check_floors(report: RunReport, floors: list[Floor]) -> list[str]:
    """Return one message per (agent, floor) the report falls below; a metric an agent lacks fails too."""
    failures = []
    for agent, summary in report.agents.items():
        for floor in floors:
            value = summary_value(summary, floor.metric)
            if value is None:
                failures.append(f"gate failed: agent {agent}: {floor.metric} is not in the report (floor {floor.minimum:g})")
            elif value < floor.minimum:
                failures.append(f"gate failed: agent {agent}: {floor.metric} = {value:.4f} < floor {floor.minimum:g}")
    return failures


def check_regressions(
    report: RunReport,
    baseline: RunReport,
    tolerances: list[Tolerance],
    *,
    require_significance: bool = True,
    label: str = "baseline",
) -> list[str]:
    """Return one message per (agent, tolerance) where ``report`` regressed past it against ``baseline``."""
    try:
        comparison = compare_runs(baseline, report, [t.metric for t in tolerances], labels=(label, "this run"))
    except ComparisonError as exc:
        return [f"gate failed: {exc}"]
    deltas = {(d.agent, d.metric): d for d in comparison.deltas}
    failures = []
    for agent in report.agents:
        for tolerance in tolerances:
            delta = deltas.get((agent, tolerance.metric))
            if delta is None or delta.before is None or delta.after is None:
                continue  # the agent or metric is new: nothing to regress from
            limit = tolerance.threshold(delta.before)
            worse = delta.after > limit if tolerance.lower_is_better else delta.after < limit
            if not worse or (require_significance and not delta.significant):
                continue
            p = "" if delta.p_holm is None else f", p = {delta.p_holm:.3g}, Holm over the {comparison.family} gated tests"
            failures.append(
                f"gate failed: agent {agent}: {tolerance.metric} = {delta.after:.4f}, {label} {delta.before:.4f} "
                f"(allowed {tolerance.describe()}: {limit:.4f}{p})"
            )
    return failures


@dataclass
class Gates:
    """The gates a run was asked for: floors, and tolerances against a loaded baseline."""

    floors: list[Floor] = field(default_factory=list)
    tolerances: list[Tolerance] = field(default_factory=list)
    baseline: RunReport | None = None
    baseline_name: str = "baseline"
    require_significance: bool = True

    @classmethod
    def parse(
        cls,
        fail_under: str | None,
        fail_on: str | None,
        baseline: str | None,
        *,
        gate_any: bool = False,
        history: Path,
        here: Path,
    ) -> Gates:
        """Return the gates of the options' values; ``GateError`` (or ``HistoryError`` for the baseline) says
        what is wrong, before any case runs."""
        from pytest_codesearch.runs.history import load_report, resolve_run

        gates = cls(
            floors=parse_floors(fail_under) if fail_under else [],
            tolerances=parse_tolerances(fail_on) if fail_on else [],
            require_significance=not gate_any,
        )
        if gates.tolerances and not baseline:
            raise GateError("--codesearch-fail-on: needs --codesearch-baseline RUN (a path, an id or 'latest')")
        if baseline:
            gates.baseline = load_report(resolve_run(baseline, history, here))
            gates.baseline_name = f"baseline {baseline}"
        return gates

    def check_names(self, known: Collection[str]) -> None:
        """Raise ``GateError`` when a gate names a metric the run cannot have (``known``: its metric names)."""
        for where, metric in [("--codesearch-fail-under", f.metric) for f in self.floors] + [
            ("--codesearch-fail-on", t.metric) for t in self.tolerances
        ]:
            if metric not in known and metric not in LATENCY_FIGURES:
                choices = [*known, *LATENCY_FIGURES]
                close = difflib.get_close_matches(metric, choices, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise GateError(f"{where}: {metric!r} is not a metric of this run{hint}")

    def check(self, report: RunReport) -> list[str]:
        """Return one message per failed gate (empty when every gate passed)."""
        failures = check_floors(report, self.floors)
        if self.baseline is not None and self.tolerances:
            failures += check_regressions(
                report, self.baseline, self.tolerances,
                require_significance=self.require_significance, label=self.baseline_name,
            )  # fmt: skip
        return failures


def _parts(text: str, where: str) -> list[str]:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise GateError(f"{where}: empty; give at least one entry")
    return parts


def _number(text: str, where: str, part: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise GateError(f"{where}: {part!r}: {text.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise GateError(f"{where}: {part!r}: the amount must be finite")
    return value
