"""Functions and classes of a file as documents, and their ranking for a query: the built-in agents'
function- and module-level answers.

A function document is a function or method (``path.py:Class.method``; a nested function counts for
the function that holds it) with its tokens: the text of its lines plus its qualified name's tokens
(weighted ``name_weight`` times). A top-level class is a document of its own lines (its methods' lines
are theirs); a module (``path.py:Name``) is a top-level class or function. Definitions come from the
file's outline (``outline/``: Python's ``ast``, tree-sitter for C, C++, JavaScript, TypeScript, Java, C#,
Go, Rust, Ruby, PHP), the same as the truth's; a file no outline supports is answered at file level.

Ranking is a re-ranking of the files an agent already ranked: the functions of its best
``files`` files are scored with BM25 (``idf`` from the agent's file-level index, ``avgdl`` over the
candidate functions) plus ``file_weight`` times their file's score, both scaled to [0, 1]; a module
scores as its best function, or its own text when it has no method (a class of attributes, a plain
function). Equal scores keep file rank, then source order.
"""

from __future__ import annotations

import hashlib
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from pytest_codesearch.agents.index.tokenize import tokenize
from pytest_codesearch.outline import language_of

Reader = Callable[[str], "bytes | None"]
"""Returns the bytes of a snapshot file by path, None when it cannot be read."""


@dataclass(frozen=True)
class EntityDoc:
    """One function or top-level definition of a file, as a bag of tokens."""

    name: str
    """``path.py:Class.method`` (a function) or ``path.py:Name`` (a module-level definition)."""
    module: str
    """The top-level definition holding it: ``path.py:Class``."""
    is_function: bool
    counts: Counter[str]
    length: int


@dataclass(frozen=True)
class EntityRanking:
    """Ranked function-level and module-level entities, best first."""

    functions: list[str]
    modules: list[str]


_CACHE: OrderedDict[tuple[str, bytes, int], tuple[EntityDoc, ...]] = OrderedDict()
CACHED_FILES = 4096
"""Files whose documents stay cached (by path and content digest): a snapshot's cases share them."""


def file_entities(path: str, data: bytes, name_weight: int = 2) -> tuple[EntityDoc, ...]:
    """Return the function and module documents of one file (none for files that are not Python)."""
    if language_of(path) is None:
        return ()
    key = (path, hashlib.blake2b(data, digest_size=16).digest(), name_weight)
    docs = _CACHE.pop(key, None)
    if docs is None:
        docs = _entities(path, data, name_weight)
    _CACHE[key] = docs
    while len(_CACHE) > CACHED_FILES:
        _CACHE.popitem(last=False)
    return docs


def _entities(path: str, data: bytes, name_weight: int) -> tuple[EntityDoc, ...]:
    from pytest_codesearch.outline import outline

    outlined = outline(path, data).definitions
    definitions = [d for d in outlined if not d.in_function and (d.is_function or d.top_level)]
    if not definitions:
        return ()
    lines = _line_tokens(data)
    owner = [-1] * len(lines)  # the document each line counts for: its function, else its class
    for doc, definition in sorted(enumerate(definitions), key=lambda pair: pair[1].is_function):
        owner[definition.start - 1 : definition.end] = [doc] * len(owner[definition.start - 1 : definition.end])
    counts: list[Counter[str]] = [Counter() for _ in definitions]
    for number, doc in enumerate(owner):
        if doc >= 0:
            counts[doc].update(lines[number])
    docs = []
    for definition, found in zip(definitions, counts):
        for token in tokenize(definition.qualname.replace(".", " ")):
            found[token] += name_weight
        top = definition.qualname.split(".", 1)[0]
        docs.append(EntityDoc(f"{path}:{definition.qualname}", f"{path}:{top}", definition.is_function, found,
                              sum(found.values())))  # fmt: skip
    return tuple(docs)


def _line_tokens(data: bytes) -> list[list[str]]:
    """Return the tokens of each line of ``data``, each distinct line tokenised once."""
    seen: dict[str, list[str]] = {}
    tokens = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        found = seen.get(line)
        if found is None:
            found = seen[line] = tokenize(line)
        tokens.append(found)
    return tokens


def snapshot_entities(read: Reader, cached: int = 4096) -> Callable[[str], tuple[EntityDoc, ...]]:
    """Return the entity documents of a snapshot's files by path (read once each through ``read``)."""

    @lru_cache(maxsize=cached)
    def entities(path: str) -> tuple[EntityDoc, ...]:
        if language_of(path) is None:
            return ()
        data = read(path)
        return () if data is None else file_entities(path, data)

    return entities


def rank_entities(
    files: Sequence[str],
    file_scores: Sequence[float],
    query_tokens: Sequence[str],
    entities_of: Callable[[str], tuple[EntityDoc, ...]],
    idf: Callable[[str], float],
    *,
    k1: float = 1.2,
    b: float = 0.75,
    file_weight: float = 0.5,
    top_n: int = 50,
) -> EntityRanking:
    """Return the functions and modules of ``files`` (ranked, with ``file_scores``) ranked for the query."""
    docs: list[EntityDoc] = []
    ranks: list[int] = []
    for rank, path in enumerate(files):
        found = entities_of(path)
        docs.extend(found)
        ranks.extend([rank] * len(found))
    if not docs:
        return EntityRanking([], [])
    text = _bm25(docs, query_tokens, idf, k1, b)
    prior = list(file_scores) if len(file_scores) >= len(files) else [1.0 / (r + 1) for r in range(len(files))]
    best_text, best_file = max(text) or 1.0, max(prior[: len(files)]) or 1.0
    combined = [text[i] / best_text + file_weight * prior[ranks[i]] / best_file for i in range(len(docs))]
    order = sorted(range(len(docs)), key=lambda i: (-combined[i], ranks[i], i))
    kept = [i for i in order if combined[i] > 0]
    functions = [docs[i].name for i in kept if docs[i].is_function][:top_n]
    modules = list(dict.fromkeys(docs[i].module for i in kept))[:top_n]
    return EntityRanking(functions, modules)


def _bm25(
    docs: Sequence[EntityDoc], query_tokens: Sequence[str], idf: Callable[[str], float], k1: float, b: float
) -> list[float]:
    """Return the BM25 score of each document (``idf`` given, ``avgdl`` over ``docs``); a repeated query
    token counts again, as in the file-level score."""
    avgdl = sum(doc.length for doc in docs) / len(docs) or 1.0
    norms = [k1 * (1 - b + b * doc.length / avgdl) for doc in docs]
    scores = [0.0] * len(docs)
    for token, repeats in Counter(query_tokens).items():
        weight = idf(token) * repeats * (k1 + 1)
        if not weight:
            continue
        for i, doc in enumerate(docs):
            tf = doc.counts.get(token)
            if tf:
                scores[i] += weight * tf / (tf + norms[i])
    return scores
