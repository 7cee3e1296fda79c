"""The ``orcaloca`` profile: OrcaLoca's File Match and Function Match (``fishmingyu/OrcaLoca``, ICML 2025).

OrcaLoca scores a submission's localization from the patch it submitted (``artifact/lite_results_paper.csv``:
``% File``, ``% Function`` over all 300 SWE-bench Lite instances): a case matches when the gold files (the
gold functions) are a subset of those the predicted patch edits. With patches as predictions
(``--codesearch-predictions`` of a SWE-bench predictions file) the answer is what the patch edits, derived
as gold truth is, both named by LocAgent's convention (``goldset/conventions.py``: a constructor and a
class-body change name the class), with which SWE-Fixer's published counts come out exactly (208 and 160 of
300). OrcaLoca's repository does not give the function rule; ours:

- ``match`` = 1 when R > 0 and every ground-truth file is in the answer;
- ``function_match`` = 1 when ``match`` = 1 and every ground-truth function is in the answer, a constructor
  counting as its class (``Class.__init__`` = ``Class``), as everywhere at function level. A case whose
  truth names no function matches at function level when its files match.

Every case carries both (an unanswered or failed case scores 0).
"""

from __future__ import annotations

from pytest_codesearch.scoring.levels import constructor_as_class
from pytest_codesearch.scoring.profiles.base import Profile, ProfileInput


def score(given: ProfileInput) -> dict[str, float]:
    """Return ``match`` and ``function_match`` of one answer (see the module docstring)."""
    answered = set(given.files)
    match = bool(given.truth_files) and given.truth_files <= answered
    functions = {constructor_as_class(e) for e in given.functions}
    function_match = match and {constructor_as_class(e) for e in given.truth_functions} <= functions
    return {"match": float(match), "function_match": float(function_match)}


PROFILE = Profile(
    name="orcaloca",
    summary="OrcaLoca's File Match and Function Match: the gold files / functions are a subset of the answer's",
    source="fishmingyu/OrcaLoca artifact/lite_results_paper.csv (% File, % Function)",
    truth="locagent",
    always=("orcaloca",),
    score=score,
)
