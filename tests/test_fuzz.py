"""Fuzzing: random and mutated gold-set files and random agent outputs never end in an internal error.

Loading always gives cases or per-entry errors (file, line, field); an agent's answer always becomes
a valid score or a ``ContractError`` naming the agent: never another exception.
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_codesearch.agents.adapter import coerce_result
from pytest_codesearch.agents.contract import ContractError, RetrievalResult, Span
from pytest_codesearch.agents.normalize import normalize_paths
from pytest_codesearch.goldset.formats import load
from pytest_codesearch.scoring import score_case

GOOD_LINES = [
    json.dumps({"metadata": {"name": "fuzz", "repo": "."}}),
    json.dumps({"id": "a", "query": "login view", "ground_truth_files": ["src/a.py"]}),
    json.dumps({"id": "b", "query": "q", "ground_truth_files": [{"path": "src/b.py", "relevance": 2,
                                                                  "lines": [[1, 3]], "symbols": ["b.f"]}]}),
]
FILES = frozenset({"src/a.py", "src/b.py", "src/c/d.py", "README.md"})
DIRECTORIES = frozenset({"src", "src/c"})

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def _mutate(lines: list[str], data: st.DataObject) -> bytes:
    text = "\n".join(lines)
    for _ in range(data.draw(st.integers(0, 4))):
        position = data.draw(st.integers(0, len(text)))
        action = data.draw(st.sampled_from(["delete", "insert", "duplicate"]))
        if action == "delete":
            text = text[:position] + text[position + data.draw(st.integers(1, 5)):]
        elif action == "insert":
            text = text[:position] + data.draw(st.text(max_size=6)) + text[position:]
        else:
            text = text + "\n" + text[position:]
    return text.encode("utf-8", errors="surrogatepass")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), suffix=st.sampled_from([".jsonl", ".json"]))
def test_mutated_goldsets_load_with_readable_errors(data: st.DataObject, suffix: str) -> None:
    lines = list(GOOD_LINES)
    if suffix == ".json":
        lines = [json.dumps({"metadata": json.loads(GOOD_LINES[0])["metadata"],
                             "test_cases": [json.loads(line) for line in GOOD_LINES[1:]]}, indent=1)]
    extra = data.draw(st.lists(json_values.map(lambda v: json.dumps(v, allow_nan=True)), max_size=3))
    raw = _mutate(lines + extra, data)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"cases{suffix}"
        path.write_bytes(raw)
        loaded = load(path)  # never raises
    for entry in loaded.entries:
        assert (entry.case is None) == (entry.error is not None)
        assert entry.line >= 1
        if entry.error is not None:
            assert entry.error.strip() and "Traceback" not in entry.error
    assert loaded.error is None or "Traceback" not in loaded.error


paths = st.sampled_from(sorted(FILES | DIRECTORIES) + ["../../etc/passwd", "/etc/passwd", "./src/a.py",
                                                       "src\\a.py", "", " src/b.py ", "ghost.py", "src//c/../a.py"])
answers: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.lists(paths, max_size=30),
    st.lists(st.one_of(paths, st.integers(), st.none(), st.builds(Path, paths)), max_size=10),
    st.builds(
        RetrievalResult,
        files=st.lists(paths, max_size=20),
        scores=st.lists(st.floats(allow_nan=True), max_size=20),
        spans=st.lists(st.builds(Span, paths, st.integers(-5, 50), st.integers(-5, 50)), max_size=5),
        symbols=st.lists(st.text(max_size=5), max_size=5),
        metadata=st.dictionaries(st.text(max_size=5), json_values, max_size=3),
    ),
)


@settings(max_examples=500, deadline=None)
@given(raw=answers, k=st.one_of(st.none(), st.integers(1, 12)))
def test_random_agent_outputs_score_or_name_the_agent(raw: Any, k: int | None) -> None:
    try:
        result = coerce_result("fuzzy", raw)
    except ContractError as exc:
        assert str(exc).startswith("agent 'fuzzy'")
        return
    normalized = normalize_paths(result.files, Path("/snap"), FILES, DIRECTORIES)
    assert set(normalized.paths) <= FILES | DIRECTORIES
    assert len(normalized.paths) == len(set(normalized.paths))
    metrics = score_case(normalized.paths, {"src/a.py": 1, "src/b.py": 2}, k=k,
                         directories=normalized.directories, f_beta=2.0)
    assert all(0.0 <= v <= 1.0 and not math.isnan(v) for v in metrics.values())
