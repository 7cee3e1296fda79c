"""The process runner: the agent lives in a long-lived child process per (agent, process), hard deadlines.

The parent sends each request and waits for the answer at most the budget (plus a small margin for
the pipe); past it, or when the child dies, it kills the child and raises ``AgentTimeout`` or
``AgentCrashed``; the child leads its own process group, killed whole (``procgroup.py``). The next
case starts a fresh child, which indexes its snapshot again. Children are
started from a fork server (POSIX) or spawned, never forked from the pytest process itself, so the
agent is rebuilt from its recipe (``recipe.py``): registered again by its name. A factory that turns out
to need the pytest session makes the constructor raise ``NotRebuildable``.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import warnings
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any

from pytest_codesearch.agents.contract import ContractError, RetrievalResult
from pytest_codesearch.runner.base import AgentCrashed, AgentError, AgentTimeout, Answers, Prepared
from pytest_codesearch.runner.child_main import serve
from pytest_codesearch.runner.procgroup import AgentProcessWarning, kill_group, new_token
from pytest_codesearch.runner.recipe import AgentRecipe, NotRebuildable

if TYPE_CHECKING:
    from pytest_codesearch.agents.builtin.sanity import CaseInfo
    from pytest_codesearch.repo.snapshot import Snapshot

PIPE_MARGIN_S = 0.1
"""Added to each budget for the round trip through the pipe; the child times the agent exactly."""
START_BUDGET_S = 60.0
"""How long building the agent in a fresh child may take."""


class RemoteAgentError(Exception):
    """What the agent raised in the child: its type name, message and formatted traceback."""

    def __init__(self, type_name: str, message: str, traceback_text: str, retryable: bool = True) -> None:
        super().__init__(message)
        self.type_name = type_name
        self.traceback_text = traceback_text
        self.codesearch_retryable = retryable


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if "forkserver" in methods:
        context.set_forkserver_preload(["pytest_codesearch.runner.child_main"])
    return context


class ProcessRunner:
    """Drives one agent in a child process it starts, kills on a missed deadline and restarts."""

    def __init__(self, name: str, recipe: AgentRecipe) -> None:
        self.name = name
        self.recipe = recipe
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self._indexed: tuple[str, float] | None = None
        self._sanity = False
        self._token = ""
        self.needs_directory = True
        self._start()

    def prepare(self, snapshot: Snapshot, budget_s: float | None) -> Prepared:
        """Have the child's agent index ``snapshot`` unless it already has (a new child always indexes)."""
        root = str(snapshot.root)
        if self._process is None:
            self._start()
        if self._indexed is not None and self._indexed[0] == root:
            return Prepared(self._indexed[1], False)
        self._indexed = None
        # the view (files, blob ids, a reader of the object database): an agent with the ``use_snapshot``
        # hook reads a commit without its directory, as it does in this process (plain data, pickled)
        index_ms = float(self._request(("prepare", root, snapshot.view()), budget_s, "initializing"))
        self._indexed = (root, index_ms)
        return Prepared(index_ms, True)

    def observe(self, case: CaseInfo) -> None:
        """Hand the case to a built-in sanity agent in the child."""
        if self._sanity:
            self._request(("observe", case), None, "observing")

    def answer(self, query: str, runs: int, budget_s: float | None, warmup: int = 0) -> Answers:
        """Return ``runs`` answers, each after ``reset()``, timed in the child around ``retrieve`` alone."""
        for _ in range(warmup):
            self._request(("run", query), budget_s, "warming up")
        results: list[RetrievalResult] = []
        latencies: list[float] = []
        for _ in range(runs):
            result, latency = self._request(("run", query), budget_s, "retrieving")
            results.append(result)
            latencies.append(latency)
        return Answers(results, latencies)

    def close(self) -> None:
        """Ask the child to close its agent, then make sure it is gone."""
        if self._conn is not None and self._process is not None and self._process.is_alive():
            try:
                self._conn.send(("close",))
                self._process.join(timeout=5)
            except (OSError, ValueError):
                pass
        self._kill()

    def _start(self) -> None:
        context = _context()
        parent, child = context.Pipe()
        self._token = new_token()
        process = context.Process(
            target=serve,
            args=(child, self.recipe, list(sys.path), os.getcwd(), self._token),
            name=f"codesearch-agent-{self.name}",
            daemon=True,
        )
        process.start()
        child.close()
        self._process, self._conn, self._indexed = process, parent, None
        self.needs_directory, self._sanity = self._request(None, START_BUDGET_S, "creating the agent")

    def _request(self, message: tuple[Any, ...] | None, budget_s: float | None, what: str) -> Any:
        """Send ``message`` (None: only wait) and return the child's value, or raise what it means."""
        conn, process = self._conn, self._process
        assert conn is not None and process is not None  # started by _start
        try:
            if message is not None:
                conn.send(message)
            ready = conn.poll(None if budget_s is None else budget_s + PIPE_MARGIN_S)
            reply = conn.recv() if ready else None
        except (EOFError, OSError, BrokenPipeError):
            raise AgentCrashed(self._death(what)) from None
        if reply is None:
            self._kill()
            raise AgentTimeout(f"{what} took longer than its budget of {budget_s:g} s (the child process was killed)")
        kind = reply[0]
        if kind == "ok":
            return reply[1]
        if kind == "contract":
            raise ContractError(reply[1])
        if kind == "session":  # the factory needs the pytest session: the child has ended
            self._kill()
            raise NotRebuildable(self.name, reply[1])
        _, during, type_name, text, traceback_text, retryable = reply
        raise AgentError(f"while {during}") from RemoteAgentError(type_name, text, traceback_text, retryable)

    def _death(self, what: str) -> str:
        process = self._process
        if process is not None:
            process.join(timeout=5)
        code = None if process is None else process.exitcode
        self._kill()
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"the child process running the agent died while {what} ({name})"
        return f"the child process running the agent died while {what} (exit code {code})"

    def _kill(self) -> None:
        """Kill the child with its process group (and what left the group: named in a warning)."""
        if self._process is not None:
            pid = self._process.pid
            if pid is not None:
                survivors = kill_group(pid, self._token)
                if survivors:
                    warnings.warn(AgentProcessWarning(
                        f"agent {self.name!r}: {len(survivors)} process{'es' if len(survivors) > 1 else ''} it"
                        f" started left its process group and outlived it; killed: {', '.join(survivors)}"
                    ), stacklevel=2)
            if self._process.is_alive():
                self._process.kill()
            self._process.join(timeout=5)
        if self._conn is not None:
            self._conn.close()
        self._process, self._conn, self._indexed = None, None, None
