"""Commit messages to queries: prefixes, references, trailers and URLs go; the words that describe the change stay."""

from __future__ import annotations

import pytest

from pytest_codesearch.mining.query import MAX_QUERY_CHARS, decode_message, message_to_query


@pytest.mark.parametrize(
    ("message", "query"),
    [
        ("feat(auth): add OAuth login flow (#123)\n\nSigned-off-by: A <a@b.c>\n", "add OAuth login flow"),
        ("fix!: crash when config is empty\n\nFixes #12, closes #13\n", "crash when config is empty"),
        ("ABC-123: Handle UTF-8 and ISO-8601 dates in reports", "Handle UTF-8 and ISO-8601 dates in reports"),
        ("[WIP] [core] fix: retry requests on timeout gh-77", "retry requests on timeout"),
        ("Parse owner/repo#5 references in commit bodies", "Parse references in commit bodies"),
        ("Speed up parsing, see https://example.com/bench?x=1 for numbers", "Speed up parsing, see for numbers"),
        ("Close the socket on errors (resolves PROJ-7 and PROJ-8) [skip ci]", "Close the socket on errors"),
        (":sparkles: Support   tabs\tin   paths", "Support tabs in paths"),
        ("Fix: handle empty forms in the parser", "handle empty forms in the parser"),
        ("Feat(scope): add the YAML reader module", "add the YAML reader module"),
        ("FIX(cli)!: reject unknown flags early", "reject unknown flags early"),
        (":bug: Fix: crash when the cache is empty", "crash when the cache is empty"),
        ("\U0001f41b Fix(cache): crash when the cache is empty", "crash when the cache is empty"),
        ("\u2728 add the YAML reader module", "\u2728 add the YAML reader module"),  # no prefix: the emoji stays
        ("Handle empty input in the parser.", "Handle empty input in the parser"),
        ("#123", ""),
        ("", ""),
    ],
)
def test_subject_is_cleaned(message: str, query: str) -> None:
    assert message_to_query(message) == query


def test_short_subject_gets_the_first_meaningful_body_sentence() -> None:
    message = (
        "Fix login\n\n"
        "Signed-off-by: A <a@b.c>\n\n"
        "See #4.\n\n"
        "The session cookie was written before the user id was known. It is now set last.\n\n"
        "Co-authored-by: B <b@c.d>\n"
    )
    assert message_to_query(message) == "Fix login: The session cookie was written before the user id was known"


def test_empty_subject_uses_the_body_sentence_alone() -> None:
    assert message_to_query("#12\n\nThe cache kept stale entries after a reload.\n") == (
        "The cache kept stale entries after a reload"
    )


def test_code_blocks_and_quotes_are_not_taken_as_sentences() -> None:
    message = "Fix it\n\n    raise ValueError(bad value here)\n\n> quoted text from a reviewer\n\nThe parser gave up."
    assert message_to_query(message) == "Fix it: The parser gave up"


def test_revert_and_cherry_pick_bookkeeping_lines_are_dropped() -> None:
    message = "Restore the cache\n\n(cherry picked from commit 0123456789abcdef)\nThis reverts commit abcdef1234567.\n"
    assert message_to_query(message, min_words=3) == "Restore the cache"


def test_long_queries_are_cut_at_a_word() -> None:
    query = message_to_query("word " * 200)
    assert len(query) <= MAX_QUERY_CHARS and query.endswith("word") and not query.endswith(" ")


def test_messages_are_decoded_by_their_header_then_utf8_then_with_replacement() -> None:
    assert decode_message("café".encode("latin-1"), "ISO-8859-1") == ("café", True)
    assert decode_message("café".encode(), None) == ("café", True)
    assert decode_message("café".encode(), "no-such-codec") == ("café", True)
    assert decode_message(b"caf\xe9", None) == ("caf\ufffd", False)
    assert decode_message(b"caf\xe9", "utf-8") == ("caf\ufffd", False)


def _every_substitution(text: str) -> str:
    """``clean_text`` as it was before it skipped patterns that cannot match: every substitution, always."""
    from pytest_codesearch.mining import query

    for pattern, replacement, count in (
        (query._CONVENTIONAL, "", 1), (query._BRACKET_TAG, " ", 0), (query._LEADING_TAGS, "", 0),
        (query._CONVENTIONAL, "", 1), (query._GITMOJI, " ", 0), (query._URL, " ", 0),
        (query._CLOSING_REF, " ", 0), (query._BARE_REF, " ", 0),
    ):  # fmt: skip
        text = pattern.sub(replacement, text, count=count)
    previous = None
    while previous != text:
        previous, text = text, query._EMPTY_BRACKETS.sub(" ", text)
    text = query._SPACES.sub(" ", text)
    return query._SPACE_BEFORE_PUNCTUATION.sub(r"\1", text).strip(query._EDGE_PUNCTUATION)


def test_skipping_patterns_that_cannot_match_changes_no_query() -> None:
    import random

    from pytest_codesearch.mining.query import clean_text, query_from_parts, split_message

    atoms = ["fix", "feat(ui)!", ":", ": ", "[core]", "[skip ci]", "[", "]", "#12", "gh-3", "!7", "PROJ-12", "UTF-8",
             "http://a.b/c", "www.x.org", "WWW.Y", "(", ")", "( , )", "[ ; ]", ".", ",", " ", "\t", "\n", "pr 12",
             "issue 4", "closes #1", "fixes #2 and #3", "٣", ":tada:", "owner/repo#9", "word", "See #4."]  # fmt: skip
    rng = random.Random(7)
    for _ in range(5000):
        text = "".join(rng.choice(atoms) for _ in range(rng.randint(0, 12)))
        assert clean_text(text) == _every_substitution(text), text
        assert query_from_parts(*split_message(text)) == message_to_query(text)


def test_skipping_lines_without_a_colon_or_commit_drops_the_same_lines() -> None:
    import random

    from pytest_codesearch.mining import query
    from pytest_codesearch.mining.query import split_message

    atoms = ["Signed-off-by", "Reviewed-By", " ", ":", ": ", "THIS REVERTS COMMIT", "(Cherry Picked From Commit",
             "this reverts commit", "0123abcd", ")", ".", "Fix the cache", "CoMmIt", "co", "mmit", "x", "\u0130t",
             "Link: http://x", "key"]  # fmt: skip
    rng = random.Random(3)
    for _ in range(5000):
        line = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 6))).strip() or "x"
        dropped = query._DROPPED_LINE(line) is not None
        assert split_message(f"Subject\n\n{line}") == ("Subject", [] if dropped else [line]), line
    assert split_message("Fix it\n\nTHIS REVERTS COMMIT 0123abcd.\nThe body.")[1] == ["The body."]


def test_the_subject_is_split_off_first_and_the_body_read_only_when_asked() -> None:
    from pytest_codesearch.mining.query import paragraphs_of, split_message, split_subject

    message = "\n  \nSigned-off-by: A <a@x>\n  Speed up the cache  \n\nFirst line\n  wraps here.\nCc: b@x\n\n    code\n"
    subject, rest = split_subject(message)
    assert subject == "Speed up the cache"  # blank and trailer lines before it are skipped
    body = paragraphs_of(rest)
    assert next(body) == "First line wraps here."  # read as asked; the trailer is dropped
    assert list(body) == ["    code"]
    assert split_message(message) == (subject, ["First line wraps here.", "    code"])
    assert split_subject("\n\nCc: x\n") == ("", []) and split_message("") == ("", [])
