"""Text safe for records: any string an input can hold becomes a record that serialises, bounded."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_codesearch.goldset.formats import load
from pytest_codesearch.recordtext import MAX_QUERY_CHARS, MAX_TEXT_CHARS, safe_record, safe_text
from pytest_codesearch.report.model import CaseResult
from pytest_codesearch.status import Status

# every code point, lone surrogates and control characters included
any_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=40)


def test_surrogate_escaped_bytes_read_as_the_byte_and_others_as_their_code_point() -> None:
    name = b"caf\xe9/x\xff.py".decode("utf-8", "surrogateescape")
    assert safe_text(name) == "caf\\xe9/x\\xff.py"
    assert safe_text("login \ud800 view \udfff") == "login \\ud800 view \\udfff"
    assert safe_text("plain ascii and ünïcode") == "plain ascii and ünïcode"


@settings(max_examples=200, deadline=None)
@given(query=any_text, entries=st.lists(any_text, max_size=4), error=any_text, key=any_text, long=st.integers(0, 3))
def test_any_strings_make_a_record_that_serialises(
    query: str, entries: list[str], error: str, key: str, long: int
) -> None:
    query = query * (1 + long * 5_000)  # up to about 800,000 characters
    record = safe_record({
        "id": "c1", "goldset": "g.jsonl", "agent": "a", "query": query, "nodeid": "g.jsonl::c1[a]",
        "ground_truth": ["src/a.py"], "relevance": {"src/a.py": 1}, "retrieved": entries, "latency_ms": None,
        "latencies_ms": [], "index_ms": None, "metrics": {}, "error": error, "symbols": entries,
        "spans": [[e, 1, 2] for e in entries], "metadata": {key: entries},
    })
    text = CaseResult(status=Status.ERROR, **record).model_dump_json()
    back = json.loads(text)
    assert len(back["query"]) <= MAX_QUERY_CHARS + 40
    assert all(len(e) <= MAX_TEXT_CHARS + 40 for e in back["retrieved"])


@settings(max_examples=60, deadline=None)
@given(depth=st.integers(70, 5_000), opener=st.sampled_from(['{"a": ', "["]), suffix=st.sampled_from([".jsonl", ".json"]))
def test_deep_gold_set_values_are_an_error_never_an_exception(depth: int, opener: str, suffix: str) -> None:
    closer = "}" if opener.startswith("{") else "]"
    deep = opener * depth + "1" + closer * depth
    good = json.dumps({"id": "a", "query": "q", "ground_truth_files": ["src/a.py"]})
    if suffix == ".jsonl":
        text = f'{good}\n{{"id": "b", "query": "q", "ground_truth_files": ["x.py"], "x-v": {deep}}}\n'
    else:
        text = '{"test_cases": [' + good + ", " + deep + "]}"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"cases{suffix}"
        path.write_text(text)
        loaded = load(path)  # never raises
    errors = [e.error for e in loaded.entries if e.error] + ([loaded.error] if loaded.error else [])
    assert len(errors) == 1 and "invalid JSON: nested more than 64 levels deep (column " in errors[0]
    if suffix == ".jsonl":  # one line alone is broken: the good case still loads
        assert [c.id for c in loaded.cases] == ["a"]


def test_plain_fields_are_kept_as_they_are_and_any_other_is_escaped_and_cut() -> None:
    retrieved, metrics = ["src/a.py", "src/b.py"], {"recall": 1.0, "mrr": 0.5}
    spans: list[object] = []
    extra: dict[str, object] = {}
    long = "x" * (MAX_TEXT_CHARS + 3)
    record = safe_record({
        "query": "q" * MAX_TEXT_CHARS * 2, "retrieved": retrieved, "metrics": metrics, "latency_ms": 1.5,
        "dropped": ["ok.py", long], "relevance": {"caf\udce9.py": 1}, "scores": [1.0, 2],
        "metadata": {"note": ["caf\ud800"]}, "nodeid": "g.jsonl::" + long + "[a]", "spans": spans, "extra": extra,
    })
    assert record["retrieved"] is retrieved and record["metrics"] is metrics  # nothing copied
    assert record["spans"] is spans and record["extra"] is extra
    assert record["query"] == "q" * MAX_TEXT_CHARS * 2  # the query's own bound is larger
    assert record["dropped"] == ["ok.py", "x" * MAX_TEXT_CHARS + "... [3 more characters cut]"]
    assert record["relevance"] == {"caf\\xe9.py": 1}
    assert record["scores"] == [1.0, 2] and record["metadata"] == {"note": ["caf\\ud800"]}
    assert record["nodeid"] == "g.jsonl::" + long + "[a]"  # names are never cut


def test_fields_made_safe_already_are_kept_when_they_are_the_very_objects_given() -> None:
    made = safe_record({"query": "q" * (MAX_QUERY_CHARS + 5), "tags": ["caf\udce9"]})
    assert made == {"query": "q" * MAX_QUERY_CHARS + "... [5 more characters cut]", "tags": ["caf\\xe9"]}
    again = safe_record({**made, "agent": "a", "retrieved": ["b\ud800.py"]}, made_safe=made)
    assert again["query"] is made["query"] and again["tags"] is made["tags"]  # not cut a second time
    assert again["retrieved"] == ["b\\ud800.py"] and again["agent"] == "a"
    equal_not_same = safe_record({"query": "q" * (MAX_QUERY_CHARS + 5)}, made_safe=made)
    assert equal_not_same == {"query": made["query"]}  # another object is checked, cut as usual


def test_the_record_given_is_left_as_it_was_and_its_fields_keep_their_order() -> None:
    given = {"agent": "a", "retrieved": ["caf\udce9.py", "b.py"], "latency_ms": 2.0, "error": "caf\ud800"}
    before = dict(given)
    record = safe_record(given)
    assert given == before and given["retrieved"] == ["caf\udce9.py", "b.py"]  # not rewritten in place
    assert list(record) == ["agent", "retrieved", "latency_ms", "error"]
    assert record == {"agent": "a", "retrieved": ["caf\\xe9.py", "b.py"], "latency_ms": 2.0, "error": "caf\\ud800"}
