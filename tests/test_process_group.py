"""An agent's processes die with it (issue 18 item 10): its process group at its deadline and at the end of
the run, and a process that left the group (``start_new_session``, ``setsid``) killed and named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from example_project import read_results, write_project

SPAWNER = """
import json
import os
import subprocess
import time
import pytest_codesearch as pcs

PIDS = {pids!r}

def _start(*args, **kwargs):
    process = subprocess.Popen(args, **kwargs)
    with open(PIDS, "a") as stream:
        stream.write(json.dumps([process.pid, args[-1], bool(kwargs)]) + "\\n")

def spawn(query):
    if query == "hang":
        _start("sleep", "300")                                # in the agent's group
        _start("sleep", "301", start_new_session=True)        # a daemon of its own session
        time.sleep(30)                                        # past the deadline
    _start("sleep", "302")                                    # alive when the run ends
    return ["src/app.py"]

@pcs.agent(name="spawner")
def spawner():
    return spawn
"""
CASES = [
    {"id": "hang", "query": "hang", "ground_truth_files": ["src/app.py"]},
    {"id": "fine", "query": "fine", "ground_truth_files": ["src/app.py"]},
]


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for a parent that will not reap it is dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state != b"Z"


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="finds escaped processes through /proc")
@pytest.mark.parametrize("dist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_an_agents_processes_die_at_its_deadline_and_at_the_end_of_the_run(
    pytester: pytest.Pytester, dist: list[str]
) -> None:
    write_project(pytester.path, CASES)
    pids = pytester.path / "pids.jsonl"
    pytester.makeconftest(SPAWNER.format(pids=str(pids)))
    result = pytester.runpytest(
        "--codesearch-agent=spawner", "--codesearch-isolate=process", "--codesearch-timeout=1",
        "--codesearch-runs=1", "-W", "always::UserWarning", *dist,
    )
    started = [json.loads(line) for line in pids.read_text().splitlines()]
    assert sorted(name for _, name, _ in started) == ["300", "301", "302"]
    assert [pid for pid, _, _ in started if _alive(pid)] == []
    daemon = next(pid for pid, _, own_session in started if own_session)
    result.stdout.fnmatch_lines([
        f"*AgentProcessWarning: agent 'spawner': 1 process it started left its process group and outlived it;"
        f" killed: pid {daemon} (sleep 301)*"
    ])
    statuses = {record["id"]: record["status"] for record in read_results(pytester.path)["cases"]}
    assert statuses == {"hang": "timeout", "fine": "ok"}
