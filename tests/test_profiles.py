"""Scoring profiles: each paper's rules on small cases whose figures are computed by hand."""

from __future__ import annotations

import ast

import pytest

from pytest_codesearch.goldset import conventions
from pytest_codesearch.goldset.conventions import apply_convention, changed_class_bodies
from pytest_codesearch.goldset.entities import changed_entities
from pytest_codesearch.goldset.patch import Insertion
from pytest_codesearch.outline.python import parse_module
from pytest_codesearch.scoring import metric_names
from pytest_codesearch.scoring.profiles import PROFILES, ProfileInput, get_profile
from pytest_codesearch.scoring.profiles.cosil import score as cosil
from pytest_codesearch.scoring.profiles.orcaloca import score as orcaloca
from pytest_codesearch.settings.options import PROFILE_NAMES
from rst_repo import RST


def _case(
    files: list[str], functions: list[str], truth: frozenset[str], truth_functions: list[str], ks: tuple[int, ...]
) -> ProfileInput:
    """Return a profile input whose files were given already clean."""
    return ProfileInput(files, files, functions, truth, truth_functions, ks)


def test_cosil_compares_files_as_given_and_orcaloca_as_cleaned() -> None:
    given = ProfileInput(["a.py"], ["./a.py"], ["a.py:f"], frozenset({"a.py"}), ["a.py:f"], (1,))
    assert (cosil(given)["top@1"], cosil(given)["function_top@1"]) == (0.0, 1.0)  # FLEvalNew: './a.py' != 'a.py'
    assert orcaloca(given)["match"] == 1.0


def test_cosil_keeps_five_files_and_matches_functions_by_bare_name() -> None:
    answered = ["b.py", "a.py", "c.py", "d.py", "e.py", "z.py"]
    given = ProfileInput(
        files=answered,
        given_files=answered,
        functions=["a.py:A.f", "q.py:x", "b.py:h", "r.py:y", "s.py:z", "a.py:A.g", "t.py:A.g"],  # t.py: 6th file, cut
        truth_files=frozenset({"a.py", "z.py"}),
        truth_functions=["elsewhere.py:A.g"],  # the name matches, whatever the file
        ks=(1, 3, 5),
    )
    assert cosil(given) == {
        "top@1": 0.0, "function_top@1": 0.0, "top@3": 1.0, "function_top@3": 0.0, "top@5": 1.0, "function_top@5": 0.0,
        "map": 0.25,  # a.py at rank 2: (1/2) / R=2; z.py at rank 6 is cut
        "mrr": 0.5,
        "function_map": 1 / 6,  # names A.f, x, h, y, z, A.g: A.g at rank 6, R = 1
        "function_mrr": 1 / 6,
    }  # fmt: skip


def test_cosil_scores_zero_without_files_and_without_function_truth() -> None:
    no_files = _case([], ["a.py:f"], frozenset({"a.py"}), ["a.py:f"], (1,))
    assert set(cosil(no_files).values()) == {0.0}
    no_truth = cosil(_case(["a.py"], ["a.py:f"], frozenset({"a.py"}), [], (1,)))
    assert (no_truth["top@1"], no_truth["function_top@1"], no_truth["function_map"]) == (1.0, 0.0, 0.0)


def test_cosil_counts_a_repeated_relevant_name_again_as_its_evaluator_does() -> None:
    scores = cosil(_case(["a.py", "b.py"], ["a.py:f", "b.py:f"], frozenset({"a.py"}), ["a.py:f"], (1,)))
    assert scores["function_map"] == 2.0  # (1/1 + 2/2) / 1: FLEvalNew.average_precision on [f, f]


def test_orcaloca_matches_when_the_truth_is_a_subset_of_the_answer() -> None:
    truth = frozenset({"a.py", "b.py"})
    full = _case(["c.py", "b.py", "a.py"], ["a.py:A", "b.py:g"], truth, ["a.py:A.__init__", "b.py:g"], (1,))
    assert orcaloca(full) == {"match": 1.0, "function_match": 1.0}  # A.__init__ is A
    missing_function = _case(["a.py", "b.py"], ["b.py:g"], truth, ["a.py:A.f", "b.py:g"], (1,))
    assert orcaloca(missing_function) == {"match": 1.0, "function_match": 0.0}
    missing_file = _case(["a.py"], ["a.py:A.f", "b.py:g"], truth, ["a.py:A.f", "b.py:g"], (1,))
    assert orcaloca(missing_file) == {"match": 0.0, "function_match": 0.0}
    no_function_truth = _case(["a.py", "b.py"], [], truth, [], (1,))
    assert orcaloca(no_function_truth) == {"match": 1.0, "function_match": 1.0}
    assert orcaloca(_case([], [], frozenset(), [], (1,))) == {"match": 0.0, "function_match": 0.0}


def test_the_locagent_convention_names_constructors_and_class_bodies_by_their_class() -> None:
    changed = [2, 5, 12]  # header = 1 (class body), self.x = 1 (__init__), return 2 (helper)
    native = changed_entities("rst.py", RST, changed)
    assert native.functions == ("rst.py:RST.__init__", "rst.py:helper")
    named = apply_convention("locagent", "rst.py", RST, changed, (), native)
    assert named.functions == ("rst.py:RST", "rst.py:helper")
    assert named.modules == native.modules == ("rst.py:RST", "rst.py:helper")  # from the functions: the same here
    assert apply_convention("native", "rst.py", RST, changed, (), native) == native


def test_a_class_body_change_is_a_line_outside_its_methods() -> None:
    assert changed_class_bodies(RST, [8], ()) == []  # return lines, in write
    assert changed_class_bodies(RST, [1], ()) == ["RST"]  # the class line
    assert changed_class_bodies(RST, [], [Insertion(before=3, indent=4)]) == ["RST"]  # between attribute and method
    assert changed_class_bodies(RST, [], [Insertion(before=5, indent=8)]) == []  # inside __init__
    assert changed_class_bodies(RST, [3, 6], ()) == []  # blank lines between methods do not count
    assert changed_class_bodies(RST, [], [Insertion(before=9, indent=4)]) == ["RST"]  # a method added at the end
    assert changed_class_bodies(RST, [], [Insertion(before=9, indent=8)]) == []  # write extended
    documented = 'class A:\n    """Doc."""\n    # note\n    x = 1\n'
    assert changed_class_bodies(documented, [2, 3], ()) == []  # a docstring, a comment
    assert changed_class_bodies(documented, [4], ()) == ["A"]
    with pytest.raises(ValueError, match="unknown truth convention 'swe'; known: native, locagent"):
        apply_convention("swe", "rst.py", RST, [2], (), changed_entities("rst.py", RST, [2]))


def test_class_docstrings_are_looked_for_only_when_a_class_body_line_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The file is parsed again for its class docstrings only when a changed line lies in a class body."""
    parsed: list[str | bytes] = []

    def parse(source: str | bytes) -> ast.Module | None:
        parsed.append(source)
        return parse_module(source)

    monkeypatch.setattr(conventions, "parse_module", parse)
    conventions._class_docstring_lines.cache_clear()
    source = RST.replace("    header = 1", '    """Doc."""')
    assert changed_class_bodies(source, [5, 8, 12], [Insertion(before=9, indent=4)]) == ["RST"]  # methods, helper
    assert parsed == []  # the inserted method needs no docstring
    assert changed_class_bodies(source, [2], ()) == []  # the docstring alone
    assert changed_class_bodies(source, [1, 2], ()) == ["RST"]  # and the class line
    assert parsed == [source]  # once: the docstrings of a source are kept


def test_each_profile_adds_its_names_to_the_metrics_every_case_carries() -> None:
    native = metric_names((1, 3))
    assert metric_names((1, 3), profile="native") == metric_names((1, 3), profile="locagent") == native
    assert metric_names((1, 3), profile="cosil")[len(native):] == [
        "top@1", "function_top@1", "top@3", "function_top@3", "function_map", "function_mrr"
    ]  # fmt: skip
    assert metric_names((1,), profile="orcaloca")[-2:] == ["match", "function_match"]
    assert list(PROFILES) == list(PROFILE_NAMES) == ["native", "locagent", "cosil", "orcaloca"]
    with pytest.raises(ValueError, match="unknown scoring profile 'swe'; known: native, locagent, cosil, orcaloca"):
        get_profile("swe")
