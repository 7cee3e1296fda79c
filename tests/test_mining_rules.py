"""The transparent mining rules: exclude patterns, message rules, bots, categories, complexity, the config."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from pydantic import ValidationError

from pytest_codesearch.mining.classify import (
    MESSAGE_RULES,
    RULE_NAMES,
    RuleSet,
    bot_matcher,
    classify_kind,
    complexity,
    same_ignoring_whitespace,
)
from pytest_codesearch.mining.filters import DEFAULT_EXCLUDE, FilterConfig
from pytest_codesearch.pathglob import PathFilter

DEFAULTS = PathFilter(DEFAULT_EXCLUDE)


@pytest.mark.parametrize(
    ("path", "excluded"),
    [
        ("README.md", True), ("docs/api/index.py", True), ("pkg/docs/notes.py", True), ("src/docs.py", False),
        ("tests/test_app.py", True), ("pkg/tests/helpers.py", True), ("src/test_utils.py", True),
        ("src/app_test.go", True), ("web/app.spec.ts", True), ("x/conftest.py", True),
        ("LICENSE", True), ("CHANGELOG.rst", True), (".github/workflows/ci.py", True), (".gitignore", True),
        ("pyproject.toml", True), ("package-lock.json", True), ("Cargo.lock", True), ("go.sum", True),
        ("vendor/lib.c", True), ("src/third_party/z.c", True), ("static/app.min.js", True), ("api_pb2.py", True),
        ("logo.PNG", True), ("src/app.py", False), ("src/build.py", False), ("build/out.py", True),
        ("lib/contest.py", False), ("Makefile", False),
        ("flask/testsuite/helpers.py", True), ("scripts/testproj/test.py", True), ("scripts/testproj/app.py", True),
        ("app/tests.py", True), ("go/testdata/input.go", True), ("src/testing_utils.py", False),
        ("src/attest.py", False), ("src/latest.py", False),
    ],
)  # fmt: skip
def test_default_exclude_patterns(path: str, excluded: bool) -> None:
    assert DEFAULTS.excluded(path) is excluded


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("*.md", ["a.md", "x/y/B.MD"], ["a.mdx", "md"]),
        ("tests", ["tests", "tests/a.py", "a/tests/b.py"], ["tests.py", "mytests/a.py"]),
        ("build/", ["build/a.py", "x/build/a.py"], ["build", "x/build"]),
        ("docs/api", ["docs/api", "docs/api/x.md"], ["x/docs/api/y.md", "docs/apis"]),
        ("/docs/api/", ["docs/api/x.md"], ["docs/api"]),
        ("src/**/gen_*.py", ["src/gen_a.py", "src/x/y/gen_b.py"], ["lib/gen_a.py", "src/x/gen_b.pyc"]),
        ("src/gen/**", ["src/gen/a.py", "src/gen/x/b.py"], ["src/generic.py"]),
        ("a/*/b.py", ["a/x/b.py"], ["a/x/y/b.py", "a/b.py"]),
        ("file?.py", ["file1.py"], ["file10.py", "file.py"]),
        ("[!a]x.py", ["bx.py"], ["ax.py"]),
        ("*_test.*", ["x_test.go", "d/y_test.py"], ["x_test", "test.go"]),
        ("LICENSE*", ["LICENSE", "license.txt", "a/LICENSE-MIT"], ["MYLICENSE"]),
    ],
)
def test_pattern_semantics(pattern: str, matches: list[str], misses: list[str]) -> None:
    only = PathFilter([pattern])
    assert [path for path in matches + misses if only.excluded(path)] == matches


def test_no_patterns_exclude_nothing() -> None:
    assert not PathFilter([]).excluded("README.md")


@pytest.mark.parametrize(
    ("subject", "rule"),
    [
        ("Merge branch 'main' into topic", "merge"),
        ("Merge pull request #12 from a/b", "merge"),
        ('Revert "Add the cache"', "revert"),
        ("revert: drop the cache", "revert"),
        ("Bump version to 1.2.0", "version-bump"),
        ("Bump requests from 2.0 to 2.1", "version-bump"),
        ("chore(deps): bump foo", "version-bump"),
        ("chore: update numpy to 1.26.4", "version-bump"),
        ("1.4.0", "version-bump"),
        ("Release 2.0", "release"),
        ("chore(release): publish", "release"),
        ("Prepare for the next release", "release"),
        ("Fix typo in the docs", "typo"),
        ("Correct spelling of receive", "typo"),
        ("style: sort imports", "style"),
        ("Run black", "style"),
        ("Fix lint errors", "style"),
        ("Reformat the parser", "style"),
        ("Fix the bump allocator overflow", None),
        ("Release the GIL while hashing", None),
        ("Format dates as ISO 8601 in reports", None),
        ("Add a blacklist of hosts", None),
        ("Merge overlapping ranges in the index", None),
        ("Revisit the cache policy", None),
    ],
)
def test_message_rules(subject: str, rule: str | None) -> None:
    assert RuleSet(RULE_NAMES).first_match(subject, subject) == rule


def test_revert_rule_reads_the_body_and_rules_can_be_switched_off() -> None:
    message = "Restore the old cache\n\nThis reverts commit 0123456789abcdef.\n"
    assert RuleSet(["revert"]).first_match("Restore the old cache", message) == "revert"
    assert RuleSet(["typo"]).first_match("Restore the old cache", message) is None
    assert RuleSet([]).first_match("Merge branch 'x'", "Merge branch 'x'") is None
    assert [rule.name for rule in MESSAGE_RULES] == list(RULE_NAMES)
    assert all(rule.description for rule in MESSAGE_RULES)


def test_bots_are_matched_by_case_insensitive_substrings() -> None:
    is_bot = bot_matcher(["[bot]", "Renovate"])
    assert is_bot("dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>")
    assert is_bot("RENOVATE <bot@renovateapp.com>")
    assert not is_bot("Ada Lovelace <ada@example.com>")
    assert not bot_matcher([])("dependabot[bot] <x>")


@pytest.mark.parametrize(
    ("subject", "kind"),
    [
        ("feat(ui): add a dark theme", ("feature", "conventional-feat")),
        ("fix!: reject empty names", ("fix", "conventional-fix")),
        ("perf: cache the parsed tree", ("perf", "conventional-perf")),
        ("Fix the login crash", ("fix", "keyword-fix")),
        ("Speed up the tokenizer", ("perf", "keyword-perf")),
        ("Move the helpers into a module", ("refactor", "keyword-refactor")),
        ("Support YAML configs", ("feature", "keyword-feature")),
        ("Cache the parsed templates", ("change", "default")),
    ],
)
def test_kind_rules(subject: str, kind: tuple[str, str]) -> None:
    assert classify_kind(subject) == kind


def test_complexity_bands() -> None:
    assert [complexity(n) for n in (1, 2, 20, 21)] == ["low", "medium", "medium", "high"]


def test_whitespace_only_check() -> None:
    assert same_ignoring_whitespace(b"def f():\n  return 1\n", b"def f():\n\treturn  1\n\n")
    assert not same_ignoring_whitespace(b"return 1", b"return 2")


def test_config_defaults_are_documented_values() -> None:
    config = FilterConfig()
    assert (config.min_files, config.max_files, config.include_merges, config.keep_leaky) == (1, 50, False, False)
    assert (config.since, config.until, config.max_commits, config.min_query_words) == (None, None, None, 3)
    assert config.drop_rules == list(RULE_NAMES)
    assert config.exclude == list(DEFAULT_EXCLUDE)
    assert FilterConfig(also_exclude=["gen/"]).exclude_patterns == [*DEFAULT_EXCLUDE, "gen/"]


def test_config_reads_yaml_dates_and_naive_times_as_utc() -> None:
    config = FilterConfig.model_validate({"since": date(2024, 1, 31), "until": "2024-02-01"})
    assert config.since == datetime(2024, 1, 31, tzinfo=timezone.utc)
    assert config.until == datetime(2024, 2, 1, tzinfo=timezone.utc)
    assert FilterConfig(since=datetime(2024, 1, 1, 12)).since == datetime(2024, 1, 1, 12, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"max_file": 3}, "max_file\n  Extra inputs are not permitted"),
        ({"drop_rules": ["revert", "wip"]}, "unknown rule 'wip' (known rules: merge, revert, version-bump"),
        ({"min_files": 5, "max_files": 2}, "max_files (2) must be >= min_files (5)"),
        ({"since": "2024-02-01", "until": "2024-01-01"}, "since (2024-02-01T00:00:00+00:00) must not be after until"),
        ({"min_files": "2"}, "Input should be a valid integer"),
        ({"include_merges": "yes"}, "Input should be a valid boolean"),
        ({"exclude": ["*.md", " "]}, "entries must not be empty"),
        ({"max_commits": 0}, "greater than or equal to 1"),
    ],
)
def test_config_errors_name_the_field(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=None) as caught:
        FilterConfig.model_validate(data)
    assert message in str(caught.value)


def test_docs_name_every_rule_reason_and_field() -> None:
    from pathlib import Path

    from pytest_codesearch.mining.miner import DROP_REASONS

    docs = (Path(__file__).parent.parent / "docs" / "mining.md").read_text(encoding="utf-8")
    names = [*RULE_NAMES, *DROP_REASONS, *FilterConfig.model_fields]
    assert [name for name in names if f"`{name}`" not in docs] == []


def test_a_rules_words_are_in_every_message_it_matches_once_lower_cased() -> None:
    import re
    import sys

    for rule in (rule for rule in MESSAGE_RULES if rule.words):
        letters = "".join(sorted(set("".join(rule.words))))
        folded = re.compile(f"[{letters}]", re.IGNORECASE)
        odd = [chr(code) for code in range(sys.maxunicode + 1) if folded.fullmatch(chr(code))]
        assert all(char.lower() in letters for char in odd), (rule.name, odd)  # no special case folding
    messages = ["Fix x\n\nThis reverts commit 0123456789.", "REVERT \"x\"", "ReApply the fix", "Fix x\n\nTHIS REVERTS "
                "COMMIT abcdef0123", "Fix x\n\nthis reverted commit 0123456", "reverting is hard", "Reapplying", ""]  # fmt: skip
    revert = next(rule for rule in MESSAGE_RULES if rule.name == "revert")
    for message in messages:
        expected = "revert" if revert.matches(message.split("\n")[0], message) else None
        assert RuleSet(["revert"]).first_match(message.split("\n")[0], message) == expected, message
    assert [RuleSet(["revert"]).first_match("x", m) for m in messages[:4]] == ["revert"] * 4
