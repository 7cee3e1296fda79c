"""The properties a case item adds to JUnit XML (``item.user_properties``): status, metrics, latency,
counts; JSON-native values, the equal pairs shared between items (a long run keeps them all)."""

from __future__ import annotations

import functools
import itertools
import math

from pytest_codesearch.report.model import CaseResult


def junit_properties(result: CaseResult) -> list[tuple[str, object]]:
    """Return the scalar figures CI reads from JUnit XML, as JSON-native values."""
    props: list[tuple[str, object]] = [_shared_pair("codesearch_status", result.status.value)]
    metrics = result.metrics
    if metrics and min(map(math.copysign, _ONES, metrics.values())) > 0.0:  # no -0.0 (nor any negative value)
        props += _metric_properties(tuple(metrics.items()))
    else:
        props += [_metric_property(name, float(value)) for name, value in metrics.items()]
    if result.latency_ms is not None:
        props.append(("latency_ms", round(float(result.latency_ms), 3)))
    if result.index_ms is not None:
        props.append(("index_ms", round(float(result.index_ms), 3)))
    props.append(_shared_pair("retrieved_count", len(result.retrieved)))
    props.append(_shared_pair("invalid_paths", result.invalid_paths))
    if result.undefined_functions:
        props.append(("undefined_functions", result.undefined_functions))
    if result.attempts > 1:
        props.append(("attempts", result.attempts))
    if result.nondeterministic:
        props.append(("nondeterministic", True))
    return props


_ONES = itertools.repeat(1.0)


@functools.lru_cache(maxsize=1 << 12)
def _metric_properties(metrics: tuple[tuple[str, float], ...]) -> tuple[tuple[str, float], ...]:
    """Return the properties of a case's ``metrics`` (name and value pairs), made once per distinct set of
    values: cases answered alike (every miss, every first-rank hit) share them, and a 30-metric case
    costs one look-up (issue 23). The key holds no -0.0, which it would not tell from 0.0."""
    return tuple(_metric_property(name, float(value)) for name, value in metrics)


def _metric_property(name: str, value: float) -> tuple[str, float]:
    """Return the property ``(name, round(value, 6))``.

    Metric values repeat (0.0, 1.0, 0.5, ...), so each pair is made once and shared by the items that
    report it: rounding to digits is slow (it formats the float), and 30-odd new tuples per case kept
    until the end of the run would make the garbage collector run several times as often. -0.0 is
    made afresh, as the cache cannot tell it from 0.0.
    """
    if value == 0.0 and math.copysign(1.0, value) < 0.0:
        return (name, value)
    return _shared_property(name, value)


@functools.lru_cache(maxsize=1 << 14)
def _shared_property(name: str, value: float) -> tuple[str, float]:
    return (name, round(value, 6))


@functools.lru_cache(maxsize=1 << 12, typed=True)
def _shared_pair(name: str, value: object) -> tuple[str, object]:
    """Return ``(name, value)``, one tuple per distinct pair (see ``_metric_property``)."""
    return (name, value)
