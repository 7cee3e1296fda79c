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
function), plus ``support_weight`` times the scores of its next ``support_definitions`` best
definitions, so a class several of whose methods match outranks a class with one. Equal scores keep
file rank, then source order.

The same scores feed back into the files (:class:`ScoredEntities`): ``BM25Agent`` re-ranks those best
files by their best definitions' scores and by the definitions the query names (``agents/builtin/bm25.py``).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

from pytest_codesearch.agents.index.entitystore import Shape, blob_shapes
from pytest_codesearch.agents.index.tokenize import WORD, count_tokens, tokenize
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
    counts: Mapping[str, int]
    length: int


@dataclass(frozen=True)
class EntityRanking:
    """Ranked function-level and module-level entities, best first."""

    functions: list[str]
    modules: list[str]


NAME_WEIGHT = 2
"""How many times a definition's qualified name's tokens count in its document."""

_CACHE: OrderedDict[tuple[str, bytes, int], tuple[EntityDoc, ...]] = OrderedDict()
CACHED_FILES = 4096
"""Files whose documents stay cached (by path and content digest): a snapshot's cases share them."""


def file_entities(path: str, data: bytes, name_weight: int = NAME_WEIGHT) -> tuple[EntityDoc, ...]:
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
    return tuple(_entity_doc(path, *shape) for shape in entity_shapes(path, data, name_weight))


def _entity_doc(path: str, qualname: str, is_function: bool, counts: Mapping[str, int], module: str) -> EntityDoc:
    """Return the document of the definition ``qualname`` of the file ``path`` (its counts shared, not copied)."""
    return EntityDoc(f"{path}:{qualname}", f"{path}:{module}", is_function, counts, sum(counts.values()))


def entity_shapes(path: str, data: bytes, name_weight: int) -> list[Shape]:
    """Return the qualified name, kind, token counts and module (``outline/modules.py``, the truth's rule)
    of each entity document of ``data`` (see the module).

    Only the extension of ``path`` matters (it picks the outline's language): the same content gives
    the same shapes under any name with that extension.
    """
    from pytest_codesearch.agents.index.pyoutlines import file_definitions
    from pytest_codesearch.outline.modules import module_names

    outlined = file_definitions(path, data)
    modules = module_names(outlined)
    definitions = [d for d in outlined if not d.in_function and (d.is_function or d.top_level)]
    if not definitions:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    owner = [-1] * len(lines)  # the document each line counts for: its function, else its class
    for doc, definition in sorted(enumerate(definitions), key=lambda pair: pair[1].is_function):
        owner[definition.start - 1 : definition.end] = [doc] * len(owner[definition.start - 1 : definition.end])
    texts: list[list[str]] = [[] for _ in definitions]
    for line, doc in zip(lines, owner):
        if doc >= 0:
            texts[doc].append(line)
    shapes: list[Shape] = []
    for definition, text in zip(definitions, texts):
        found = document_counts(definition.qualname, "\n".join(text), name_weight)
        shapes.append((definition.qualname, definition.is_function, found, modules[definition.qualname]))
    return shapes


_COUNTED: OrderedDict[tuple[str, str, int], Counter[str]] = OrderedDict()
_counted_chars = 0
COUNTED_CHARS = 1 << 24
"""Characters of definition text whose counts stay cached (about 16M): a new version of a file mostly
holds definitions an older one held, word for word."""


def forget_counts() -> None:
    """Drop every cached definition's counts (as a new process starts)."""
    global _counted_chars
    _COUNTED.clear()
    _counted_chars = 0


def document_counts(qualname: str, text: str, name_weight: int) -> Counter[str]:
    """Return the token counts of the definition ``qualname`` whose lines are ``text``: those of the text
    plus ``name_weight`` times those of its qualified name (cached by all three; never change the result)."""
    global _counted_chars
    key = (qualname, text, name_weight)
    found = _COUNTED.get(key)
    if found is not None:
        _COUNTED.move_to_end(key)
        return found
    found = count_tokens(text)  # no word spans a line: the sum of each line's counts
    for token in tokenize(qualname.replace(".", " ")):
        found[token] += name_weight
    _COUNTED[key] = found
    _counted_chars += len(text)
    while _counted_chars > COUNTED_CHARS and len(_COUNTED) > 1:
        _counted_chars -= len(_COUNTED.popitem(last=False)[0][1])
    return found


def snapshot_entities(
    read: Reader, cached: int = 4096, blob_of: Callable[[str], str | None] | None = None
) -> Callable[[str], tuple[EntityDoc, ...]]:
    """Return the entity documents of a snapshot's files by path (read once each through ``read``).

    With ``blob_of`` (a file's git blob id by path, None when unknown) a file's documents are made once
    per blob and kept in memory and in the shared store (``entitystore.py``); its bytes are read only then.
    """

    @lru_cache(maxsize=cached)
    def entities(path: str) -> tuple[EntityDoc, ...]:
        language = language_of(path)
        if language is None:
            return ()
        blob = None if blob_of is None else blob_of(path)
        if blob is None:
            data = read(path)
            return () if data is None else file_entities(path, data)
        key = (blob, f"{language}.h" if path.lower().endswith(".h") else language, NAME_WEIGHT)
        shapes = blob_shapes(key, partial(_read_shapes, read, path))
        return () if shapes is None else tuple(_entity_doc(path, *shape) for shape in shapes)

    return entities


def _read_shapes(read: Reader, path: str) -> list[Shape] | None:
    data = read(path)
    return None if data is None else entity_shapes(path, data, NAME_WEIGHT)


_NAME_SEPARATORS = re.compile(r"::|[.#]")
"""What joins the parts of a qualified name in the outlines' naming rules (``Class.method``,
``ns::Class::method``, ``Class#method``)."""


def name_parts(entity: str) -> list[str]:
    """Return the parts of the qualified name of ``entity`` (``path:Qualified.name``): ``Class``, ``method``.

    The path ends at the first colon that is not part of ``::`` (a C++ or Rust name holds them).
    """
    path_end = re.search(r"(?<!:):(?!:)", entity)
    qualname = entity[path_end.end() :] if path_end else entity
    return [part for part in _NAME_SEPARATORS.split(qualname) if part]


@dataclass(frozen=True)
class ScoredEntities:
    """The entity documents of a ranked list of files, each with its BM25 score for one query.

    ``docs`` come file by file in the files' order, each file's in source order; ``files[i]`` is the
    position of ``docs[i]``'s file in that list.
    """

    docs: tuple[EntityDoc, ...]
    files: tuple[int, ...]
    text: tuple[float, ...]

    def best_sums(self, n_files: int, best: int) -> list[float]:
        """Return, per file position below ``n_files``, the sum of the ``best`` highest scores of its documents."""
        by_file: list[list[float]] = [[] for _ in range(n_files)]
        for file, score in zip(self.files, self.text):
            by_file[file].append(score)
        return [sum(sorted(scores, reverse=True)[:best]) for scores in by_file]

    def named(self, n_files: int, query: str, idf: Callable[[str], float]) -> list[float]:
        """Return, per file position, the idf sum of the distinct words of ``query`` that name a definition
        of the file (any part of a qualified name, case left aside: ``Session`` and ``login`` for
        ``Session.login``); the idf of a name is that of its token (underscores at its ends dropped).

        The names are summed in sorted order: a set's order follows the process's string hashes, and
        the last bit of a float sum follows the order.
        """
        words = {word.lower() for word in WORD.findall(query)}
        names: list[set[str]] = [set() for _ in range(n_files)]
        for file, doc in zip(self.files, self.docs):
            names[file].update(part.lower() for part in name_parts(doc.name))
        return [sum(idf(name.strip("_")) for name in sorted(found & words)) for found in names]

    def plus_names(self, query: str, idf: Callable[[str], float], weight: float) -> ScoredEntities:
        """Return these documents with ``weight`` times the idf of its own name (the last part of its qualified
        name, case left aside) added to the score of each one whose name is a word of ``query``."""
        words = {word.lower() for word in WORD.findall(query)}
        text = list(self.text)
        for i, doc in enumerate(self.docs):
            name = name_parts(doc.name)[-1].lower()
            if name in words:
                text[i] += weight * idf(name.strip("_"))
        return ScoredEntities(self.docs, self.files, tuple(text))

    def reordered(self, order: Sequence[int]) -> ScoredEntities:
        """Return these documents with their files put in ``order`` (old positions, new order first)."""
        position = {old: new for new, old in enumerate(order)}
        moved = sorted(range(len(self.docs)), key=lambda i: (position[self.files[i]], i))
        return ScoredEntities(
            tuple(self.docs[i] for i in moved), tuple(position[self.files[i]] for i in moved), tuple(self.text[i] for i in moved)
        )


def score_entities(
    files: Sequence[str],
    query_tokens: Sequence[str],
    entities_of: Callable[[str], tuple[EntityDoc, ...]],
    idf: Callable[[str], float],
    *,
    k1: float = 1.2,
    b: float = 0.75,
) -> ScoredEntities:
    """Return the entity documents of ``files`` scored by BM25 (``idf`` given, ``avgdl`` over them)."""
    docs: list[EntityDoc] = []
    ranks: list[int] = []
    for rank, path in enumerate(files):
        found = entities_of(path)
        docs.extend(found)
        ranks.extend([rank] * len(found))
    text = _bm25(docs, query_tokens, idf, k1, b) if docs else []
    return ScoredEntities(tuple(docs), tuple(ranks), tuple(text))


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
    scored = score_entities(files, query_tokens, entities_of, idf, k1=k1, b=b)
    return rank_scored(scored, len(files), file_scores, file_weight=file_weight, top_n=top_n)


def rank_scored(
    scored: ScoredEntities,
    n_files: int,
    file_scores: Sequence[float],
    *,
    file_weight: float = 0.5,
    top_n: int = 50,
    support_weight: float = 0.0,
    support_definitions: int = 2,
) -> EntityRanking:
    """Return the functions and modules of ``scored`` by their text score plus ``file_weight`` times their
    file's score (of ``file_scores``, by file position; ``1 / rank`` when too few), both scaled to [0, 1].

    A module scores as its best definition plus ``support_weight`` times the scaled text scores of its
    next ``support_definitions`` best ones (0: its best alone); equal scores keep the order of their
    best definitions."""
    docs, ranks, text = scored.docs, scored.files, scored.text
    if not docs:
        return EntityRanking([], [])
    prior = list(file_scores) if len(file_scores) >= n_files else [1.0 / (r + 1) for r in range(n_files)]
    best_text, best_file = max(text) or 1.0, max(prior[:n_files]) or 1.0
    combined = [text[i] / best_text + file_weight * prior[ranks[i]] / best_file for i in range(len(docs))]
    order = sorted(range(len(docs)), key=lambda i: (-combined[i], ranks[i], i))
    kept = [i for i in order if combined[i] > 0]
    functions = [docs[i].name for i in kept if docs[i].is_function][:top_n]
    modules = list(dict.fromkeys(docs[i].module for i in kept))
    if support_weight:
        modules = _supported(modules, kept, docs, combined, [t / best_text for t in text], support_weight, support_definitions)
    return EntityRanking(functions, modules[:top_n])


def _supported(
    modules: list[str],
    kept: Sequence[int],
    docs: Sequence[EntityDoc],
    combined: Sequence[float],
    scaled: Sequence[float],
    weight: float,
    extra: int,
) -> list[str]:
    """Return ``modules`` (in the order of their best definitions) re-ranked by their best definition's
    ``combined`` score plus ``weight`` times the sum of the ``scaled`` text scores of their next ``extra``
    best definitions. A class several of whose methods match the query outranks one with a single match."""
    best: dict[str, float] = {}
    texts: dict[str, list[float]] = {}
    for i in kept:  # best combined first: a module's first definition here is its best
        module = docs[i].module
        best.setdefault(module, combined[i])
        texts.setdefault(module, []).append(scaled[i])
    score = {m: best[m] + weight * sum(sorted(texts[m], reverse=True)[1 : 1 + extra]) for m in modules}
    return sorted(modules, key=lambda m: -score[m])  # stable: ties keep the best definitions' order


def _bm25(
    docs: Sequence[EntityDoc], query_tokens: Sequence[str], idf: Callable[[str], float], k1: float, b: float
) -> list[float]:
    """Return the BM25 score of each document (``idf`` given, ``avgdl`` over ``docs``); a repeated query
    token counts again, as in the file-level score."""
    avgdl = sum(doc.length for doc in docs) / len(docs) or 1.0
    norms = [k1 * (1 - b + b * doc.length / avgdl) for doc in docs]
    weights = {}  # by query order: each document adds its terms in this order, as one loop over terms would
    for token, repeats in Counter(query_tokens).items():
        weight = idf(token) * repeats * (k1 + 1)
        if weight:
            weights[token] = weight
    order = {token: n for n, token in enumerate(weights)}
    scores = [0.0] * len(docs)
    for i, doc in enumerate(docs):
        counts, score = doc.counts, 0.0
        for token in sorted(counts.keys() & weights.keys(), key=order.__getitem__):
            tf = counts[token]
            score += weights[token] * tf / (tf + norms[i])
        scores[i] = score
    return scores
