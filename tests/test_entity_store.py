"""bm25's function documents are made once per blob: kept in memory and in the shared store, read back as made."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_codesearch.agents.index import entitystore
from pytest_codesearch.agents.index.entitystore import entity_store
from pytest_codesearch.agents.index.functions import EntityDoc, file_entities, snapshot_entities
from pytest_codesearch.agents.index.indexstore import use_index_store

SOURCE = b'''class Cart:
    def add(self, item):
        self.items.append(item)  # add the item
        self.total += item.price


def checkout(cart):
    return pay(cart.total)
'''
BLOB = "ab" + "c" * 38


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Path]:
    """A shared index store under ``tmp_path``, and no shapes in memory (a fresh process)."""
    entitystore._MEMORY.clear()
    restore = use_index_store(tmp_path / "cache", None)
    yield tmp_path / "cache" / "indexes"
    restore()
    entitystore._MEMORY.clear()


def _shown(docs: tuple[EntityDoc, ...]) -> list[tuple[str, str, bool, dict[str, int], int]]:
    return [(d.name, d.module, d.is_function, dict(sorted(d.counts.items())), d.length) for d in docs]


EXPECTED = [
    ("shop/cart.py:Cart", "shop/cart.py:Cart", False, {"cart": 3, "class": 1}, 4),
    ("shop/cart.py:Cart.add", "shop/cart.py:Cart", True,
     {"add": 4, "append": 1, "cart": 2, "item": 4, "items": 1, "price": 1, "total": 1}, 14),
    ("shop/cart.py:checkout", "shop/cart.py:checkout", True, {"cart": 2, "checkout": 3, "pay": 1, "total": 1}, 7),
]  # fmt: skip
"""Each definition's lines' tokens, plus its qualified name's twice (``def``, ``self`` and ``return`` are stop words)."""


def test_a_blobs_documents_are_made_once_and_read_back_from_disk_by_a_new_process(store: Path) -> None:
    reads: list[str] = []

    def read(path: str) -> bytes | None:
        reads.append(path)
        return SOURCE

    first = snapshot_entities(read, blob_of={"shop/cart.py": BLOB}.get)("shop/cart.py")
    assert _shown(first) == EXPECTED and reads == ["shop/cart.py"]
    assert _shown(first) == _shown(file_entities("shop/cart.py", SOURCE))  # the same as made from the bytes
    saved = [p.relative_to(store).parts[2] for p in store.rglob("*") if p.is_file()]
    assert saved == ["c" * 38 + "-python-2"]
    entitystore._MEMORY.clear()  # a new process: the documents come from disk, the file is not read
    renamed = snapshot_entities(read, blob_of={"lib/cart.py": BLOB}.get)("lib/cart.py")
    assert reads == ["shop/cart.py"] and entity_store() is not None and entity_store().loaded == 1  # type: ignore[union-attr]
    assert _shown(renamed) == [(n.replace("shop/", "lib/"), m.replace("shop/", "lib/"), f, c, size)
                               for n, m, f, c, size in EXPECTED]  # fmt: skip


def test_a_damaged_file_is_made_again(store: Path) -> None:
    snapshot_entities(lambda path: SOURCE, blob_of={"cart.py": BLOB}.get)("cart.py")
    (saved,) = [p for p in store.rglob("*") if p.is_file()]
    saved.write_bytes(saved.read_bytes()[:-5])
    entitystore._MEMORY.clear()
    docs = snapshot_entities(lambda path: SOURCE, blob_of={"cart.py": BLOB}.get)("cart.py")
    assert [d.counts for d in docs] == [Counter(c) for _, _, _, c, _ in EXPECTED]


def test_an_unreadable_file_gives_no_documents_and_is_not_remembered(store: Path) -> None:
    assert snapshot_entities(lambda path: None, blob_of={"cart.py": BLOB}.get)("cart.py") == ()
    assert not store.exists() and not entitystore._MEMORY
    assert len(snapshot_entities(lambda path: SOURCE, blob_of={"cart.py": BLOB}.get)("cart.py")) == 3


def test_a_new_versions_unchanged_definitions_are_counted_once_and_the_same_as_afresh() -> None:
    from pytest_codesearch.agents.index import functions

    edited = SOURCE.replace(b"self.total += item.price", b"self.total += item.price * item.count")
    functions.forget_counts()
    first = functions.entity_shapes("shop/cart.py", SOURCE, 2)
    kept = len(functions._COUNTED)
    again = functions.entity_shapes("shop/cart.py", edited, 2)
    assert len(functions._COUNTED) == kept + 1  # Cart.add changed; Cart's own lines and checkout did not
    assert again[0][2] is first[0][2] and again[2][2] is first[2][2]
    functions.forget_counts()
    assert functions.entity_shapes("shop/cart.py", edited, 2) == again  # the same as counted afresh
    weighted = functions.entity_shapes("shop/cart.py", edited, 3)
    assert weighted[2][2]["checkout"] == again[2][2]["checkout"] + 1  # the name weight is part of the key


def test_the_counted_definitions_stay_under_their_bound_in_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_codesearch.agents.index import functions

    functions.forget_counts()
    monkeypatch.setattr(functions, "COUNTED_CHARS", 30)
    for n in range(5):
        functions.document_counts(f"f{n}", f"def f{n}(): return {n:08d}", 2)  # 25 characters each
    assert list(functions._COUNTED) == [("f4", "def f4(): return 00000004", 2)] and functions._counted_chars == 25
    functions.forget_counts()


def test_a_python_files_versions_along_a_history_give_the_documents_of_each_version_made_afresh(tmp_path: Path) -> None:
    """bm25 outlines a file from the nearest of its last versions outlined (``pyoutlines.py``): the same
    documents as parsed whole."""
    from gitrepo import commit, init_repo
    from pytest_codesearch.agents.index import functions, pyoutlines
    from pytest_codesearch.outline import outline

    repo = init_repo(tmp_path / "repo")
    methods = [f"    def m{n}(self, x):\n        return x + {n}\n\n" for n in range(6)]
    versions = [
        "import os\n\n\nclass Big:\n    size = 1\n\n" + "".join(methods) + "\ndef tail():\n    pass\n",
        "import os\n\n\nclass Big:\n    size = 1\n\n" + "".join(methods[:3]) + "    @property\n    def p(self):\n"
        "        return (1,\n   2)\n\n" + "".join(methods[3:]) + "\ndef tail():\n    pass\n",
        "import os\n\n\nclass Big:\n    size = 2\n\n" + "".join(methods[1:]) + "\ndef tail():\n    return 1\n",
        "import os\nif os.name:\n    def extra(): pass\n\nclass Big:\n    size = 2\n\n" + "".join(methods[1:5]),
        "class Big(\n",  # does not parse: no documents, and the next version is parsed whole
        "class Big:\n    def only(self):\n        return os.sep\n",
    ]
    blobs = [repo[commit(repo, {"pkg/big.py": text})].tree["pkg/big.py"].data for text in versions]
    pyoutlines.forget_outlines()
    before = pyoutlines.derived[0]
    along = [functions.entity_shapes("pkg/big.py", data, 2) for data in blobs]
    assert pyoutlines.derived[0] - before == 5  # the second to the sixth version derived (the fifth does not parse)
    kept = pyoutlines._KEPT["pkg/big.py"]
    assert [data for data, _ in kept] == [blobs[n] for n in (0, 1, 2, 3, 5)][-pyoutlines.KEPT_VERSIONS :]
    last = kept[-1][1].definitions
    assert outline("pkg/big.py", blobs[-1]).definitions is last  # scoring's outline of the file is not parsed again
    afresh = []
    for data in blobs:
        pyoutlines.forget_outlines()
        afresh.append(functions.entity_shapes("pkg/big.py", data, 2))
    assert along == afresh and along[4] == []
    assert [name for name, *_ in along[1]] == ["Big", *[f"Big.m{n}" for n in range(3)], "Big.p",
                                                *[f"Big.m{n}" for n in range(3, 6)], "tail"]  # fmt: skip
    nearest = pyoutlines._nearest(blobs[2].replace(b"size = 2", b"size = 3"), kept)  # derived from the third
    assert nearest[0] == blobs[2]
    pyoutlines.forget_outlines()
