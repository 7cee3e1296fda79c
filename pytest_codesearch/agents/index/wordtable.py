"""A blob's token counts as term ids, counted word by word with numpy (issue 23 item 1).

Counting a blob's tokens is most of a cold run's indexing: every blob a gold set's snapshots hold is
tokenised once. :func:`~pytest_codesearch.agents.index.tokenize.count_tokens` cuts each distinct word into
its tokens in Python and the token cache then looks each token's id up; a :class:`WordTable` remembers,
for each word it has seen, the term ids of its tokens, so a blob costs a split into words
(:func:`~pytest_codesearch.agents.index.tokenize.words`), a ``Counter`` of them and a few numpy
operations: the words' token ids laid side by side, weighted by how often each word occurs, summed
per term. The counts are those of ``count_tokens`` exactly
(``tests/test_tokenize.py``). A new version of a file counted before is counted from the old version's
counts and the lines that changed (:meth:`WordTable.counts_since`), in one pass over the lines added and
removed, whenever those hold fewer characters than the new version: counting them then costs less than
counting it afresh, the comparison of the lines being done already. A word new to the table is cut into
its tokens by :func:`~pytest_codesearch.agents.index.tokenize.split_word` (no second cache: the table is one).
"""

from __future__ import annotations

import itertools
import operator
from collections import Counter

import numpy as np
import numpy.typing as npt

from pytest_codesearch.agents.index.tokenize import split_word, words

IdArray = npt.NDArray[np.int32]

MAX_WORDS = 1 << 20
"""Words a table remembers (about 100 bytes each) before it starts afresh."""


class WordTable:
    """The term ids (into ``vocabulary``, which it extends) of the tokens of each word seen so far."""

    def __init__(self, vocabulary: dict[str, int], max_words: int = MAX_WORDS) -> None:
        self.vocabulary = vocabulary
        self.max_words = max_words
        self._words: dict[str, int] = {}
        self._starts = np.zeros(1024, dtype=np.int64)
        self._lengths = np.zeros(1024, dtype=np.int64)
        self._flat = np.zeros(4096, dtype=np.int32)
        self._used = 0

    def counts(self, text: str) -> tuple[IdArray, IdArray]:
        """Return the term ids of ``text``'s tokens, ascending, and how often each occurs."""
        counted = Counter(words(text))
        ids, weights = self._expand(list(counted), np.fromiter(counted.values(), np.int64, len(counted)))
        if not len(ids):
            return np.zeros(0, np.int32), np.zeros(0, np.int32)
        term_ids, slots = np.unique(ids, return_inverse=True)
        sums = np.bincount(slots, weights=weights, minlength=len(term_ids))
        return term_ids.astype(np.int32), sums.astype(np.int32)

    def counts_since(
        self, old_ids: IdArray, old_counts: IdArray, old_text: str, text: str
    ) -> tuple[IdArray, IdArray] | None:
        """Return :meth:`counts` of ``text`` from those of an earlier version ``old_text`` (``old_ids``,
        ``old_counts``), counting only the lines that differ; None when they hold more characters than
        ``text`` (counting it afresh is then cheaper).

        No word spans a line, so a text's counts are the sum of its lines': the old counts, plus the
        lines ``text`` holds more often, minus those it holds less often, are exactly the new counts.
        """
        plus, minus = changed_lines(old_text, text)
        if sum(map(len, plus)) + sum(map(len, minus)) + len(plus) + len(minus) > len(text):
            return None
        added, removed = Counter(words("\n".join(plus))), Counter(words("\n".join(minus)))
        weights = np.fromiter(
            itertools.chain(added.values(), map(operator.neg, removed.values())), np.int64, len(added) + len(removed)
        )
        ids, weights = self._expand([*added, *removed], weights)
        term_ids, slots = np.unique(np.concatenate([old_ids, ids]), return_inverse=True)
        sums = np.bincount(slots, weights=np.concatenate([old_counts, weights]), minlength=len(term_ids))
        kept = sums > 0
        return term_ids[kept].astype(np.int32), sums[kept].astype(np.int32)

    def _expand(self, distinct: list[str], occurrences: npt.NDArray[np.int64]) -> tuple[IdArray, npt.NDArray[np.int64]]:
        """Return the term ids of the tokens of each word of ``distinct``, word after word, each with its
        word's ``occurrences`` (words never seen are numbered first, in their order)."""
        table = self._words
        numbers = list(map(table.get, distinct))
        if None in numbers:
            if len(table) + len(distinct) > self.max_words:
                table.clear()
                self._used = 0
            self._add(list(dict.fromkeys(word for word in distinct if word not in table)))
            numbers = list(map(table.__getitem__, distinct))
        numbered = np.array(numbers, dtype=np.int64)
        lengths = self._lengths[numbered]
        total = int(lengths.sum())
        ends = np.cumsum(lengths)
        positions = np.arange(total, dtype=np.int64) + np.repeat(self._starts[numbered] - ends + lengths, lengths)
        return self._flat[positions], np.repeat(occurrences, lengths)

    def _add(self, new: list[str]) -> None:
        """Number the words ``new`` (none known yet), adding their tokens to the vocabulary in their order."""
        vocabulary = self.vocabulary
        split = list(map(split_word, new))  # not word_tokens: the table is the cache
        flat = [vocabulary.setdefault(token, len(vocabulary)) for token in itertools.chain.from_iterable(split)]
        first, last = len(self._words), len(self._words) + len(new)
        while last > len(self._starts):
            self._starts = np.resize(self._starts, 2 * len(self._starts))
            self._lengths = np.resize(self._lengths, 2 * len(self._lengths))
        while self._used + len(flat) > len(self._flat):
            self._flat = np.resize(self._flat, 2 * len(self._flat))
        lengths = np.fromiter(map(len, split), np.int64, len(split))
        self._lengths[first:last] = lengths
        self._starts[first:last] = self._used + np.cumsum(lengths) - lengths
        self._flat[self._used : self._used + len(flat)] = flat
        self._used += len(flat)
        self._words.update(zip(new, range(first, last)))


def changed_lines(old_text: str, text: str) -> tuple[list[str], list[str]]:
    """Return the lines ``text`` holds more often than ``old_text`` (each repeated as many times more, in
    ``text``'s order) and those it holds less often (``text``'s order, then the lines it lacks in ``old_text``'s)."""
    old_lines, new_lines = Counter(old_text.split("\n")), Counter(text.split("\n"))
    plus: list[str] = []
    minus: list[str] = []
    for line, times in new_lines.items():
        before = old_lines.get(line, 0)
        if times != before:
            (plus if times > before else minus).extend([line] * abs(times - before))
    gone = list(itertools.filterfalse(new_lines.__contains__, old_lines))  # C loops: most lines are kept
    minus.extend(itertools.chain.from_iterable(map(itertools.repeat, gone, map(old_lines.__getitem__, gone))))
    return plus, minus
