"""The records a run produces: one ``CaseResult`` per item and the ``RunReport`` that holds them.

Every field is JSON-native so that a ``CaseResult`` survives the trip from an xdist worker to the
controller as ``model_dump_json()`` / ``model_validate_json()``. ``results.json`` is exactly
``RunReport.model_dump_json(indent=2)``; its JSON Schema is ``docs/results.schema.json``.
Non-finite floats are rejected: JSON has no NaN.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, PlainSerializer

from pytest_codesearch.scoring.matching import MatchMode, match_paths
from pytest_codesearch.status import Status

SCHEMA_VERSION = 1
"""Bumped whenever a key of ``results.json`` is renamed, removed or changes meaning."""


StatusField = Annotated[Status, PlainSerializer(lambda status: status.value, return_type=str)]
"""A status that dumps as its plain string value, in Python and JSON alike (PITFALLS 2)."""


class _Record(BaseModel):
    """Base of every report model: finite floats only; the schema describes the written JSON."""

    model_config = ConfigDict(
        allow_inf_nan=False,
        json_schema_serialization_defaults_required=True,
    )


class CaseResult(_Record):
    """The outcome of one benchmark item: one gold-set case answered by one agent."""

    id: str = Field(description="Case id, unique within its gold set.")
    goldset: str = Field(description="Name of the gold set the case comes from.")
    agent: str = Field(description="Name of the agent that answered.")
    query: str = Field(description="The natural-language query given to the agent.")
    nodeid: str = Field(description="pytest node id of the item.")
    ground_truth: list[str] = Field(description="Relevant paths, in relevance order.")
    relevance: dict[str, int] = Field(description="Graded relevance of each ground-truth path.")
    match: MatchMode = Field(
        default="exact",
        description="How answers were matched to the ground truth, the gold set's rule: 'exact', or 'substring' "
        "(a returned path containing an entry finds it).",
    )
    retrieved: list[str] = Field(description="The agent's ranked answer after normalisation.")
    ground_truth_modules: list[str] = Field(
        default_factory=list, description="Module-level ground truth, 'path.py:Name' (module_* metrics)."
    )
    ground_truth_functions: list[str] = Field(
        default_factory=list, description="Function-level ground truth, 'path.py:Class.method' (function_* metrics)."
    )
    retrieved_modules: list[str] = Field(
        default_factory=list, description="The agent's ranked module-level entities, repeats dropped."
    )
    retrieved_functions: list[str] = Field(
        default_factory=list, description="The agent's ranked function-level entities, repeats dropped."
    )
    status: StatusField = Field(
        description="'ok' (answered and scored), 'error' (the agent raised or the case could not run), "
        "'timeout' (over its budget), 'crashed' (the process running the agent died); metrics are 0.0 "
        "unless 'ok'."
    )
    latency_ms: float | None = Field(
        description="Median of the timed runs; null when the agent never answered."
    )
    latencies_ms: list[float] = Field(description="Every timed run, in order.")
    elapsed_ms: float | None = Field(
        default=None,
        description="What a failed case cost: the wall time of the agent call that failed, from its start "
        "until it failed (for a timeout, until the deadline ended it, so at least the budget); null for an "
        "'ok' case and when the agent was never called (latency counts it: docs/results-format.md).",
    )
    index_ms: float | None = Field(
        description="Duration of initialize() for this case's (agent, snapshot) in its process."
    )
    indexed: bool = Field(
        default=False, description="True on the case whose run paid for that initialize()."
    )
    metrics: dict[str, float] = Field(
        description="Metric name to score, for the metrics that apply to the case; 0.0 each on error."
    )
    error: str | None = Field(default=None, description="What went wrong, when status is not 'ok'.")
    nondeterministic: bool = Field(
        default=False, description="True when the timed runs returned different answers."
    )
    dropped: list[str] = Field(
        default_factory=list, description="Raw answer entries that are not in the snapshot."
    )
    complexity: str | None = None
    category: str | None = None
    tags: list[str] = Field(default_factory=list)
    snapshot: str | None = Field(default=None, description="Tree id, or the directory searched.")
    repo: str | None = Field(
        default=None,
        description="The repository the case searches: its remote name as the gold set gives it ('psf/requests', "
        "a URL), else the directory searched.",
    )
    base_commit: str | None = Field(default=None, description="The rev the case searches, as the gold set gives it.")
    worker: str | None = Field(default=None, description="xdist worker id, null without xdist.")
    failure_category: str | None = Field(
        default=None, description="Why the agent missed the case (hit@10 = 0); null when it did not miss."
    )
    attempts: int = Field(default=1, description="Times the agent was asked (more than 1 with --codesearch-retries).")
    retry_errors: list[str] = Field(default_factory=list, description="The error of each failed attempt before the last.")
    invalid_paths: int = Field(
        default=0, description="Answer entries dropped: outside the snapshot, absent from it, or not a path."
    )
    undefined_functions: int = Field(
        default=0, description="Functions the answer names that their file (of a language with an outline) does "
        "not define at the case's snapshot: counted, still scored (they match no truth)."
    )
    answer_cut_from: int | None = Field(
        default=None, description="The answer's length when it was longer than the bound and cut; null otherwise."
    )
    scores: list[float] = Field(
        default_factory=list,
        description="The agent's own scores, aligned with 'retrieved'; empty when it gave none (or not one per file).",
    )
    spans: list[tuple[str, int, int]] = Field(
        default_factory=list, description="Line ranges the agent pointed at: [path, first line, last line] (1-based)."
    )
    symbols: list[str] = Field(default_factory=list, description="Symbols the agent returned, ranked.")
    metadata: dict[str, JsonValue] = Field(
        default_factory=dict, description="Free JSON the agent returned with its answer (tokens, cost, ...)."
    )
    unordered: bool = Field(
        default=False, description="The answer was an unordered set (a replayed patch): metrics that read its "
        "order were refused and are absent from 'metrics'."
    )

    def scored_answer(self) -> list[str]:
        """Return the answer as it was scored: each path that found a ground-truth entry named as that entry
        (``scoring.matching.match_paths`` under the case's ``match`` rule), repeats dropped."""
        truth = self.relevance or dict.fromkeys(self.ground_truth, 1)
        return list(dict.fromkeys(match_paths(self.retrieved, truth, self.match)))

    def first_relevant_rank(self) -> int | None:
        """Return the 1-based rank of the first relevant file in the scored answer; None when none is
        (or the case failed)."""
        truth = self.relevance or dict.fromkeys(self.ground_truth, 1)
        return next((rank for rank, path in enumerate(self.scored_answer(), 1) if truth.get(path, 0) > 0), None)


class AgentInfo(_Record):
    """Where an agent came from."""

    fixture: str = Field(description="Name of the fixture that provides the agent.")
    source: str = Field(description="Where the agent was registered (module, entry point, config).")
    param: str | None = Field(default=None, description="repr() of the fixture param, if any.")


class RunInfo(_Record):
    """The settings and environment of a run.

    It records every option that changes results (``identity=True`` in the option table, by the same
    name; the defaults here are the table's, which a test keeps equal) and the pytest selection (-k, -m).
    """

    seed: int
    runs: int = Field(description="Timed runs per case.")
    k: int | None = Field(description="Cut-off the agent was asked for, null for its own choice.")
    ks: list[int] = Field(description="Cut-offs the @k metrics were computed at.")
    started_at: str = Field(description="ISO 8601, UTC.")
    finished_at: str = Field(description="ISO 8601, UTC.")
    versions: dict[str, str] = Field(description="python, pytest, pytest-codesearch, ...")
    goldsets: list[str]
    agents: dict[str, AgentInfo]
    workers: int = Field(description="Processes that ran cases concurrently (1 without xdist).")
    exit_status: int | None = None
    bootstrap: int = Field(default=1000, description="Bootstrap resamples behind every ci95 (seeded by seed).")
    alpha: float = Field(default=0.05, description="Significance level of the paired comparisons (Holm-adjusted).")
    f_beta: float | None = Field(
        default=None, description="Beta of the f_beta metric, null when it was not computed."
    )
    warmup: int = Field(default=0, description="Untimed runs of each query before the timed ones.")
    randomize: bool = Field(default=True, description="Cases ran in the seeded shuffled order (false: gold-set order).")
    timeout: float | None = Field(default=None, description="Budget of one retrieve() call in seconds; null: none.")
    index_timeout: float = Field(default=600.0, description="Budget of one initialize() call in seconds.")
    isolate: str = Field(default="auto", description="Where agents ran, as asked: none, process or auto.")
    retries: int = Field(default=0, description="Further attempts at a case whose agent raised.")
    max_answer: int = Field(default=1000, description="Entries of an answer that were scored; longer answers were cut.")
    predictions: str | None = Field(
        default=None, description="The replay agent's predictions: file name and SHA-256 of its content; null without."
    )
    entity_truth: str = Field(default="patch", description="Where SWE-bench entity truth came from: patch or dataset.")
    profile: str = Field(default="native", description="The scoring profile: native, locagent, cosil or orcaloca.")
    truth: str | None = Field(
        default=None, description="The truth file that replaced derived truth: file name and SHA-256; null without."
    )
    blind: bool = Field(default=False, description="Each agent also answered with an empty repository, as NAME-blind.")
    limit: int | None = Field(default=None, description="Cases the run was limited to (before sharding); null: all.")
    sample: str = Field(default="first", description="How the limited cases were picked: first or stratified.")
    shard: str | None = Field(default=None, description="'I/N' when the run was one of N shards; null otherwise.")
    keyword: str = Field(default="", description="The pytest -k expression that selected cases; '' for none.")
    markers: str = Field(default="", description="The pytest -m expression that selected cases; '' for none.")
    timer_resolution_ns: float | None = Field(
        default=None, description="Resolution of the clock latencies are read from (perf_counter_ns)."
    )
    timing_overhead_ns: int | None = Field(
        default=None, description="Median time the harness's timing adds around a call that does nothing: "
        "latencies below a few times this are noise."
    )


class MetricSummary(_Record):
    """One metric over the cases that carry it (an error case carries 0.0 on the metrics that apply)."""

    mean: float
    median: float
    std: float = Field(description="Sample standard deviation (ddof=1); 0.0 for one case.")
    ci95: list[float] = Field(
        min_length=2,
        max_length=2,
        description="[low, high]: percentile bootstrap 95% interval of the mean.",
    )
    n: int = Field(description="Cases the metric was aggregated over.")


class LatencySummary(_Record):
    """Latency over the cases with a known cost (``table.case_latency``); all null when none has one."""

    p50: float | None
    p90: float | None
    p99: float | None
    mean: float | None


class GroupSummary(_Record):
    """Aggregates of one agent over a group of its cases (one complexity, category, gold set, ...)."""

    metrics: dict[str, MetricSummary] = Field(
        description="Metric name to summary; a metric no case of the group carries is left out."
    )
    latency_ms: LatencySummary
    counts: dict[str, int] = Field(description="'cases', 'ok', 'error', 'nondeterministic'.")
    failures: dict[str, int] = Field(
        default_factory=dict, description="Failure category to the number of missed cases in it."
    )


class AgentSummary(GroupSummary):
    """Aggregates of one agent over every case it was given."""

    index_ms: dict[str, float] = Field(
        description="'total': sum of index_ms over indexed cases; 'count': how many."
    )
    workers: int = Field(description="Distinct processes that ran this agent's cases.")


class Comparison(_Record):
    """A paired comparison of two agents on one metric over the cases both were given."""

    metric: str
    agent_a: str
    agent_b: str
    mean_diff: float = Field(description="Mean over paired cases of (agent_a - agent_b).")
    ci95: list[float] = Field(
        min_length=2, max_length=2, description="[low, high]: bootstrap 95% interval of mean_diff."
    )
    p_value: float = Field(description="Two-sided paired sign-flip randomization test.")
    p_holm: float = Field(description="p_value after Holm's correction over every comparison of the run.")
    significant: bool = Field(description="p_holm < run.alpha.")


class PowerCheck(_Record):
    """Whether two agents share enough cases to detect a difference of 0.05 in a metric."""

    metric: str
    agent_a: str
    agent_b: str
    n: int = Field(description="Paired cases.")
    sd_diff: float = Field(description="Sample std (ddof=1) of the paired differences; 0.0 for one case.")
    n_needed: int | None = Field(
        description="max(ceil(((z(1-alpha/2) + z(0.8)) * sd_diff / 0.05)^2), smallest n with "
        "2 / 2^n < alpha); null below two paired cases."
    )
    underpowered: bool = Field(description="n < n_needed, or too few cases to tell.")


class Breakdowns(_Record):
    """Per-agent aggregates within each group: group value -> agent -> summary."""

    complexity: dict[str, dict[str, GroupSummary]] = Field(default_factory=dict)
    category: dict[str, dict[str, GroupSummary]] = Field(default_factory=dict)
    goldset: dict[str, dict[str, GroupSummary]] = Field(default_factory=dict)
    repo: dict[str, dict[str, GroupSummary]] = Field(default_factory=dict)


class Leader(_Record):
    """The best agent(s) of one column of the results table."""

    agents: list[str] = Field(
        description="Agents with the best value at the precision shown (3 decimals, 2 for ms); ties all listed."
    )
    significant: bool = Field(
        description="A single best agent, favoured over every runner-up by a significant comparison."
    )


class InvalidEntry(_Record):
    """A gold-set entry that could not be turned into a case."""

    goldset: str
    line: int
    case_id: str | None
    error: str


class AgentCost(_Record):
    """What an agent's answers cost, summed from the ``cost_usd``, ``tokens_in`` and ``tokens_out`` it returned."""

    cost_usd: float | None = Field(description="Sum of metadata.cost_usd; null when no case gave one.")
    tokens_in: int | None = Field(description="Sum of metadata.tokens_in; null when no case gave one.")
    tokens_out: int | None = Field(description="Sum of metadata.tokens_out; null when no case gave one.")
    cases: int = Field(description="Cases that gave at least one of the three.")
    correct: int = Field(description="Cases scoring 1 on correct_metric.")
    correct_metric: str | None = Field(
        description="The metric that counts an answer as correct: the run's success_metric."
    )
    cost_per_correct: float | None = Field(description="cost_usd / correct; null without cost or correct answers.")


PickKind = Literal["quality", "speed", "balance"]
"""What a recommendation picks for: the best quality, the lowest latency, the best balance of both."""


class Pick(_Record):
    """One recommendation: the agent, the figure it won on, its runner-up, and whether it stands out."""

    kind: PickKind = Field(description="'quality' (best quality), 'speed' (fastest), 'balance' (best balance).")
    agent: str | None = Field(description="The agent picked; null when the best two tie.")
    metric: str = Field(
        description="The figure compared: the quality metric, 'latency_ms.p50', or 'balance' (docs/html-report.md)."
    )
    value: float | None = Field(description="The picked agent's value of metric (of the tied agents on a tie).")
    runner_up: str | None = Field(description="The second best agent; null when no other agent has a value.")
    runner_up_value: float | None = Field(description="The runner-up's value of metric.")
    significant: bool = Field(description="The pick stands out: its lead over the runner-up is significant.")
    reason: str = Field(description="One sentence saying why, as every writer shows it.")


class Recommendations(_Record):
    """Which agent to pick: best quality, fastest and best balance; a pick that does not apply is null."""

    metric: str | None = Field(default=None, description="The quality metric (null when the run has none).")
    quality: Pick | None = Field(default=None, description="Best quality; null with fewer than two agents.")
    speed: Pick | None = Field(default=None, description="Fastest; null with fewer than two agents or no latency.")
    balance: Pick | None = Field(
        default=None, description="Best balance; null unless two agents have both a quality mean and a latency."
    )

    def picks(self) -> list[Pick]:
        """Return the picks that apply, in display order: quality, speed, balance."""
        return [pick for pick in (self.quality, self.speed, self.balance) if pick is not None]


class RunReport(_Record):
    """Everything a run produced; the single source every report writer renders."""

    schema_version: int = SCHEMA_VERSION
    run: RunInfo
    agents: dict[str, AgentSummary]
    headline: list[str] = Field(
        default_factory=list,
        description="Metrics the tables show and the comparisons test, in order (docs/results-format.md).",
    )
    leaders: dict[str, Leader] = Field(
        default_factory=dict,
        description="Metric (or 'latency_ms.p50', 'latency_ms.p90') to its best agent(s); "
        "left out when fewer than two agents have a value.",
    )
    comparisons: list[Comparison] = Field(
        default_factory=list, description="Every pair of agents on every headline metric."
    )
    power: list[PowerCheck] = Field(default_factory=list, description="One per comparison.")
    warnings: list[str] = Field(
        default_factory=list, description="What a reader must know before trusting the figures."
    )
    breakdowns: Breakdowns = Field(default_factory=Breakdowns)
    cases: list[CaseResult]
    invalid: list[InvalidEntry] = Field(default_factory=list)
    not_run: list[str] = Field(
        default_factory=list, description="Node ids collected but never reported."
    )
    incomplete: bool = Field(
        default=False,
        description="True when the run was interrupted or killed, or some collected case never ran "
        "(--codesearch-resume runs the rest).",
    )
    superseded_by: str | None = Field(
        default=None,
        description="Start time of a later run on the same report directory that has begun replacing this "
        "report (set, with incomplete: true, before that run's first case); null in a report as written.",
    )
    costs: dict[str, AgentCost] = Field(
        default_factory=dict,
        description="Agent -> summed cost and tokens, for agents that returned any in their metadata.",
    )
    success_metric: str | None = Field(
        default=None,
        description="The hit@k that counts a case as a success: hit@10, else the largest hit@k of the run "
        "(the cut-off of the failure analysis); null without a hit@k. Cost per correct answer, the case "
        "table's hit and the changed cases of a run comparison all use it.",
    )
    status_counts: dict[str, int] = Field(
        default_factory=dict,
        description="Every status, in Status order, to the number of the run's cases with it "
        "(the sum of agents.<name>.counts).",
    )
    recommendations: Recommendations = Field(
        default_factory=Recommendations,
        description="Best quality, fastest and best balance (docs/html-report.md); every writer shows these.",
    )

    def shown_statuses(self) -> list[str]:
        """Return the statuses the tables show: 'ok', then every other status some case of the run has."""
        return [status for status, count in self.status_counts.items() if count or status == Status.OK.value]

    def metric_names(self) -> list[str]:
        """Return the aggregated metric names, in report order, across all agents."""
        names: dict[str, None] = {}
        for summary in self.agents.values():
            names.update(dict.fromkeys(summary.metrics))
        return list(names)
