"""What makes two runs parts of one run: the options that change results, the selection, the plugin version.

The option table marks the options that change results (``identity=True``); ``RunInfo`` records each
of them, plus pytest's ``-k`` and ``-m``. ``--codesearch-merge`` and ``--codesearch-resume`` compare
exactly this set and refuse, in one line naming the option and both values, runs that differ::

    --codesearch-ks: the interrupted run used 1,5,10, this one 1,3
"""

from __future__ import annotations

from pytest_codesearch.report.model import RunInfo
from pytest_codesearch.settings.options import IDENTITY, option_label

VERSION_LABEL = "pytest-codesearch version"
SHARD_FIELD = "shard"
SELECTION = (("keyword", "-k"), ("markers", "-m"))
"""``RunInfo`` fields of pytest's own selection, with their flags."""


def identity(run: RunInfo) -> dict[str, str]:
    """Return option label -> the value ``run`` used, shown as a user types it, for every part of its identity."""
    shown = {VERSION_LABEL: run.versions.get("pytest-codesearch", "unknown")}
    for option in IDENTITY:
        value = sorted(run.agents) if option.field == "agents" else getattr(run, option.field)
        shown[option_label(option.field)] = show(value)
    for field, flag in SELECTION:
        shown[flag] = show(getattr(run, field))
    return shown


def show(value: object) -> str:
    """Return a recorded value as a user would type it: lists joined by commas, ``none`` for null."""
    if value is None or value == "" or value == []:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ",".join(map(str, value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def first_difference(before: RunInfo, now: RunInfo, *, ignore: tuple[str, ...] = ()) -> tuple[str, str, str] | None:
    """Return (label, value before, value now) of the first identity part that differs, or None.

    ``ignore`` holds labels left out of the comparison (a merge of shards leaves out the shard).
    """
    a, b = identity(before), identity(now)
    for label, value in a.items():
        if label not in ignore and b.get(label) != value:
            return label, value, b.get(label, "none")
    return None


def shard_count(run: RunInfo) -> int | None:
    """Return N of the run's ``I/N`` shard, None when it was no shard."""
    return None if run.shard is None else int(run.shard.partition("/")[2])
