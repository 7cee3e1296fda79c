"""pytest hooks: options, agent selection, collection of gold sets, ordering, results in reports."""

from __future__ import annotations

import random
import sys
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from typing import TYPE_CHECKING

from pytest_codesearch.agents.registry import AgentRegistry, AgentSelectionError, entry_point_specs, specs_in
from pytest_codesearch.settings import (
    DEFAULT_ALPHA,
    DEFAULT_BOOTSTRAP,
    DEFAULT_CACHE_DIR,
    DEFAULT_KS,
    DEFAULT_REPORT_DIR,
    DEFAULT_RUNS,
    Settings,
    SettingsError,
    build_settings,
    first_given,
)
from pytest_codesearch.keys import CASE_ATTRIBUTE, INVALID_ATTRIBUTE, POOL_FIXTURE, RESUME_KEY, SEED_KEY
from pytest_codesearch.state import STATE, RunState

if TYPE_CHECKING:
    from pytest_codesearch.agents.pool import AgentPool
    from pytest_codesearch.benchfile import BenchmarkConfig
    from pytest_codesearch.items import GoldsetFile

# The library (pydantic, numpy, pygit2, rank-bm25) is imported inside the hooks, only once an agent
# is selected: a pytest run that benchmarks nothing does not pay for it.


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register the hooks other plugins may implement (``pytest_codesearch_transform_query``)."""
    from pytest_codesearch import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the --codesearch-* options and their ini keys."""
    group = parser.getgroup("codesearch", "code-search benchmarks (pytest-codesearch)")
    group.addoption(
        "--codesearch-agent", action="append", default=[], metavar="NAME",
        help="benchmark this agent on the gold sets collected (repeatable; comma lists; 'all'). "
        "Without it the plugin does nothing.",
    )
    group.addoption("--codesearch-seed", default=None, metavar="INT",
                    help="seed of the case order and of the random agent (default: a new random seed, printed)")
    group.addoption("--codesearch-runs", default=None, metavar="N",
                    help=f"timed runs of each retrieval; latency is their median (default {DEFAULT_RUNS})")
    group.addoption("--codesearch-k", default=None, metavar="K",
                    help="score precision/recall/f1 over the top K results only (default: the whole answer)")
    group.addoption("--codesearch-ks", default=None, metavar="LIST",
                    help="cut-offs for precision@k, recall@k, hit@k, ndcg@k (default 1,5,10)")
    group.addoption("--codesearch-report-dir", default=None, metavar="DIR",
                    help=f"where results.json, results.csv and summary.md go (default {DEFAULT_REPORT_DIR}/)")
    group.addoption("--codesearch-cache-dir", default=None, metavar="DIR",
                    help=f"where repository snapshots are materialised (default <rootdir>/{DEFAULT_CACHE_DIR})")
    group.addoption("--codesearch-f-beta", default=None, metavar="BETA",
                    help="also score F-beta (metric f_beta) with this beta; 2 weighs recall higher")
    group.addoption("--codesearch-bootstrap", default=None, metavar="N",
                    help="bootstrap resamples of the 95%% confidence intervals (default 1000)")
    group.addoption("--codesearch-timeout", default=None, metavar="SECONDS",
                    help="budget of one retrieve() call: a slower answer is status 'timeout', scored 0")
    group.addoption("--codesearch-index-timeout", default=None, metavar="SECONDS",
                    help="budget of one initialize() call (default 600)")
    group.addoption("--codesearch-retries", default=None, metavar="N",
                    help="ask again, with backoff, up to N times when an agent raises (default 0)")
    group.addoption("--codesearch-max-answer", default=None, metavar="N",
                    help="entries of an answer that are scored; longer answers are cut (default 1000)")
    group.addoption("--codesearch-shard", default=None, metavar="I/N",
                    help="run the I-th of N deterministic, snapshot-balanced shards of the items (CI matrices)")
    group.addoption("--codesearch-merge", nargs="+", default=None, metavar="DIR",
                    help="merge the journals of these report directories (shards) into one report; runs no case")
    group.addoption("--codesearch-warmup", default=None, metavar="N",
                    help="untimed runs of each query before the timed ones (default 0)")
    group.addoption("--codesearch-resume", action="store_true", default=None,
                    help="reuse the completed cases of the last run (its journal), run only the rest")
    group.addoption("--codesearch-isolate", default=None, metavar="LEVEL",
                    help="where agents run: none (this process), process (a child process per agent: "
                    "hard budgets, crashes contained), auto (process when --codesearch-timeout is set; default)")
    group.addoption("--codesearch-config", default=None, metavar="FILE",
                    help="YAML benchmark config: dataset, evaluation, agents, output (options override it)")
    group.addoption("--codesearch-alpha", default=None, metavar="A",
                    help="significance level of the paired tests between agents (default 0.05)")
    group.addoption("--codesearch-generate", action="store_true", default=False,
                    help="mine a git history into a gold set instead of running tests")
    group.addoption("--codesearch-repo", default=None, metavar="PATH",
                    help="with --codesearch-generate: the repository to mine (default: the current directory)")
    group.addoption("--codesearch-rev", default=None, metavar="REV",
                    help="with --codesearch-generate: mine the history reachable from REV (default HEAD)")
    group.addoption("--codesearch-output", default=None, metavar="FILE",
                    help="with --codesearch-generate: the gold set to write (default goldsets/<repo>.jsonl)")
    parser.addini("codesearch_agent", type="linelist", default=[], help="agents to benchmark (as --codesearch-agent)")
    parser.addini("codesearch_runs", default=str(DEFAULT_RUNS), help="timed runs of each retrieval")
    parser.addini("codesearch_ks", default=",".join(map(str, DEFAULT_KS)), help="cut-offs for the @k metrics")
    parser.addini("codesearch_report_dir", default=DEFAULT_REPORT_DIR, help="report directory")
    parser.addini("codesearch_bootstrap", default=str(DEFAULT_BOOTSTRAP), help="bootstrap resamples")
    parser.addini("codesearch_alpha", default=str(DEFAULT_ALPHA), help="significance level")
    parser.addini("codesearch_config", default="", help="YAML benchmark config (relative to the rootdir)")
    parser.addini("codesearch_cache_dir", default=DEFAULT_CACHE_DIR, help="snapshot cache directory")


def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """``--codesearch-generate`` mines a history into a gold set, ``--codesearch-merge`` merges shards'
    reports; both end the run: no test runs."""
    if config.getoption("codesearch_merge"):
        from pytest_codesearch.report.merge_command import run_merge

        return run_merge([Path(p) for p in config.getoption("codesearch_merge")], _settings(config, _load_bench(config)))
    if not config.getoption("codesearch_generate"):
        return None
    from pytest_codesearch.generate_command import run_generate

    return run_generate(config)


def pytest_configure(config: pytest.Config) -> None:
    """Select the agents (exit 4 on an unknown name) and set up the run when any is selected."""
    config.addinivalue_line("markers", "codesearch: a pytest-codesearch benchmark case")
    bench = _load_bench(config)
    settings = _settings(config, bench)
    if not settings.active:
        return
    registry = _registry(config, bench)
    try:
        choices = registry.select(settings.agents)
    except AgentSelectionError as exc:
        raise pytest.UsageError(str(exc)) from None
    from pytest_codesearch.collector import RunCollector
    from pytest_codesearch.repo.snapshot import SnapshotStore

    workerinput = getattr(config, "workerinput", None)
    resumed, seed = _resume(config, settings, choices, workerinput)
    state = RunState(
        settings=settings,
        registry=registry,
        choices=choices,
        seed=seed,
        snapshots=SnapshotStore(settings.cache_dir / "snapshots", materialize=False),
        worker_id=None if workerinput is None else workerinput.get("workerid"),
        resumed=resumed,
        skip=frozenset(resumed if workerinput is None else workerinput.get(RESUME_KEY, ())),
    )
    config.stash[STATE] = state
    if workerinput is None:
        config.pluginmanager.register(RunCollector(config, state), "codesearch-collector")
        if config.pluginmanager.hasplugin("xdist"):
            config.pluginmanager.register(XdistHooks(seed, sorted(state.skip)), "codesearch-xdist")


def _resume(
    config: pytest.Config, settings: Settings, choices: list[Any], workerinput: dict[str, Any] | None
) -> tuple[dict[str, Any], int]:
    """Return the earlier run's reusable records (controller, with --codesearch-resume) and the seed."""
    if workerinput is not None or not settings.resume:
        return {}, _seed(settings.seed, workerinput)
    from pytest_codesearch import __version__
    from pytest_codesearch.keys import JOURNAL_NAME
    from pytest_codesearch.resume import plan_resume

    plan = plan_resume(
        settings.report_dir / JOURNAL_NAME, config.rootpath, __version__, {c.name: c.param_repr for c in choices}
    )
    config.stash[RESUME_NOTE] = plan.note
    seed = settings.seed if settings.seed is not None else plan.seed
    return plan.records, _seed(seed, None)


RESUME_NOTE = pytest.StashKey[str]()


_OPTIONS = ("agent", "seed", "runs", "k", "ks", "report_dir", "cache_dir", "f_beta", "bootstrap", "alpha",
            "timeout", "index_timeout", "isolate", "retries", "max_answer", "resume", "warmup", "shard", "config")
_INI = ("agent", "runs", "ks", "report_dir", "cache_dir", "bootstrap", "alpha", "config")


def _settings(config: pytest.Config, bench: BenchmarkConfig | None) -> Settings:
    """Merge command line > YAML config > ini file > defaults into validated settings."""
    cli = {_key(name): config.getoption(f"codesearch_{name}") for name in _OPTIONS}
    ini = {_key(name): config.getini(f"codesearch_{name}") for name in _INI}
    from_yaml: dict[str, object] = {}
    if bench is not None:
        from pytest_codesearch.benchfile import config_settings

        path = _config_path(config)
        from_yaml = {**config_settings(bench, path), "config": str(path)}
    try:
        return build_settings(first_given(cli, from_yaml, ini), config.invocation_params.dir, config.rootpath)
    except SettingsError as exc:
        raise pytest.UsageError(str(exc)) from None


def _key(option: str) -> str:
    return "agents" if option == "agent" else option


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Build every selected agent once before any case runs: one that cannot be built is a usage error."""
    state = session.config.stash.get(STATE, None)
    if state is None:
        return
    from pytest_codesearch.runner.inprocess import watch_ctrl_c

    watch_ctrl_c()  # from now on an agent's own KeyboardInterrupt is its error, not the end of the run
    if hasattr(session.config, "workerinput") or session.config.option.collectonly:
        return
    from pytest_codesearch.agents.pool import check_agents, isolation_problems

    errors, notes = isolation_problems(state.choices, state.settings.isolation)
    problems = errors + check_agents(state.choices, session.config)
    if problems:
        raise pytest.UsageError("\n".join(problems))
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    for note in notes:
        if reporter is not None:
            reporter.write_line(f"codesearch: {note}", yellow=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Give SIGINT back to pytest's handler."""
    if STATE in config.stash:
        from pytest_codesearch.runner.inprocess import unwatch_ctrl_c

        unwatch_ctrl_c()


def _config_path(config: pytest.Config) -> Path:
    given = config.getoption("codesearch_config")
    if given:
        return config.invocation_params.dir / str(given)
    return config.rootpath / str(config.getini("codesearch_config"))


def _load_bench(config: pytest.Config) -> BenchmarkConfig | None:
    """Return the YAML config when one is given; a bad one is a usage error naming file, line and key."""
    if not (config.getoption("codesearch_config") or config.getini("codesearch_config")):
        return None
    from pytest_codesearch.benchfile import ConfigError, load_config

    try:
        return load_config(_config_path(config))
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None


def _registry(config: pytest.Config, bench: BenchmarkConfig | None) -> AgentRegistry:
    from pytest_codesearch.agents import builtin

    registry = AgentRegistry()
    for spec in specs_in(vars(builtin)):
        registry.add(spec)
    for plugin in config.pluginmanager.get_plugins():
        if isinstance(plugin, type(sys)) and plugin is not builtin:
            for spec in specs_in(vars(plugin)):
                registry.add(spec)
    specs, errors = entry_point_specs()
    if bench is not None:
        from pytest_codesearch.benchfile import ConfigError, config_agent_specs

        try:
            specs += config_agent_specs(bench, str(_config_path(config)))
        except ConfigError as exc:
            raise pytest.UsageError(str(exc)) from None
    for spec in specs:
        registry.add(spec)
    for message in errors:
        config.issue_config_time_warning(pytest.PytestConfigWarning(message), stacklevel=2)
    if registry.conflicts:
        raise pytest.UsageError("\n".join(registry.conflicts))
    return registry


def _seed(given: int | None, workerinput: dict[str, Any] | None) -> int:
    if workerinput is not None and SEED_KEY in workerinput:
        return int(workerinput[SEED_KEY])
    return given if given is not None else random.Random().randrange(2**32)


class XdistHooks:
    """Hand the controller's seed and resumed cases to every worker so that all collect the same items."""

    def __init__(self, seed: int, skip: list[str]) -> None:
        self.seed = seed
        self.skip = skip

    def pytest_configure_node(self, node: Any) -> None:
        """Put the seed and the resumed node ids in the worker's input."""
        node.workerinput[SEED_KEY] = self.seed
        node.workerinput[RESUME_KEY] = self.skip


@pytest.fixture(scope="session", name=POOL_FIXTURE)
def codesearch_pool(request: pytest.FixtureRequest) -> Iterator[AgentPool]:
    """The agents of this process: created on first use, torn down at the end of the session."""
    from pytest_codesearch.agents.pool import AgentPool

    settings = request.config.stash[STATE].settings
    pool = AgentPool(request, request.getfixturevalue, isolate=settings.isolation)
    yield pool
    pool.close()


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """Print the seed and the agents, so that a run can be repeated."""
    state = config.stash.get(STATE, None)
    if state is None:
        return None
    names = ", ".join(c.name for c in state.choices)
    lines = [f"codesearch: agents {names}; seed {state.seed} (repeat with --codesearch-seed={state.seed})"]
    note = config.stash.get(RESUME_NOTE, None)
    return lines + ([f"codesearch: {note}"] if note else [])


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> GoldsetFile | None:
    """Collect gold sets of any known shape when an agent is selected; other files are left alone."""
    if STATE not in parent.config.stash:
        return None
    from pytest_codesearch.goldset.formats import reader_for
    from pytest_codesearch.items import GoldsetFile

    if reader_for(file_path) is None:
        return None
    return GoldsetFile.from_parent(parent, path=file_path)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run cases in a seeded shuffle: snapshots in random order, cases shuffled within each.

    With ``randomize: false`` in the YAML config the gold-set order is kept.
    """
    state = config.stash.get(STATE, None)
    if state is None:
        return
    if state.skip:
        from pytest_codesearch.resume import base_nodeid

        done = [i for i in items if base_nodeid(i.nodeid) in state.skip]
        if done:
            items[:] = [i for i in items if base_nodeid(i.nodeid) not in state.skip]
            config.hook.pytest_deselected(items=done)
    if state.settings.shard is not None:
        from pytest_codesearch.shard import select_shard

        items[:], others = select_shard(items, *state.settings.shard, group_of=_shard_group, id_of=_base_id)
        if others:
            config.hook.pytest_deselected(items=others)
    if state.settings.randomize:
        from pytest_codesearch.ordering import order_items

        items[:] = order_items(items, state.seed)


def _base_id(item: pytest.Item) -> str:
    return item.nodeid.split("]@", 1)[0]


def _shard_group(item: pytest.Item) -> str:
    """Return the snapshot an item searches (broken gold-set entries go with their file)."""
    spec = getattr(item, "spec", None)
    if spec is None:
        return f"file:{item.path}"
    from pytest_codesearch.items import snapshot_group

    return snapshot_group(spec)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    """Attach the case record (JSON text) to the call report, so it crosses xdist intact."""
    report = yield
    if call.when != "call" or STATE not in item.config.stash:
        return report
    from pytest_codesearch.items import CASE_RESULT, BrokenEntryItem, CaseItem

    if isinstance(item, CaseItem) and CASE_RESULT in item.stash:
        result = item.stash[CASE_RESULT]
        setattr(report, CASE_ATTRIBUTE, result.model_dump_json())
        item.config.stash[STATE].local_results[item.nodeid] = result
    elif isinstance(item, BrokenEntryItem):
        setattr(report, INVALID_ATTRIBUTE, item.invalid_entry().model_dump_json())
    return report
