"""Predictions that are patches (SWE-bench prediction files) or Agentless/CoSIL localization outputs.

A predicted patch answers with what it edits, derived against the case's base tree by the code that
derives gold truth from gold patches (``goldset/patch.py``, ``goldset/truth.py``): the files it modifies or
deletes, the functions and top-level definitions holding a changed line. That answer is an unordered set.
A patch that is empty, does not parse, or does not fit the base (a file it changes is missing, a hunk fits
nowhere) answers nothing, and says why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pytest_codesearch.goldset.patch import PatchError, parse_patch
from pytest_codesearch.goldset.truth import truth_from_patch

LOC_KINDS = ("function:", "class:")
"""The entries of ``found_related_locs`` that name an entity (CoSIL's ``extract_predicted_methods``)."""


@dataclass(frozen=True)
class PatchAnswer:
    """What a predicted patch edits at the base; ``problem`` says why it answers nothing."""

    files: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    problem: str | None = None


def answer_from_patch(text: str, read: Callable[[str], bytes | None], convention: str = "native") -> PatchAnswer:
    """Return the files, functions and modules ``text`` (a unified diff) edits in the base ``read`` gives,
    entities named by the truth ``convention`` (the scoring profile's, as for the gold patch)."""
    if not text.strip():
        return PatchAnswer(problem="the predicted patch is empty")
    try:
        truth = truth_from_patch(parse_patch(text), read, convention)
    except PatchError as exc:
        return PatchAnswer(problem=f"the predicted patch does not parse: {exc}")
    if truth.missing:
        return PatchAnswer(problem=f"the predicted patch does not apply: the base has no {truth.missing[0]}")
    if truth.misfits:
        return PatchAnswer(problem=f"the predicted patch does not apply: {truth.misfits[0]}")
    if not truth.files:
        return PatchAnswer(problem="the predicted patch only adds files")
    return PatchAnswer(truth.files, truth.functions, truth.modules)


def related_locs(value: object, files: Sequence[str]) -> list[str] | None:
    """Return ``path:Name`` for each ``function: Name`` / ``class: Name`` of Agentless's ``found_related_locs``.

    ``value`` maps each file to its location strings (CoSIL), or lists them per file in the order of
    ``files`` (Agentless); each string holds one entry a line. None when ``value`` has neither shape.
    """
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, list):
        pairs = list(zip(files, value))
    else:
        return None
    entities = []
    for path, locs in pairs:
        if not isinstance(path, str) or not isinstance(locs, list) or not all(isinstance(s, str) for s in locs):
            return None
        for line in (line for loc in locs for line in loc.split("\n")):
            if any(kind in line for kind in LOC_KINDS):
                parts = line.split(": ")
                if len(parts) > 1 and parts[1].strip():
                    entities.append(f"{path}:{parts[1].strip()}")
    return entities
