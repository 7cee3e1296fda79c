"""The child process's side of the process runner: build the agent, then serve the parent's requests.

Messages are tuples over a ``multiprocessing`` pipe. The parent sends ``("prepare", root)``,
``("observe", case)``, ``("run", query)`` and ``("close",)``; the child answers each with
``("ok", value)``, ``("raised", what, type name, message, traceback text, retryable)`` or
``("contract", message)``. Building the agent may also end with ``("session", message)``: its factory
needs the pytest session, so the agent must run in the parent. Retrieval is timed here, around the
agent's call alone.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import traceback
from typing import Any

from pytest_codesearch.agents.adapter import AgentHandle, adapt_agent, coerce_result
from pytest_codesearch.agents.contract import ContractError
from pytest_codesearch.agents.factory import close_generators, needs_session
from pytest_codesearch.runner.procgroup import enter_own_group
from pytest_codesearch.runner.recipe import AgentRecipe, build_agent, session_only


def serve(conn: Any, recipe: AgentRecipe, sys_path: list[str], cwd: str, token: str = "") -> None:
    """Build the agent and answer requests until ``close`` or the parent goes away.

    ``sys_path`` and ``cwd`` are the parent's at the time the child starts (a fork server started
    earlier knows only those of its own start). The child leads its own process group, marked with
    ``token`` (``procgroup.py``), so that the parent can kill whatever the agent starts.
    """
    enter_own_group(token)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    sys.path[:] = sys_path
    os.chdir(cwd)
    if recipe.stores is not None:  # what runs stored (tokens, indexes, embeddings) serves this child too
        from pytest_codesearch.agents.index.stores import use_stores

        use_stores(recipe.stores)
    try:
        agent, generators = build_agent(recipe)
        handle = adapt_agent(recipe.agent, agent)
    except ContractError as exc:
        conn.send(("contract", str(exc)))
        return
    except BaseException as exc:  # the factory's own error, or it needs the pytest session
        need = needs_session(exc)
        if need is not None:
            conn.send(("session", session_only(str(need))))
        else:
            conn.send(_raised("creating the agent", exc))
        return
    obj = handle.obj
    sanity = callable(getattr(obj, "observe_case", None)) and type(obj).__module__.startswith("pytest_codesearch.")
    conn.send(("ok", (handle.needs_directory, sanity)))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message[0] == "close":
            handle.close()
            close_generators(generators)  # the code after a generator factory's ``yield``
            return
        conn.send(_handle(handle, message))


def _handle(handle: AgentHandle, message: tuple[Any, ...]) -> tuple[Any, ...]:
    op = message[0]
    what = {"prepare": "initializing", "observe": "observing", "run": "retrieving"}.get(op, op)
    try:
        if op == "prepare":
            start = time.perf_counter_ns()
            use_snapshot = getattr(handle.obj, "use_snapshot", None)
            if callable(use_snapshot) and message[2] is not None:  # the view, as an agent in process gets it
                use_snapshot(message[2])
            handle.initialize(message[1])
            return ("ok", (time.perf_counter_ns() - start) / 1e6)
        if op == "observe":
            handle.obj.observe_case(message[1])
            return ("ok", None)
        if op == "run":
            try:
                handle.reset()
            except BaseException as exc:
                return _raised("resetting", exc)
            start = time.perf_counter_ns()
            raw = handle.retrieve(message[1])
            elapsed = time.perf_counter_ns() - start
            return ("ok", (coerce_result(handle.name, raw), elapsed / 1e6))
    except ContractError as exc:
        return ("contract", str(exc))
    except BaseException as exc:  # SystemExit, KeyboardInterrupt, pytest outcomes: the agent's error
        return _raised(what, exc)
    return ("contract", f"unknown request {op!r}")


def _raised(what: str, exc: BaseException) -> tuple[str, str, str, str, str, bool]:
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    retryable = getattr(exc, "codesearch_retryable", True) is not False
    return ("raised", what, type(exc).__name__, str(exc), text, retryable)
