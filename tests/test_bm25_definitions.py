"""bm25 re-ranks its best files by their definitions: their best functions' scores and the names the query uses."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pygit2
import pytest

from pytest_codesearch.agents.builtin.bm25 import BM25Agent
from pytest_codesearch.agents.index.functions import EntityDoc, ScoredEntities, rank_scored, score_entities
from pytest_codesearch.agents.index.tokenize import tokenize
from pytest_codesearch.repo.materialize import list_tree
from pytest_codesearch.repo.reader import SnapshotView, TreeReader, remember_view

sys.path.insert(0, str(Path(__file__).parent))
from gitrepo import commit, init_repo  # noqa: E402


def _doc(name: str, is_function: bool = True) -> EntityDoc:
    path, _, qualname = name.partition(":")
    return EntityDoc(name, f"{path}:{qualname.split('.')[0]}", is_function, Counter(), 1)


SCORED = ScoredEntities(
    docs=(_doc("a.py:Widget", False), _doc("a.py:Widget.render"), _doc("a.py:helper"),
          _doc("b.py:helper_fn"), _doc("b.py:Parser.parse_row"), _doc("b.py:Parser", False)),
    files=(0, 0, 0, 1, 1, 1),
    text=(1.0, 3.0, 0.5, 2.0, 2.0, 1.5),
)  # fmt: skip


def test_a_file_scores_the_sum_of_its_best_definitions() -> None:
    assert SCORED.best_sums(2, 1) == [3.0, 2.0]
    assert SCORED.best_sums(2, 2) == [4.0, 4.0]  # 3 + 1; 2 + 2
    assert SCORED.best_sums(3, 2) == [4.0, 4.0, 0.0]  # a file without definitions


def test_query_words_naming_a_definition_add_their_idf_once_per_file() -> None:
    idf = {"widget": 1.5, "helper_fn": 2.0, "parser": 0.25, "render": 0.5}.get
    query = "widget.render() fails on Widget; helper_fn and helper_fn.parse_row are fine"
    # a.py: widget (1.5, named twice, counted once) + render (0.5); "helper" alone is never a word here
    # b.py: helper_fn (2.0) + parse_row (no idf given: 0.0); "parser" is not in the query
    assert SCORED.named(2, query, lambda name: idf(name, 0.0)) == [2.0, 2.0]
    dunder = ScoredEntities((_doc("c.py:Parser.__init__"),), (0,), (0.0,))
    # a name with underscores at its ends weighs as its token ("__init__" gives the token "init")
    assert dunder.named(1, "Parser.__init__ is slow", {"init": 0.5, "parser": 0.25}.__getitem__) == [0.75]


def test_the_idf_of_the_names_a_query_uses_is_summed_in_the_names_order_whatever_the_hash_seed() -> None:
    scored = ScoredEntities((_doc("a.py:alpha"), _doc("a.py:beta"), _doc("a.py:gamma")), (0, 0, 0), (0.0, 0.0, 0.0))
    idf = {"alpha": 1e16, "beta": 1.0, "gamma": 1.0}.__getitem__
    # (1e16 + 1) + 1 rounds to 1e16 twice; (1 + 1) + 1e16 is 1e16 + 2: only the sorted order gives 1e16
    assert scored.named(1, "gamma beta alpha", idf) == [1e16]


def test_a_definition_the_query_names_adds_the_idf_of_its_own_name() -> None:
    idf = {"widget": 1.5, "render": 0.5, "helper_fn": 2.0, "parse_row": 4.0}.__getitem__
    named = SCORED.plus_names("Widget.render() and helper_fn(); not parse_rows", idf, 3.0)
    # Widget (1.0 + 3 x 1.5), Widget.render by its last part only (3.0 + 3 x 0.5), helper_fn (2.0 + 3 x 2.0);
    # "parse_rows" is not "parse_row"; the documents and their files stay as they were
    assert named.text == (5.5, 4.5, 0.5, 8.0, 2.0, 1.5)
    assert (named.docs, named.files) == (SCORED.docs, SCORED.files)


def test_reordered_entities_follow_their_files_new_order() -> None:
    moved = SCORED.reordered([1, 0])
    assert [d.name for d in moved.docs] == ["b.py:helper_fn", "b.py:Parser.parse_row", "b.py:Parser",
                                            "a.py:Widget", "a.py:Widget.render", "a.py:helper"]  # fmt: skip
    assert moved.files == (0, 0, 0, 1, 1, 1)
    assert moved.text == (2.0, 2.0, 1.5, 1.0, 3.0, 0.5)


FILES = {
    # many words of the query, in comments: BM25 ranks it first
    "shop/views.py": (
        "# the discount code of a coupon: apply the discount code, expired coupon, discount code again\n"
        "def page(request):\n    return render(request)\n"
    ),
    # defines the class and the method the query names
    "shop/pricing.py": (
        "class Coupon:\n    def apply_discount(self, order):\n        return order.total - self.amount\n\n"
        "    def expired(self):\n        return self.ends < today()\n"
    ),
    "shop/cart.py": "def add(item):\n    return item\n",
    "shop/mail.py": "def send(message):\n    return message\n",
    "shop/admin.py": "def register(model):\n    return model\n",
}
QUERY = "Coupon.apply_discount ignores an expired coupon discount code"


@pytest.fixture
def agent_on_repo(tmp_path: Path) -> tuple[BM25Agent, BM25Agent]:
    """Return a default bm25 agent and a BM25-only one, both on a commit of FILES read from its repository."""
    repo = init_repo(tmp_path / "project")
    tip = commit(repo, dict(FILES), "Add the shop")
    listing = list_tree(repo, repo.revparse_single(tip).peel(pygit2.Commit).tree, {})
    view = SnapshotView(tmp_path / "snapshot", listing.tree_id, TreeReader(listing.repository or "", listing))
    remember_view(view)
    agents = BM25Agent(), BM25Agent(definition_weight=0.0, mention_weight=0.0)
    for agent in agents:
        agent.use_snapshot(view)
        agent.initialize(str(view.root))
    return agents


def test_definitions_the_query_names_lift_their_file_above_a_wordier_one(agent_on_repo: tuple[BM25Agent, BM25Agent]) -> None:
    default, bm25_only = agent_on_repo
    plain = bm25_only.retrieve(QUERY)
    assert plain.files == ["shop/views.py", "shop/pricing.py"]
    answer = default.retrieve(QUERY)
    assert answer.files == ["shop/pricing.py", "shop/views.py"]
    # pricing.py: its BM25 score, plus its two best definitions, plus 3 x the idf of the names the query
    # uses, "coupon", "apply_discount" and "expired"; views.py defines page only, which shares no query word
    head = ["shop/views.py", "shop/pricing.py"]
    scored = score_entities(head, tokenize(QUERY), default._entities, default.index.content.idf)
    by_name = dict(zip((d.name for d in scored.docs), scored.text))
    assert by_name["shop/views.py:page"] == 0.0
    idf = default.index.content.idf
    best_two = sorted([by_name["shop/pricing.py:Coupon"], by_name["shop/pricing.py:Coupon.apply_discount"],
                       by_name["shop/pricing.py:Coupon.expired"]])[-2:]  # fmt: skip
    expected = plain.scores[1] + sum(best_two) + 3.0 * (idf("coupon") + idf("apply_discount") + idf("expired"))
    assert answer.scores == pytest.approx([expected, plain.scores[0]], rel=1e-12)
    assert answer.functions[0] == "shop/pricing.py:Coupon.apply_discount"
    assert answer.modules == ["shop/pricing.py:Coupon", "shop/views.py:page"]


def test_bad_definition_parameters_are_rejected() -> None:
    with pytest.raises(ValueError, match="best_definitions >= 1 and support_definitions >= 0, got 0 and 2"):
        BM25Agent(best_definitions=0)
    with pytest.raises(ValueError, match="definition_weight, mention_weight and support_weight >= 0, got -1.0, 3.0 and 0.5"):
        BM25Agent(definition_weight=-1.0)
    with pytest.raises(ValueError, match="got 1.0, 3.0 and -0.5"):
        BM25Agent(support_weight=-0.5)


def test_a_module_several_of_whose_definitions_match_outranks_one_with_a_single_match() -> None:
    # text scaled by the best (3.0), plus half the file score scaled by the best (both files 1.0):
    # render 1.5, helper_fn 1.1667, parse_row 1.1667, Parser 1.0, Widget 0.8333, helper 0.6667
    alone = rank_scored(SCORED, 2, [2.0, 2.0], file_weight=0.5)
    assert alone.modules == ["a.py:Widget", "b.py:helper_fn", "b.py:Parser", "a.py:helper"]
    assert rank_scored(SCORED, 2, [2.0, 2.0], support_weight=0.5, support_definitions=0).modules == alone.modules
    # Widget: 1.5 + 0.5 x 1/3 (its class text); Parser: 1.1667 + 0.5 x 0.5 (its class text); helper_fn has one
    supported = rank_scored(SCORED, 2, [2.0, 2.0], support_weight=0.5, support_definitions=2)
    assert supported.modules == ["a.py:Widget", "b.py:Parser", "b.py:helper_fn", "a.py:helper"]
    assert supported.functions == alone.functions  # functions are ranked as before


def test_names_split_at_every_languages_separators() -> None:
    from pytest_codesearch.agents.index.functions import name_parts

    assert name_parts("a.py:Widget.render") == ["Widget", "render"]
    assert name_parts("src/cart.cpp:shop::billing::Cart::add") == ["shop", "billing", "Cart", "add"]
    assert name_parts("src/lib.rs:store::Cart.add") == ["store", "Cart", "add"]
    cpp = ScoredEntities((_doc("src/cart.cpp:shop::Cart::add"),), (0,), (1.0,))
    idf = {"add": 2.0, "cart": 0.5}.__getitem__
    assert cpp.named(1, "Cart::add() overflows", idf) == [2.5]  # both parts of a C++ name are words of it
    assert cpp.plus_names("add overflows", idf, 3.0).text == (7.0,)  # its own name: the last part, "add"
