"""A blob's token counts as term ids, counted word by word with numpy (issue 23 item 1).

Counting a blob's tokens is most of a cold run's indexing: every blob a gold set's snapshots hold is
tokenised once. :func:`~pytest_codesearch.agents.index.tokenize.count_tokens` cuts each distinct word into
its tokens in Python and the token cache then looks each token's id up; a :class:`WordTable` remembers,
for each word it has seen, the term ids of its tokens, so a blob costs a split into words
(:func:`~pytest_codesearch.agents.index.tokenize.words`), a ``Counter`` of them and a few numpy
operations: the words' token ids laid side by side, weighted by how often each word occurs, summed
per term. The counts are those of ``count_tokens`` exactly
(``tests/test_tokenize.py``). A new version of a file counted before is counted from the old version's
counts and the lines that changed (:meth:`WordTable.counts_since`): about half the time on SWE-bench
Lite's modified blobs.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import numpy.typing as npt

from pytest_codesearch.agents.index.tokenize import word_tokens, words

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
        if len(self._words) + len(counted) > self.max_words:
            self._words.clear()
            self._used = 0
        numbers = list(map(self._words.get, counted))
        if None in numbers:
            self._add([word for word, n in zip(counted, numbers) if n is None])
            numbers = list(map(self._words.__getitem__, counted))
        numbered = np.array(numbers, dtype=np.int64)
        lengths = self._lengths[numbered]
        total = int(lengths.sum())
        if not total:
            return np.zeros(0, np.int32), np.zeros(0, np.int32)
        ends = np.cumsum(lengths)
        positions = np.arange(total, dtype=np.int64) + np.repeat(self._starts[numbered] - ends + lengths, lengths)
        occurrences = np.repeat(np.fromiter(counted.values(), np.int64, len(counted)), lengths)
        term_ids, slots = np.unique(self._flat[positions], return_inverse=True)
        sums = np.bincount(slots, weights=occurrences, minlength=len(term_ids))
        return term_ids.astype(np.int32), sums.astype(np.int32)

    def counts_since(
        self, old_ids: IdArray, old_counts: IdArray, old_text: str, text: str
    ) -> tuple[IdArray, IdArray] | None:
        """Return :meth:`counts` of ``text`` from those of an earlier version ``old_text`` (``old_ids``,
        ``old_counts``), counting only the lines that differ; None when most lines differ (count afresh).

        No word spans a line, so a text's counts are the sum of its lines': the old counts, plus the
        lines ``text`` holds more often, minus those it holds less often, are exactly the new counts.
        """
        old_lines, new_lines = Counter(old_text.split("\n")), Counter(text.split("\n"))
        plus: list[str] = []
        minus: list[str] = []
        for line, times in new_lines.items():
            before = old_lines.get(line, 0)
            if times != before:
                (plus if times > before else minus).extend([line] * abs(times - before))
        minus.extend(line for line, times in old_lines.items() if line not in new_lines for _ in range(times))
        if len(plus) + len(minus) > len(new_lines) // 2 + 1:
            return None
        added, added_counts = self.counts("\n".join(plus))
        removed, removed_counts = self.counts("\n".join(minus))
        ids = np.concatenate([old_ids, added, removed])
        weights = np.concatenate([old_counts, added_counts, -removed_counts.astype(np.int64)])
        term_ids, slots = np.unique(ids, return_inverse=True)
        sums = np.bincount(slots, weights=weights, minlength=len(term_ids))
        kept = sums > 0
        return term_ids[kept].astype(np.int32), sums[kept].astype(np.int32)

    def _add(self, new: list[str]) -> None:
        """Number the words ``new`` (none known yet), adding their tokens to the vocabulary in their order."""
        vocabulary = self.vocabulary
        flat: list[int] = []
        sizes: list[int] = []
        for word in new:
            tokens = word_tokens(word)
            flat.extend([vocabulary.setdefault(token, len(vocabulary)) for token in tokens])
            sizes.append(len(tokens))
        first, last = len(self._words), len(self._words) + len(new)
        while last > len(self._starts):
            self._starts = np.resize(self._starts, 2 * len(self._starts))
            self._lengths = np.resize(self._lengths, 2 * len(self._lengths))
        while self._used + len(flat) > len(self._flat):
            self._flat = np.resize(self._flat, 2 * len(self._flat))
        lengths = np.array(sizes, dtype=np.int64)
        self._lengths[first:last] = lengths
        self._starts[first:last] = self._used + np.cumsum(lengths) - lengths
        self._flat[self._used : self._used + len(flat)] = flat
        self._used += len(flat)
        self._words.update(zip(new, range(first, last)))
