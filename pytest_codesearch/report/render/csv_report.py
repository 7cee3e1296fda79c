"""``results.csv``: one row per case, safe to open in a spreadsheet.

Built in bulk, a column at a time, because at 100,000 records the ``csv`` module's per-cell work
was most of the time. The output is exactly what ``csv.writer`` (``lineterminator="\\r\\n"``,
``QUOTE_MINIMAL``) writes for the same rows: ``csv`` quotes a cell only when it holds a comma, a
double quote, CR or LF, so a text column holding none of those anywhere is written as it is, and
any other cell is rendered by ``csv`` itself. Numbers are formatted once per distinct value
(``str(float)``, what ``csv`` writes for a float): scores repeat a great deal (0.0, 1.0, 0.5, ...).
A negative zero, which no scorer produces, is written ``0.0``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter, itemgetter

from pytest_codesearch.report.model import CaseResult, RunReport

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
LEADING_COLUMNS = ("id", "goldset", "agent", "status", "query", "retrieved", "ground_truth")
TRAILING_COLUMNS = ("latency_ms", "elapsed_ms", "index_ms", "indexed", "error")
LIST_SEPARATOR = ";"
_SPECIAL = (",", '"', "\r", "\n")
"""The characters that make ``csv.writer`` quote a cell (the delimiter, the quote, the line end's)."""


def csv_columns(report: RunReport) -> list[str]:
    """Return the header: case fields, one column per metric, then timings and error."""
    return [*LEADING_COLUMNS, *report.metric_names(), *TRAILING_COLUMNS]


def neutralize(text: str) -> str:
    """Prefix ``'`` to text a spreadsheet would run as a formula (OWASP CSV injection)."""
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def render_csv(report: RunReport) -> str:
    """Return ``results.csv``; numbers stay numeric, text cells are neutralised."""
    header = io.StringIO()
    csv.writer(header, lineterminator="\r\n").writerow(csv_columns(report))
    if not report.cases:
        return header.getvalue()
    lines = map(",".join, zip(*_columns(report.cases, report.metric_names())))
    return "\r\n".join([header.getvalue()[:-2], *lines, ""])


def _columns(cases: Sequence[CaseResult], metrics: Sequence[str]) -> list[Sequence[str]]:
    """Return the written cells of every column in header order; the metrics come as one column.

    A metric a case has no score for is blank. Without metrics the metric column is left out. ``cases``
    is not empty.
    """
    number = _Numbers().__getitem__
    ids, goldsets, agents, statuses, queries, retrieved, truths, scored, latencies, elapsed, indexing, indexed, errors = (
        zip(*map(_FIELDS, cases))
    )  # each case read once: at 10,000 records, a pass over them for each column was a third of the file's time
    text: list[list[str]] = [
        list(ids),
        list(goldsets),
        list(agents),
        list(statuses),  # a str: join writes its value, "ok"
        list(queries),
        list(map(_list_cell, retrieved)),
        list(map(_list_cell, truths)),
    ]
    scores = [list(map(_Joined(number).__getitem__, _scores(scored, metrics)))] if metrics else []
    return [
        *(_cells(_neutral(column)) for column in text),
        *scores,
        list(map(number, latencies)),
        list(map(number, elapsed)),
        list(map(number, indexing)),
        ["true" if flag else "false" for flag in indexed],
        _cells(_neutral([error or "" for error in errors])),
    ]


_FIELDS = attrgetter(
    "id", "goldset", "agent", "status", "query", "retrieved", "ground_truth", "metrics",
    "latency_ms", "elapsed_ms", "index_ms", "indexed", "error",
)  # fmt: skip
"""The fields of a case the file shows, in ``_columns`` order."""


def _list_cell(items: Sequence[str]) -> str:
    """Return a path list as one cell, each item neutralised: a spreadsheet that splits cells at ``;``
    (the list separator in many locales) must not find a formula in any of them."""
    return LIST_SEPARATOR.join(("'" + item) if item.startswith(_FORMULA_STARTS) else item for item in items)


def _scores(scores: Sequence[Mapping[str, float]], metrics: Sequence[str]) -> list[tuple[float | None, ...]]:
    """Return the scores of ``metrics`` in each of ``scores`` (a case's metrics; None where it has none)."""
    every = itemgetter(*metrics)
    try:
        rows = list(map(every, scores))
    except KeyError:  # some case lacks a metric: it does not apply, or a crashed case has none
        return [tuple(map(found.get, metrics)) for found in scores]
    return [(row,) for row in rows] if len(metrics) == 1 else rows  # itemgetter of one name: the value


def _neutral(column: list[str]) -> list[str]:
    """Return ``column`` with every formula-like cell neutralised (see ``neutralize``)."""
    return [("'" + text) if text.startswith(_FORMULA_STARTS) else text for text in column]


def _cells(column: list[str]) -> list[str]:
    """Return text cells as ``csv`` writes them: as they are unless one holds a comma, quote, CR or LF."""
    joined = "".join(column)
    if not any(special in joined for special in _SPECIAL):
        return column
    return list(map(_Cells().__getitem__, column))


def _quoted(text: str) -> str:
    """Return one cell as ``csv.writer`` writes it: a row of the cell and an empty one, less ``,\\r\\n``.

    The line end must be the file's: ``csv`` quotes CR and LF only when they are in it.
    """
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerow([text, ""])
    return out.getvalue()[:-3]


class _Cells(dict[str, str]):
    """Text cells as ``csv`` writes them, each distinct text rendered once."""

    def __missing__(self, text: str) -> str:
        cell = self[text] = _quoted(text) if any(special in text for special in _SPECIAL) else text
        return cell


class _Joined(dict[tuple[float | None, ...], str]):
    """A row of scores as its cells joined by commas, each distinct row joined once (rows repeat)."""

    def __init__(self, number: Callable[[float | None], str]) -> None:
        super().__init__()
        self.number = number

    def __missing__(self, row: tuple[float | None, ...]) -> str:
        cells = self[row] = ",".join(map(self.number, row))
        return cells


class _Numbers(dict[float | None, str]):
    """``str(number)`` (what ``csv`` writes for a float) computed once per distinct value; None is blank.

    Seeded with 0.0 so that -0.0 (equal to it as a key) is always written ``0.0``.
    """

    def __init__(self) -> None:
        super().__init__({None: "", 0.0: "0.0"})

    def __missing__(self, value: float | None) -> str:
        text = self[value] = str(value)
        return text
