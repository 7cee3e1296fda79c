"""The in-process runner: the agent lives in this pytest process; budgets are soft (``deadline.py``)."""

from __future__ import annotations

import signal
import statistics
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_codesearch.agents.adapter import AgentHandle, coerce_result
from pytest_codesearch.agents.contract import ContractError, RetrievalResult
from pytest_codesearch.runner.base import AgentError, AgentTimeout, Answers, Prepared
from pytest_codesearch.runner.deadline import DeadlineExceeded, deadline

if TYPE_CHECKING:
    from pytest_codesearch.agents.builtin.sanity import CaseInfo
    from pytest_codesearch.repo.snapshot import Snapshot

T = TypeVar("T")


class InProcessRunner:
    """Drives one agent in this process and remembers which snapshot it has indexed."""

    def __init__(self, name: str, handle: AgentHandle) -> None:
        self.name = name
        self.handle = handle
        self.needs_directory = handle.needs_directory
        self._indexed: tuple[str, float] | None = None
        self._index_timeouts: dict[str, str] = {}

    def prepare(self, snapshot: Snapshot, budget_s: float | None) -> Prepared:
        """Run ``initialize`` on ``snapshot.root`` unless it is already the agent's index.

        An ``initialize`` that ran out of its budget is not retried for the same snapshot in this
        process: every later case of it times out at once with the same message.
        """
        root = str(snapshot.root)
        if self._indexed is not None and self._indexed[0] == root:
            return Prepared(self._indexed[1], False)
        if root in self._index_timeouts:
            raise AgentTimeout(self._index_timeouts[root])
        self._indexed = None
        start = time.perf_counter_ns()
        try:
            run_agent_code("initializing", lambda: self._initialize(snapshot), budget_s)
        except AgentTimeout as exc:
            self._index_timeouts[root] = f"{exc} (earlier in this process; not retried for this snapshot)"
            raise
        index_ms = (time.perf_counter_ns() - start) / 1e6
        self._indexed = (root, index_ms)
        return Prepared(index_ms, True)

    def _initialize(self, snapshot: Snapshot) -> None:
        """Offer the agent the snapshot's view if it has the hook ``use_snapshot``, then ``initialize``."""
        use_snapshot = getattr(self.handle.obj, "use_snapshot", None)
        if callable(use_snapshot):
            use_snapshot(snapshot.view())
        self.handle.initialize(str(snapshot.root))

    def observe(self, case: CaseInfo) -> None:
        """Hand the case to a built-in sanity agent (never to an agent under test)."""
        observe = getattr(self.handle.obj, "observe_case", None)
        if callable(observe) and type(self.handle.obj).__module__.startswith("pytest_codesearch."):
            observe(case)

    def answer(self, query: str, runs: int, budget_s: float | None, warmup: int = 0) -> Answers:
        """Return ``runs`` answers, each after ``reset()``, timed around ``retrieve`` alone (after ``warmup``)."""
        for _ in range(warmup):
            run_agent_code("resetting", self.handle.reset, budget_s)
            run_agent_code("warming up", lambda: self.handle.retrieve(query), budget_s)
        results: list[RetrievalResult] = []
        latencies: list[float] = []
        for _ in range(runs):
            run_agent_code("resetting", self.handle.reset, budget_s)
            raw, elapsed_ns = run_agent_code("retrieving", lambda: _timed(self.handle.retrieve, query), budget_s)
            results.append(coerce_result(self.name, raw))
            latencies.append(elapsed_ns / 1e6)
        return Answers(results, latencies)

    def close(self) -> None:
        """Close the agent's event loop, if it has one."""
        self.handle.close()


def timing_overhead_ns(samples: int = 2001) -> int:
    """Return the median nanoseconds the harness's timing adds around a call that does nothing."""
    return int(statistics.median(_timed(_nothing, "")[1] for _ in range(samples)))


def _nothing(query: str) -> None:
    return None


def _timed(retrieve: Callable[[str], Any], query: str) -> tuple[Any, int]:
    """Return the raw answer and the nanoseconds the call alone took."""
    start = time.perf_counter_ns()
    answer = retrieve(query)
    return answer, time.perf_counter_ns() - start


def run_agent_code(what: str, function: Callable[[], T], budget_s: float | None = None) -> T:
    """Run agent code within ``budget_s``; what it raises becomes ``AgentError`` chained to the original.

    ``SystemExit`` and ``pytest.exit()`` raised by the agent are its errors, not the end of the session;
    so is a ``KeyboardInterrupt`` once ``watch_ctrl_c()`` runs, unless a SIGINT (the user's Ctrl-C)
    arrived during the call: that still ends the session.
    """
    presses = _CTRL_C.presses
    try:
        if budget_s is None:  # no deadline to set: spare the context manager (three calls a case)
            return function()
        with deadline(budget_s):
            return function()
    except DeadlineExceeded:
        raise AgentTimeout(f"{what} took longer than its budget of {budget_s:g} s") from None
    except ContractError:
        raise
    except KeyboardInterrupt as exc:
        if _CTRL_C.presses != presses or not _CTRL_C.watching:
            raise
        raise AgentError(f"while {what}") from exc
    except BaseException as exc:  # SystemExit, pytest outcomes, anything the agent raises
        raise AgentError(f"while {what}") from exc


class _CtrlCCounter:
    """Counts the SIGINTs this process receives, so a KeyboardInterrupt can be told apart from the user's."""

    def __init__(self) -> None:
        self.presses = 0
        self.watching = False
        self._previous: Any = None

    def install(self) -> None:
        """Count SIGINTs from now on (main thread only), then hand each to the handler that was there."""
        if self.watching or threading.current_thread() is not threading.main_thread():
            return
        self._previous = signal.getsignal(signal.SIGINT)
        signal.signal(signal.SIGINT, self._on_sigint)
        self.watching = True

    def uninstall(self) -> None:
        """Give SIGINT back to the handler found at ``install``."""
        if self.watching and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, self._previous)
            self.watching = False

    def _on_sigint(self, signum: int, frame: Any) -> Any:
        self.presses += 1
        if callable(self._previous):
            return self._previous(signum, frame)
        raise KeyboardInterrupt


_CTRL_C = _CtrlCCounter()
watch_ctrl_c = _CTRL_C.install
"""Start telling the user's Ctrl-C from an agent's own KeyboardInterrupt (call once per session)."""
unwatch_ctrl_c = _CTRL_C.uninstall
