"""Paired comparisons of agents: is a difference in a headline metric real, and could we tell?

Two agents are compared on the cases both were given, matched by (gold set, case id), using the
same per-case scores as the aggregates (an error scores 0.0). For every pair of agents and every
headline metric: the mean paired difference with its bootstrap interval, a sign-flip
randomization test (``stats.sign_flip_pvalues``), Holm's correction over all the run's tests, and
a power check: how many paired cases a difference of 0.05 would need to show at ``run.alpha``
with 80% power (normal approximation, ``stats.cases_needed``), and never fewer than the test
needs to reach p < alpha at all (``stats.fewest_testable_cases``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pytest_codesearch.report.headline import significant_leaders as significant_leaders
from pytest_codesearch.report.model import Comparison, PowerCheck, RunInfo
from pytest_codesearch.report.table import AgentTable
from pytest_codesearch.report.stats import (
    DETECTABLE_DIFFERENCE,
    POWER,
    bootstrap_ci,
    cases_needed,
    fewest_testable_cases,
    holm,
    presence_groups,
    seeded_rng,
    sign_flip_pvalues,
)

@dataclass(frozen=True)
class _Paired:
    """One (metric, pair) before Holm's correction."""

    metric: str
    agent_a: str
    agent_b: str
    mean_diff: float
    ci95: tuple[float, float]
    p_value: float
    n: int
    sd: float


def compare_agents(
    tables: Sequence[AgentTable], names: Sequence[str], compared: Sequence[str], run: RunInfo
) -> tuple[list[Comparison], list[PowerCheck]]:
    """Return the comparisons and power checks of every pair of agents on the ``compared`` metrics.

    Pairs follow the agent order (a before b, so ``mean_diff`` is a - b); the lists are sorted
    by metric (``compared`` order), then pair. Pairs without a common case are left out.
    """
    metrics = [m for m in dict.fromkeys(compared) if m in names]
    pairs = _pairs(tables)
    raw = [paired for a, b in pairs for paired in _compare_pair(a, b, metrics, names, run)]
    position = {m: i for i, m in enumerate(metrics)}
    order = {(a.agent, b.agent): i for i, (a, b) in enumerate(pairs)}
    raw.sort(key=lambda r: (position[r.metric], order[(r.agent_a, r.agent_b)]))
    adjusted = holm([r.p_value for r in raw])
    comparisons = [
        Comparison(
            metric=r.metric,
            agent_a=r.agent_a,
            agent_b=r.agent_b,
            mean_diff=r.mean_diff,
            ci95=list(r.ci95),
            p_value=r.p_value,
            p_holm=p_holm,
            significant=p_holm < run.alpha,
        )
        for r, p_holm in zip(raw, adjusted)
    ]
    return comparisons, [_power_check(r, run.alpha) for r in raw]


def power_warnings(checks: Sequence[PowerCheck], alpha: float) -> list[str]:
    """Return one warning per pair of agents with too few paired cases, naming the first compared metric
    (the headline's) that lacks them: the figure a reader looks at, not the noisiest one."""
    first: dict[tuple[str, str], PowerCheck] = {}
    for check in checks:  # in the order of the compared metrics, headline first
        if check.underpowered:
            first.setdefault((check.agent_a, check.agent_b), check)
    return [_power_message(check, alpha) for check in first.values()]


def _pairs(tables: Sequence[AgentTable]) -> list[tuple[AgentTable, AgentTable]]:
    """Return every (earlier, later) pair of tables."""
    return [(a, b) for i, a in enumerate(tables) for b in tables[i + 1 :]]


def _compare_pair(
    a: AgentTable, b: AgentTable, metrics: Sequence[str], names: Sequence[str], run: RunInfo
) -> list[_Paired]:
    """Return the uncorrected comparison of two agents on each metric both carry on common cases."""
    rows_a, rows_b = paired_rows(a, b)
    if not rows_a or not metrics:
        return []
    columns = [names.index(m) for m in metrics]
    diffs = a.matrix[rows_a][:, columns] - b.matrix[rows_b][:, columns]
    # every pair gets the same draws, so a twin of an agent compares exactly as the agent does
    resample = seeded_rng(run.seed, "difference")
    permute = seeded_rng(run.seed, "permutation")
    found: list[_Paired] = []
    for rows, group in presence_groups(diffs):
        sample = diffs[rows][:, group]
        intervals = bootstrap_ci(sample, run.bootstrap, resample)
        pvalues = sign_flip_pvalues(sample, permute)
        for column, interval, p_value, (mean, sd) in zip(group, intervals, pvalues, _moments(sample)):
            found.append(
                _Paired(metrics[column], a.agent, b.agent, mean, interval, p_value, sample.shape[0], sd)
            )
    return found


def paired_rows(a: AgentTable, b: AgentTable) -> tuple[list[int], list[int]]:
    """Return the rows of ``a`` and of ``b`` holding the same (gold set, case id), in ``a``'s order.

    A case listed twice for one agent is paired through its first row.
    """
    index_b: dict[tuple[str, str], int] = {}
    for row, case in enumerate(b.cases):
        index_b.setdefault((case.goldset, case.id), row)
    rows_a: list[int] = []
    rows_b: list[int] = []
    seen: set[tuple[str, str]] = set()
    for row, case in enumerate(a.cases):
        key = (case.goldset, case.id)
        if key in index_b and key not in seen:
            seen.add(key)
            rows_a.append(row)
            rows_b.append(index_b[key])
    return rows_a, rows_b


def _moments(sample: npt.NDArray[np.float64]) -> list[tuple[float, float]]:
    """Return (mean, sample std) of each column; std is 0.0 for a single row."""
    means = sample.mean(axis=0).tolist()
    sds = sample.std(axis=0, ddof=1).tolist() if sample.shape[0] > 1 else [0.0] * sample.shape[1]
    return [(float(m), float(s)) for m, s in zip(means, sds)]


def _power_check(paired: _Paired, alpha: float) -> PowerCheck:
    """Return whether ``paired.n`` cases suffice to detect a 0.05 difference in its metric."""
    needed = None
    if paired.n >= 2:
        needed = max(cases_needed(paired.sd, alpha), fewest_testable_cases(alpha))
    return PowerCheck(
        metric=paired.metric,
        agent_a=paired.agent_a,
        agent_b=paired.agent_b,
        n=paired.n,
        sd_diff=paired.sd,
        n_needed=needed,
        underpowered=needed is None or paired.n < needed,
    )


def _power_message(check: PowerCheck, alpha: float) -> str:
    """Return the warning for one underpowered pair of agents."""
    pair = f"{check.agent_a} vs {check.agent_b}"
    cases = f"{check.n} paired case{'' if check.n == 1 else 's'}"
    if check.n_needed is None:
        return f"{pair}: {cases}, too few to estimate the spread of their differences"
    return (
        f"{pair}: {cases}, about {check.n_needed} needed to detect a difference of "
        f"{DETECTABLE_DIFFERENCE} in {check.metric} (alpha {alpha:g}, power {POWER:.0%}; normal "
        f"approximation with sd {check.sd_diff:.3f} of the paired differences)"
    )
