"""The metric registry: every metric once, and everything else derived from it.

One ``Metric`` entry gives a metric's name, whether it is reported per cut-off (``name@k``), its
formula, a one-line definition, the cases it applies to, its direction and its trec_eval name.
``score_case`` runs the formulas, ``metric_names`` and friends list the names,
``docs/metrics.md`` shows the tables (``markdown_table``; a test keeps them equal) and ``summary.md``
the definitions. Adding a metric is adding an entry here, plus its test.

A formula is a function of ``CaseCounts`` (see ``scoring.counts``) and the cut-off k (0 for a metric
without one). Line and symbol metrics
need file text, spans or symbols: their values come from ``spans.score_lines`` and
``symbols.score_symbols`` (``formula`` is None), the registry still names, defines and orders them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Protocol, cast

from pytest_codesearch.scoring.counts import CaseCounts

Section = Literal["set", "ranking", "lines", "symbols", "modules", "functions", "profiles"]
Applies = Literal["always", "f_beta", "lines", "symbols", "hard_negatives", "modules", "functions", "cosil", "orcaloca"]
"""always; only with ``--codesearch-f-beta``; cases whose ground truth gives lines, names symbols,
names symbols and lists hard negatives, lists ``ground_truth_modules`` or ``ground_truth_functions``;
every case under the scoring profile of that name (``scoring/profiles/``)."""


class Formula(Protocol):
    """A metric's formula: its value from an answer's counts at cut-off k."""

    def __call__(self, c: CaseCounts, k: int) -> float: ...


@dataclass(frozen=True)
class Metric:
    """One metric: see the module docstring."""

    name: str
    section: Section
    definition: str
    formula_text: str
    formula: Formula | None = None
    at_k: bool = False
    applies: Applies = "always"
    higher_is_better: bool = True
    trec_eval: str | None = None

    @property
    def needs_order(self) -> bool:
        """Return whether the metric reads the answer's order (refused for an unordered answer)."""
        return self.section not in ("set", "lines") and (self.section != "profiles" or self.at_k)

    def label(self) -> str:
        """Return the name as the docs show it: ``recall@k`` for a per-cut-off metric."""
        return f"{self.name}@k" if self.at_k else self.name


def _set_precision(c: CaseCounts, k: int) -> float:
    """precision = found / |answer|, 0 for an empty answer."""
    return c.ratio(c.set_found, c.set_size)


def _set_recall(c: CaseCounts, k: int) -> float:
    """recall = found / R."""
    return c.ratio(c.set_found, c.n_relevant)


def _harmonic(c: CaseCounts, precision: float, recall: float) -> float:
    """F1 = 2·P·R / (P + R), 0 when both are 0."""
    return c.ratio(2.0 * precision * recall, precision + recall)


def _f1(c: CaseCounts, k: int) -> float:
    """f1 = 2·P·R / (P + R) of the set precision and recall."""
    return _harmonic(c, _set_precision(c, k), _set_recall(c, k))


def _f1_partial(c: CaseCounts, k: int) -> float:
    """f1_partial = f1 of (partial precision, partial recall); f1 when the set holds no directory."""
    pair = c.partial_credit()
    return _f1(c, k) if pair is None else _harmonic(c, *pair)


def _f_beta(c: CaseCounts, k: int) -> float:
    """F_β = (1 + β²)·P·R / (β²·P + R), 0 when the denominator is 0."""
    weight = c.beta * c.beta
    precision, recall = _set_precision(c, k), _set_recall(c, k)
    return c.ratio((1.0 + weight) * precision * recall, weight * precision + recall)


def _precision_at(c: CaseCounts, k: int) -> float:
    """precision@k = hits(k) / k, dividing by k even when fewer were returned."""
    return c.found_at(k) / k


def _recall_at(c: CaseCounts, k: int) -> float:
    """recall@k = hits(k) / R."""
    return c.ratio(c.found_at(k), c.n_relevant)


def _f1_at(c: CaseCounts, k: int) -> float:
    """f1@k = 2·P@k·R@k / (P@k + R@k), 0 when both are 0."""
    return _harmonic(c, _precision_at(c, k), _recall_at(c, k))


def _hit_at(c: CaseCounts, k: int) -> float:
    """hit@k = 1 if hits(k) > 0, else 0."""
    return c.positive(c.found_at(k))


def _ndcg_at(c: CaseCounts, k: int) -> float:
    """ndcg@k = DCG@k / IDCG@k, 0 when IDCG@k = 0."""
    return c.ratio(c.dcg_at(k), c.idcg_at(k))


def _all_hit_at(c: CaseCounts, k: int) -> float:
    """all_hit@k = 1 if R > 0 and hits(k) = R, else 0."""
    return c.positive(c.n_relevant) * c.equal(c.found_at(k), c.n_relevant)


def _recall_cap_at(c: CaseCounts, k: int) -> float:
    """recall_cap@k = hits(k) / min(k, R)."""
    return c.ratio(c.found_at(k), c.cap(k, c.n_relevant))


def _acc_at(c: CaseCounts, k: int) -> float:
    """acc@k = 1 if R > 0 and hits(k) = min(k, R), else 0 (LocAgent's Acc@k)."""
    return c.positive(c.n_relevant) * c.equal(c.found_at(k), c.cap(k, c.n_relevant))


def _mrr(c: CaseCounts, k: int) -> float:
    """mrr = 1 / rank of the first relevant entry, 0 if none."""
    return c.reciprocal_rank()


def _map(c: CaseCounts, k: int) -> float:
    """map = Σ_{relevant rank i} (hits(i) / i) / R."""
    return c.ratio(c.precision_sum(), c.n_relevant)


def _r_precision(c: CaseCounts, k: int) -> float:
    """r_precision = hits(R) / R."""
    return c.ratio(c.found_at_r(), c.n_relevant)


def _level_metrics(prefix: str, level: Literal["modules", "functions"], what: str) -> tuple[Metric, ...]:
    """Return the entity-level metrics of one level: R, hits(k) and ranks count entities, not paths."""
    scope = f"cases with `ground_truth_{level}`; entities are {what}"
    return (
        Metric(f"{prefix}_acc", level, f"LocAgent's Acc@k over {level} ({scope}).",
               f"1 if hits(k) = min(k, R) over {level}, else 0", _acc_at, at_k=True, applies=level),
        Metric(f"{prefix}_recall", level, f"recall@k over {level} ({scope}).",
               f"hits(k) / R over {level}", _recall_at, at_k=True, applies=level, trec_eval="recall_k"),
        Metric(f"{prefix}_ndcg", level, f"ndcg@k over {level}, every entity of grade 1 ({scope}).",
               f"DCG@k / IDCG@k over {level}", _ndcg_at, at_k=True, applies=level, trec_eval="ndcg_cut_k"),
        Metric(f"{prefix}_mrr", level, f"mrr over {level} ({scope}).",
               "1 / rank of the first relevant entity, 0 if none", _mrr, applies=level, trec_eval="recip_rank"),
        Metric(f"{prefix}_map", level, f"map over {level} ({scope}).",
               "(Σ over ranks *i* holding a relevant entity of hits(i) / i) / R", _map, applies=level,
               trec_eval="map"),
    )


METRICS: tuple[Metric, ...] = (
    Metric("precision", "set", "share of the answer (taken as a set) that is relevant.",
           "hits / \\|retrieved\\|, 0 when nothing was retrieved", _set_precision, trec_eval="set_P"),
    Metric("recall", "set", "share of the relevant paths found anywhere in the answer.",
           "hits / R", _set_recall, trec_eval="set_recall"),
    Metric("f1", "set", "harmonic mean of precision and recall of the answer taken as a set.",
           "2 · precision · recall / (precision + recall), 0 when both are 0", _f1, trec_eval="set_F"),
    Metric("f1_partial", "set", "f1 in which a directory holding relevant files earns half credit.",
           "the same harmonic mean of partial precision and partial recall (below)", _f1_partial),
    Metric("f_beta", "set", "weighted harmonic mean of precision and recall (beta > 1 favours recall).",
           "(1 + β²) · precision · recall / (β² · precision + recall), 0 when both are 0; only with "
           "`--codesearch-f-beta β`", _f_beta, applies="f_beta", trec_eval="set_F.x"),
    Metric("precision", "ranking", "relevant paths among the first k results, divided by k.",
           "hits(k) / k", _precision_at, at_k=True, trec_eval="P_k"),
    Metric("recall", "ranking", "relevant paths among the first k results, divided by all relevant paths.",
           "hits(k) / R", _recall_at, at_k=True, trec_eval="recall_k"),
    Metric("f1", "ranking", "harmonic mean of precision@k and recall@k.",
           "2 · precision@k · recall@k / (precision@k + recall@k), 0 when both are 0", _f1_at, at_k=True),
    Metric("hit", "ranking", "1 when at least one relevant path is among the first k results, else 0.",
           "1 if hits(k) > 0, else 0", _hit_at, at_k=True, trec_eval="success_k"),
    Metric("ndcg", "ranking", "gain of the first k results under graded relevance with a log2 rank "
           "discount, divided by the gain of the ideal ordering.",
           "DCG@k / IDCG@k, with DCG@k = Σ_{i=1..k} rel(i) / log2(i + 1)", _ndcg_at, at_k=True,
           trec_eval="ndcg_cut_k"),
    Metric("all_hit", "ranking", "1 when every relevant path is among the first k results, else 0.",
           "1 if hits(k) = R (every ground-truth path is in the top *k*), else 0", _all_hit_at, at_k=True),
    Metric("recall_cap", "ranking", "relevant paths among the first k results, divided by min(k, relevant paths).",
           "hits(k) / min(k, R)", _recall_cap_at, at_k=True),
    Metric("acc", "ranking", "1 when the first k results hold min(k, R) relevant paths (LocAgent's Acc@k), else 0.",
           "1 if R > 0 and hits(k) = min(k, R), else 0", _acc_at, at_k=True),
    Metric("mrr", "ranking", "1 / rank of the first relevant path (0 when none is retrieved), averaged over cases.",
           "1 / rank of the first relevant entry, 0 if there is none", _mrr, trec_eval="recip_rank"),
    Metric("map", "ranking", "precision at the rank of each relevant path retrieved, summed and divided "
           "by the number of relevant paths, averaged over cases.",
           "(Σ over ranks *i* holding a relevant entry of hits(i) / i) / R", _map, trec_eval="map"),
    Metric("r_precision", "ranking", "relevant paths among the first R results, R being the number of "
           "relevant paths.", "hits(R) / R: precision at the cut-off R", _r_precision, trec_eval="Rprec"),
    Metric("line_coverage", "lines", "ground-truth lines covered by the returned spans (cases with line ranges).",
           "ground-truth lines covered by a span / ground-truth lines", applies="lines"),
    Metric("line_precision", "lines", "returned span lines that are ground-truth lines, in files with ground truth.",
           "span lines that are ground-truth lines / span lines in files that have ground-truth lines; "
           "0 when there are none", applies="lines"),
    Metric("function_hit_rate", "lines", "ground-truth functions overlapped by a returned span.",
           "ground-truth functions that a span overlaps (by at least one line) / ground-truth functions",
           applies="lines"),
    Metric("quality_score", "lines", "0.4 × recall + 0.4 × line_precision + 0.2 × function_hit_rate.",
           "0.4 × `recall` + 0.4 × `line_precision` + 0.2 × `function_hit_rate`", applies="lines"),
    Metric("symbol_hit", "symbols", "1 when a ground-truth symbol is among the first k returned symbols, else 0.",
           "1 if *r* ≤ *k*, else 0", at_k=True, applies="symbols"),
    Metric("symbol_mrr", "symbols", "1 / rank of the first ground-truth symbol returned (0 when none is).",
           "1 / *r*, 0 if no ground-truth symbol was returned", applies="symbols"),
    Metric("hard_negative_rate", "symbols", "1 when a hard negative is ranked above the first ground-truth "
           "symbol (lower is better).", "1 if a symbol of the case's `hard_negatives` is ranked above *r* "
           "(anywhere, when no ground-truth symbol was returned), else 0",
           applies="hard_negatives", higher_is_better=False),
    *_level_metrics("module", "modules", "top-level classes and functions (`path.py:Name`)"),
    *_level_metrics("function", "functions", "functions and methods (`path.py:Class.method`)"),
    Metric("top", "profiles", "CoSIL's Top-k (`--codesearch-profile=cosil`): 1 when one of the first k of the "
           "first 5 answered files is relevant, else 0; every case carries it.",
           "1 if a ground-truth file is among the first min(k, 5) answered files, else 0", at_k=True, applies="cosil"),
    Metric("function_top", "profiles", "CoSIL's function Top-k (`--codesearch-profile=cosil`): 1 when one of the "
           "first k functions answered (in the first 5 files they name) has a ground-truth function's name, else 0.",
           "1 if one of the first k answered names (`Class.method`, no path) is a ground-truth name, else 0",
           at_k=True, applies="cosil"),
    Metric("match", "profiles", "OrcaLoca's File Match (`--codesearch-profile=orcaloca`): 1 when every "
           "ground-truth file is in the answer, else 0.", "1 if R > 0 and every ground-truth file is answered, "
           "else 0", applies="orcaloca"),
    Metric("function_match", "profiles", "OrcaLoca's Function Match (`--codesearch-profile=orcaloca`): 1 when "
           "the files match and every ground-truth function is in the answer, else 0.",
           "1 if `match` = 1 and every ground-truth function (`Class.__init__` as `Class`) is answered, else 0",
           applies="orcaloca"),
)
"""Every metric, in report order (see ``expand`` for how per-cut-off metrics are ordered)."""

_BY_LABEL = {metric.label(): metric for metric in METRICS}


def find_metric(name: str) -> Metric | None:
    """Return the entry of a reported name (``recall@10`` -> the ``recall@k`` entry), None if unknown."""
    base, at, k = name.partition("@")
    if at and not k.isdigit():
        return None
    return _BY_LABEL.get(f"{base}@k" if at else base)


def needs_order(name: str) -> bool:
    """Return whether the reported metric ``name`` reads the answer's order (unknown: False)."""
    metric = find_metric(name)
    return metric is not None and metric.needs_order


def higher_is_better(name: str) -> bool:
    """Return whether a larger value of the reported metric ``name`` is better (unknown: True)."""
    metric = find_metric(name)
    return metric is None or metric.higher_is_better


def expand(metrics: Iterable[Metric], ks: Sequence[int]) -> list[tuple[str, Metric, int]]:
    """Return (reported name, entry, k) for ``metrics`` in report order.

    Entries keep their order, except that each run of consecutive per-cut-off entries is reported
    cut-off by cut-off: ``precision@1, recall@1, ..., precision@5, recall@5, ...``. k is 0 for an
    entry without a cut-off.
    """
    named: list[tuple[str, Metric, int]] = []
    block: list[Metric] = []
    for metric in [*metrics, None]:
        if metric is not None and metric.at_k:
            block.append(metric)
            continue
        named += [(f"{m.name}@{k}", m, k) for k in ks for m in block]
        block = []
        if metric is not None:
            named.append((metric.name, metric, 0))
    return named


@lru_cache(maxsize=64)
def names_of(applies: frozenset[str], ks: tuple[int, ...]) -> tuple[tuple[str, Metric, int], ...]:
    """Return ``expand`` of the entries whose ``applies`` is in ``applies`` (cached per ks)."""
    return tuple(expand((m for m in METRICS if m.applies in applies), ks))


def markdown_table(section: Section) -> str:
    """Return the docs table of one section: name, formula (and trec_eval name, if any) of each metric."""
    metrics = [metric for metric in METRICS if metric.section == section]
    trec = any(metric.trec_eval for metric in metrics)
    rows = ["| name | formula | trec_eval |", "|---|---|---|"] if trec else ["| name | formula |", "|---|---|"]
    for metric in metrics:
        better = "" if metric.higher_is_better else " (lower is better)"
        cells = [f"`{metric.label()}`", metric.formula_text + better]
        if trec:
            cells.append(f"`{metric.trec_eval}`" if metric.trec_eval else "—")
        rows.append(f"| {' | '.join(cells)} |")
    return "\n".join(rows)


def update_docs(text: str) -> str:
    """Return ``text`` with each ``<!-- metrics:SECTION -->`` ... ``<!-- /metrics -->`` block regenerated."""
    pattern = re.compile(r"(<!-- metrics:(\w+) -->\n).*?(<!-- /metrics -->)", re.DOTALL)

    def table(match: re.Match[str]) -> str:
        return f"{match.group(1)}{markdown_table(cast(Section, match.group(2)))}\n{match.group(3)}"

    return pattern.sub(table, text)

