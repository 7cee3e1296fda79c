"""Setting a run up at ``pytest_configure``: its state, seed, resume plan, stores, and what workers are told.

The plugin calls ``start_run`` once an agent is selected. On the controller (or the only process) it
decides the seed, takes the interrupted run to resume (refusing one that is not the same run), and
registers the controller and the xdist hooks; on an xdist worker it takes all of that from
``workerinput``, so every worker collects and selects the same items.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_codesearch.agents.index.stores import StoreRoots
from pytest_codesearch.repo.snapshot import SnapshotStore
from pytest_codesearch.session import items
from pytest_codesearch.session.state import STATE, RunState
from pytest_codesearch.settings.model import Settings

if TYPE_CHECKING:
    from pytest_codesearch.agents.registry import AgentChoice, AgentRegistry
    from pytest_codesearch.runs.resume import ResumePlan

SEED_KEY = "codesearch_seed"
"""``workerinput`` key: the controller's seed, so every xdist worker collects the same order."""
RESUME_KEY = "codesearch_resume"
"""``workerinput`` key: node ids the controller resumes, which every worker deselects alike."""
UNIVERSE_KEY = "codesearch_universe"
"""``workerinput`` key: the node ids a resumed run may run (the interrupted run's selection)."""
RUN_TOKEN_KEY = "codesearch_run_token"
"""``workerinput`` key: the run's token, naming the directory where workers journal their cases."""
RESUME_NOTE = pytest.StashKey[str]()
"""The line the run header prints about the resume (what was reused, or why nothing was)."""


def start_run(config: pytest.Config, settings: Settings, registry: AgentRegistry, choices: list[AgentChoice]) -> None:
    """Set up the run of ``settings`` with the selected agents in this process (see the module docstring)."""

    workerinput = getattr(config, "workerinput", None)
    plan = _load_resume(config, settings, workerinput)
    state = RunState(
        settings=settings,
        registry=registry,
        choices=choices,
        seed=_seed(settings.seed if settings.seed is not None else plan.seed, workerinput),
        snapshots=SnapshotStore(
            settings.cache_dir / "snapshots",
            materialize=False,
            exclude=_harness_paths(config, settings),
            size_limit=settings.cache_size,
        ),
        worker_id=None if workerinput is None else workerinput.get("workerid"),
        given_truth=items.given_truth(settings),
    )
    config.stash[STATE] = state
    config.pluginmanager.register(items, "codesearch-items")  # the agent-pool fixture
    if workerinput is None:
        _resume(config, state, plan)
    else:
        state.skip = frozenset(workerinput.get(RESUME_KEY, ()))
        state.run_token = workerinput.get(RUN_TOKEN_KEY)
        universe = workerinput.get(UNIVERSE_KEY)
        state.universe = None if universe is None else frozenset(universe)
        config.add_cleanup(lambda: _close_worker_journal(state))
    _use_stores(config, state)


def _close_worker_journal(state: RunState) -> None:
    """Close a worker's journal at its end (every record in it is written already)."""
    if state.worker_journal is not None:
        state.worker_journal.close()


def store_roots(settings: Settings) -> StoreRoots:
    """Return where the built-in agents' stores live for ``settings`` (this process and agents' children)."""
    return StoreRoots(str(settings.cache_dir), settings.cache_size)


def _use_stores(config: pytest.Config, state: RunState) -> None:
    """Open the token, index and embedding stores (shared by runs and workers) and release them at the end."""
    from pytest_codesearch.agents.index.stores import use_stores

    config.add_cleanup(use_stores(store_roots(state.settings)))
    config.add_cleanup(state.snapshots.close)  # releases the directories it holds from pruning


def _load_resume(config: pytest.Config, settings: Settings, workerinput: dict[str, Any] | None) -> ResumePlan:
    """Return the interrupted run to resume (controller, with --codesearch-resume), or an empty plan."""
    from pytest_codesearch.runs.journal import JOURNAL_NAME
    from pytest_codesearch.runs.resume import ResumePlan, load_earlier

    if workerinput is not None or not settings.resume:
        return ResumePlan(None, "")
    return load_earlier(settings.report_dir / JOURNAL_NAME)


def _resume(config: pytest.Config, state: RunState, plan: ResumePlan) -> None:
    """Refuse a resume that is not the same run; take the reusable records; register the controller."""
    from pytest_codesearch.runs.resume import plan_resume, refusal
    from pytest_codesearch.session.controller import RunCollector, run_info

    run = run_info(config, state)  # what this run is, compared with the interrupted one, then journalled
    if plan.earlier is not None:
        refused = refusal(plan.earlier, run, config.rootpath)
        if refused is not None:
            raise pytest.UsageError(refused)
        plan = plan_resume(plan)
        state.resumed, state.skip, state.universe = plan.records, frozenset(plan.records), plan.universe
    if plan.note:
        config.stash[RESUME_NOTE] = plan.note
    config.pluginmanager.register(RunCollector(config, state, run), "codesearch-collector")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistHooks(state), "codesearch-xdist")


def _harness_paths(config: pytest.Config, settings: Settings) -> list[Path]:
    """Return what agents must never see: the report and cache directories and pytest's cache."""
    paths = [settings.report_dir, settings.cache_dir]
    try:  # pytest's own cache (its cacheprovider resolves the ini value the same way)
        paths.append(config.rootpath / os.path.expanduser(os.path.expandvars(config.getini("cache_dir"))))
    except ValueError:  # -p no:cacheprovider: no such ini key, no cache
        pass
    return paths


def _seed(given: int | None, workerinput: dict[str, Any] | None) -> int:
    if workerinput is not None and SEED_KEY in workerinput:
        return int(workerinput[SEED_KEY])
    return given if given is not None else random.Random().randrange(2**32)


class XdistHooks:
    """Hand the controller's seed and resume plan to every worker; schedule snapshot groups."""

    def __init__(self, state: RunState) -> None:
        self.seed = state.seed
        self.skip = sorted(state.skip)
        self.universe = None if state.universe is None else sorted(state.universe)
        self.run_token = state.run_token

    def pytest_configure_node(self, node: Any) -> None:
        """Put the seed and the resumed and selectable node ids in the worker's input."""
        node.workerinput[SEED_KEY] = self.seed
        node.workerinput[RESUME_KEY] = self.skip
        node.workerinput[RUN_TOKEN_KEY] = self.run_token
        if self.universe is not None:
            node.workerinput[UNIVERSE_KEY] = self.universe

    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """With ``--dist loadgroup``, schedule snapshot groups in linear time (``xdist_schedule.py``)."""
        if config.getvalue("dist") != "loadgroup":
            return None
        from pytest_codesearch.session.xdist_schedule import SnapshotGroupScheduling

        return SnapshotGroupScheduling(config, log)
