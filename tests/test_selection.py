"""Selecting cases: the first N after the shuffle, or a seeded sample across strata."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_codesearch.session.selection import first_cases, stratified_cases


def test_first_cases_keeps_every_entry_of_the_first_n() -> None:
    cases = ["a", "a", "b", "b", "c", "a"]
    assert first_cases(cases, 2) == [0, 1, 2, 3, 5]
    assert first_cases(cases, 10) == [0, 1, 2, 3, 4, 5]


def test_stratified_takes_from_each_stratum_in_turn() -> None:
    cases = [f"big{i}" for i in range(10)] + ["small0", "small1"] + ["mid0", "mid1", "mid2"]
    strata = ["big"] * 10 + ["small"] * 2 + ["mid"] * 3
    for seed in range(20):
        kept = [cases[p] for p in stratified_cases(cases, strata, 6, seed)]
        assert len(kept) == 6
        assert sum(k.startswith("small") for k in kept) == 2
        assert sum(k.startswith("mid") for k in kept) == 2
        assert sum(k.startswith("big") for k in kept) == 2
        assert stratified_cases(cases, strata, 6, seed) == stratified_cases(list(cases), list(strata), 6, seed)
    assert stratified_cases(cases, strata, 6, 1) != stratified_cases(cases, strata, 6, 2)


def test_stratified_keeps_all_entries_of_a_case_and_stops_at_the_supply() -> None:
    cases = ["a", "a", "b", "b"]
    strata = ["x", "x", "y", "y"]
    assert stratified_cases(cases, strata, 1, 0) in ([0, 1], [2, 3])
    assert stratified_cases(cases, strata, 5, 0) == [0, 1, 2, 3]


def test_stratified_needs_a_limit(tmp_path: Path) -> None:
    from pytest_codesearch.settings.model import Given, Origin, SettingsError, build_settings

    def layer(**values: object) -> dict[str, Given]:
        return {key: Given(value, Origin("cli", tmp_path)) for key, value in values.items()}

    with pytest.raises(SettingsError, match=r"^--codesearch-sample: stratified sampling needs --codesearch-limit N"):
        build_settings([layer(sample="stratified")], tmp_path, tmp_path)
    with pytest.raises(SettingsError, match=r"^cli: expected one of first, stratified, got 'random'"):
        build_settings([layer(sample="random", limit="3")], tmp_path, tmp_path)
    assert build_settings([layer(sample="stratified", limit="3")], tmp_path, tmp_path).limit == 3
