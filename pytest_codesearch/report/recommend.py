"""Which agent to pick: best quality, fastest and best balance, each with whether it stands out.

``recommend`` reads a ``RunReport`` that ``build_run_report`` has aggregated (means, comparisons,
latency) and returns the ``Recommendations`` it stores in ``RunReport.recommendations``; every
writer shows those. With fewer than two agents nothing is recommended (every pick is null).

Latency counts the cases an agent failed (``table.case_latency``: a timeout costs at least its
budget, an error or a crash the time until it failed, when known), so an agent that times out on
most cases is neither the fastest nor the best balance.

- **Best quality**: the highest mean of the quality metric (``quality_metric``: nDCG@10 when the
  run has it, else the first ranking metric of ``QUALITY_METRICS`` it has). It stands out when
  the report's paired comparison with the runner-up (Holm-corrected) is significant in its
  favour (``compare.significant_leaders``).
- **Fastest**: the lowest p50 latency. The report holds no latency comparison, so the fastest
  and the runner-up are compared here with a two-sided paired sign test on the cases both
  have a latency for (which of the two had the lower per-case latency; ties dropped), at
  ``run.alpha`` without a multiple-comparison correction.
- **Best balance**: the highest mean of min-max normalised quality and speed across the agents
  that have both: ``balance = (q_norm + s_norm) / 2`` with ``q_norm = (q - q_min) / (q_max -
  q_min)`` and ``s_norm = (log p50_max - log p50) / (log p50_max - log p50_min)`` (speed on a log
  scale: halving latency counts the same at 1 ms and at 1 s; a range of zero normalises to 1).
  It stands out when it is significantly better than the runner-up on quality or speed and not
  significantly worse on the other.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pytest_codesearch.report.headline import significant_leaders
from pytest_codesearch.report.model import Pick, PickKind, Recommendations, RunReport
from pytest_codesearch.report.table import case_latency

QUALITY_METRICS = ("ndcg@10", "mrr", "map", "recall@10", "hit@5", "hit@1", "f1")
"""Candidates for the quality metric, in order of preference."""
SPEED_METRIC = "latency_ms.p50"
"""The figure the fastest pick compares (lower is better)."""
BALANCE_METRIC = "balance"
"""The figure the best-balance pick compares: (q_norm + s_norm) / 2 (module docstring)."""
TITLES: dict[PickKind, str] = {"quality": "Best quality", "speed": "Fastest", "balance": "Best balance"}
"""How every writer names each kind of pick."""


def quality_metric(report: RunReport) -> str | None:
    """Return the first of ``QUALITY_METRICS`` the report aggregates, or None."""
    names = set(report.metric_names())
    return next((m for m in QUALITY_METRICS if m in names), None)


def recommend(report: RunReport) -> Recommendations:
    """Return the best-quality, fastest and best-balance picks of ``report``; none with fewer than two agents."""
    metric = quality_metric(report)
    if len(report.agents) < 2:
        return Recommendations(metric=metric)
    quality = _quality_scores(report, metric)
    speed = _p50s(report)
    latencies = case_latencies(report)
    return Recommendations(
        metric=metric,
        quality=_pick_quality(report, metric, quality),
        speed=_pick_speed(report, speed, latencies),
        balance=_pick_balance(report, metric, quality, speed, latencies),
    )


def balance_scores(quality: dict[str, float], p50: dict[str, float]) -> dict[str, float]:
    """Return agent -> (q_norm + s_norm) / 2 for agents with both a quality mean and a p50 > 0."""
    agents = [a for a in quality if a in p50 and p50[a] > 0]
    if not agents:
        return {}
    q_lo, q_hi = min(quality[a] for a in agents), max(quality[a] for a in agents)
    logs = {a: math.log(p50[a]) for a in agents}
    s_lo, s_hi = min(logs.values()), max(logs.values())
    return {
        a: (_norm(quality[a], q_lo, q_hi) + _norm(s_hi - logs[a] + s_lo, s_lo, s_hi)) / 2
        for a in agents
    }


def sign_test(wins: int, losses: int) -> float:
    """Return the two-sided exact binomial p-value of ``wins`` against ``losses`` (p = 0.5); 1.0 for none."""
    n = wins + losses
    if n == 0:
        return 1.0
    low = min(wins, losses)
    if n > 1000:  # normal approximation with continuity correction
        z = (abs(wins - losses) - 1) / math.sqrt(n)
        return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))
    tail = sum(math.comb(n, i) for i in range(low + 1)) / (1 << n)
    return min(1.0, 2 * tail)


Latencies = dict[str, dict[tuple[str, str], float]]
"""Agent -> (gold set, case id) -> the case's latency (``table.case_latency``; the first record of a case)."""


def case_latencies(report: RunReport) -> Latencies:
    """Return every agent's latency per case that has one (failed cases too), in one pass over the cases."""
    found: Latencies = {}
    for case in report.cases:
        latency = case_latency(case)
        if latency is not None:
            found.setdefault(case.agent, {}).setdefault((case.goldset, case.id), latency)
    return found


def latency_test(report: RunReport, a: str, b: str, latencies: Latencies | None = None) -> tuple[float, int]:
    """Return the sign-test p-value of ``a`` against ``b`` on latency of the cases both have one for, and who won.

    The second value is 1 when ``a`` was faster on more cases, -1 when ``b`` was, 0 on a tie.
    ``latencies`` (``case_latencies(report)``) saves a pass over the cases when given.
    """
    found = case_latencies(report) if latencies is None else latencies
    times_a, times_b = found.get(a, {}), found.get(b, {})
    pairs = [(x, times_b[case]) for case, x in times_a.items() if case in times_b]
    wins, losses = sum(x < y for x, y in pairs), sum(x > y for x, y in pairs)
    return sign_test(wins, losses), (wins > losses) - (wins < losses)


def p_text(p_value: float) -> str:
    """Return 'p = 0.031' (two significant digits), or 'p < 1e-06' below one in a million."""
    return "p < 1e-06" if p_value < 1e-6 else f"p = {p_value:.2g}"


def _quality_scores(report: RunReport, metric: str | None) -> dict[str, float]:
    """Return agent -> mean of ``metric`` for agents that carry it."""
    if metric is None:
        return {}
    return {a: s.metrics[metric].mean for a, s in report.agents.items() if metric in s.metrics}


def _p50s(report: RunReport) -> dict[str, float]:
    """Return agent -> p50 latency for agents with a latency (failed cases counted, see ``case_latency``)."""
    return {a: s.latency_ms.p50 for a, s in report.agents.items() if s.latency_ms.p50 is not None}


def _ranked(scores: dict[str, float], *, higher: bool) -> list[str]:
    """Return agents best first (report order breaks ties)."""
    order = {a: i for i, a in enumerate(scores)}
    return sorted(scores, key=lambda a: (-scores[a] if higher else scores[a], order[a]))


def _pick_quality(report: RunReport, metric: str | None, scores: dict[str, float]) -> Pick | None:
    """Return the best-quality pick (significant when the report's comparison says so); None without scores."""
    ranked = _ranked(scores, higher=True)
    if metric is None or not ranked:
        return None
    best = ranked[0]
    if len(ranked) == 1:
        return _pick("quality", best, metric, scores[best], None, None, False, "the only agent with scores")
    runner = ranked[1]
    if scores[best] == scores[runner]:
        return _pick("quality", None, metric, scores[best], runner, scores[runner], False,
                     f"{best} and {runner} tie on {metric}")  # fmt: skip
    lead = significant_leaders(report, [metric]).get(metric) == best
    reason = (
        f"highest mean {metric}, significantly ahead of {runner} (paired test, Holm p < {report.run.alpha:g})"
        if lead
        else f"highest mean {metric}, but within noise of {runner}"
    )
    return _pick("quality", best, metric, scores[best], runner, scores[runner], lead, reason)


def _pick_speed(report: RunReport, p50: dict[str, float], latencies: Latencies) -> Pick | None:
    """Return the fastest pick (significant when a paired sign test on latency says so); None without latency."""
    ranked = _ranked(p50, higher=False)
    if not ranked:
        return None
    best = ranked[0]
    if len(ranked) == 1:
        return _pick("speed", best, SPEED_METRIC, p50[best], None, None, False, "the only agent with a latency")
    runner = ranked[1]
    p_value, winner = latency_test(report, best, runner, latencies)
    lead = p50[best] < p50[runner] and winner > 0 and p_value < report.run.alpha
    reason = (
        f"lowest p50 latency, significantly faster than {runner} (paired sign test, {p_text(p_value)})"
        if lead
        else f"lowest p50 latency, but within noise of {runner} (paired sign test, {p_text(p_value)})"
    )
    return _pick("speed", best, SPEED_METRIC, p50[best], runner, p50[runner], lead, reason)


def _pick_balance(
    report: RunReport, metric: str | None, quality: dict[str, float], p50: dict[str, float], latencies: Latencies
) -> Pick | None:
    """Return the best-balance pick (significant when ahead on one axis and not behind on the other).

    None unless two agents have both a quality mean and a p50: a balance of one agent says nothing.
    """
    scores = balance_scores(quality, p50)
    ranked = _ranked(scores, higher=True)
    if len(ranked) < 2 or metric is None:
        return None
    best, runner = ranked[0], ranked[1]
    quality_sign = _quality_sign(report, metric, best, runner)
    speed_sign = _speed_sign(report, best, runner, latencies)
    lead = max(quality_sign, speed_sign) > 0 and min(quality_sign, speed_sign) >= 0
    if lead:
        reason = f"best mean of normalised {metric} and speed, significantly ahead of {runner}"
    elif min(quality_sign, speed_sign) < 0:
        reason = f"best mean of normalised {metric} and speed; a trade-off against {runner}"
    else:
        reason = f"best mean of normalised {metric} and speed, but within noise of {runner}"
    return _pick("balance", best, BALANCE_METRIC, scores[best], runner, scores[runner], lead, reason)


def _pick(
    kind: PickKind, agent: str | None, metric: str, value: float, runner_up: str | None,
    runner_up_value: float | None, significant: bool, reason: str,
) -> Pick:  # fmt: skip
    """Return a ``Pick`` from its fields in order."""
    return Pick(kind=kind, agent=agent, metric=metric, value=value, runner_up=runner_up,
                runner_up_value=runner_up_value, significant=significant, reason=reason)  # fmt: skip


def _quality_sign(report: RunReport, metric: str, a: str, b: str) -> int:
    """Return 1 if ``a`` is significantly better than ``b`` on ``metric``, -1 if worse, else 0."""
    for c in report.comparisons:
        if c.metric == metric and c.significant and {c.agent_a, c.agent_b} == {a, b}:
            favours_a = c.mean_diff > 0 if c.agent_a == a else c.mean_diff < 0
            return 1 if favours_a else -1
    return 0


def _speed_sign(report: RunReport, a: str, b: str, latencies: Latencies) -> int:
    """Return 1 if ``a`` is significantly faster than ``b``, -1 if slower, else 0."""
    p_value, winner = latency_test(report, a, b, latencies)
    return winner if p_value < report.run.alpha else 0


def _norm(value: float, lo: float, hi: float) -> float:
    """Return ``value`` scaled to [0, 1] over [lo, hi]; 1.0 when the range is empty."""
    return 1.0 if hi <= lo else (value - lo) / (hi - lo)


def describe(picks: Sequence[Pick]) -> list[str]:
    """Return one plain sentence per pick, e.g. 'Best quality: bm25 (highest mean ndcg@10, ...)'."""
    return [f"{TITLES[p.kind]}: {p.agent if p.agent is not None else 'none'} ({p.reason})" for p in picks]
