"""BM25 answers functions and modules too: the functions of its best files, ranked by their own text."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pytest_codesearch.agents.builtin.bm25 import BM25Agent
from pytest_codesearch.agents.index.functions import file_entities, rank_entities

AUTH = '''class Session:
    """A logged-in user."""

    def login(self, user, password):
        return check_password(user, password) and self.start()

    def logout(self):
        self.end()


def check_password(user, password):
    return hash_password(password) == user.password_hash
'''
DATABASE = '''def connect(url):
    return open_connection(url)


def migrate(connection):
    connection.run_migrations()
'''


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A project with two Python modules and a README."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "auth.py").write_text(AUTH)
    (tmp_path / "app" / "db.py").write_text(DATABASE)
    (tmp_path / "README.md").write_text("login and password handling, and a database connection\n")
    for name in ("cache", "mail", "render", "routes"):  # more files, so that a rare word weighs (idf > 0)
        (tmp_path / "app" / f"{name}.py").write_text(f"def {name}_setup(app):\n    return app.{name}\n")
    return tmp_path


def test_a_file_gives_its_functions_and_top_level_definitions() -> None:
    docs = file_entities("app/auth.py", AUTH.encode())
    assert [(d.name, d.module, d.is_function) for d in docs] == [
        ("app/auth.py:Session", "app/auth.py:Session", False),
        ("app/auth.py:Session.login", "app/auth.py:Session", True),
        ("app/auth.py:Session.logout", "app/auth.py:Session", True),
        ("app/auth.py:check_password", "app/auth.py:check_password", True),
    ]
    login = docs[1]
    # its lines' tokens, plus its qualified name's tokens twice more
    # "password" three times: the parameter, the argument, and a part of check_password
    assert login.counts["login"] == 1 + 2 and login.counts["session"] == 2 and login.counts["password"] == 3
    assert file_entities("README.md", b"def x(): pass\n") == ()


def test_functions_rank_by_their_text_plus_their_files_score() -> None:
    docs = {"app/auth.py": file_entities("app/auth.py", AUTH.encode()), "app/db.py": file_entities("app/db.py", DATABASE.encode())}
    ranking = rank_entities(
        ["app/db.py", "app/auth.py"], [2.0, 1.0], ["password"], docs.__getitem__, lambda t: 1.0, file_weight=0.0
    )
    # only the functions holding "password" score above 0 without a file prior: check_password is shorter
    assert ranking.functions == ["app/auth.py:check_password", "app/auth.py:Session.login"]
    assert ranking.modules == ["app/auth.py:check_password", "app/auth.py:Session"]
    with_prior = rank_entities(
        ["app/db.py", "app/auth.py"], [2.0, 1.0], ["password"], docs.__getitem__, lambda t: 1.0, file_weight=5.0
    )
    # a heavy file prior puts the best file's functions first, in source order
    assert with_prior.functions[:2] == ["app/db.py:connect", "app/db.py:migrate"]


def test_the_bm25_agent_answers_functions_and_modules_of_its_best_files(repo: Path) -> None:
    agent = BM25Agent()
    agent.initialize(str(repo))
    answer = agent.retrieve("login fails for a wrong password")
    assert answer.files[0] == "app/auth.py"
    assert answer.functions[0] == "app/auth.py:Session.login"
    assert answer.modules[0] == "app/auth.py:Session"
    assert set(answer.functions) <= {"app/auth.py:Session.login", "app/auth.py:Session.logout",
                                     "app/auth.py:check_password", "app/db.py:connect", "app/db.py:migrate"}
    assert Counter(answer.modules).most_common(1)[0][1] == 1  # each module once


def test_entity_files_zero_answers_files_alone(repo: Path) -> None:
    agent = BM25Agent(entity_files=0)
    agent.initialize(str(repo))
    answer = agent.retrieve("login password")
    assert answer.files and answer.functions == [] and answer.modules == []


def test_hybrid_fuses_the_functions_and_modules_of_its_members(repo: Path) -> None:
    from pytest_codesearch.agents.builtin.hybrid import HybridAgent

    fused = HybridAgent.of_names("bm25+path")
    fused.initialize(str(repo))
    answer = fused.retrieve("login fails for a wrong password")
    alone = BM25Agent()
    alone.initialize(str(repo))
    expected = alone.retrieve("login fails for a wrong password")
    # path answers no function: the fusion of bm25's list alone keeps its order
    assert answer.functions == expected.functions and answer.modules == expected.modules


def test_score_fusion_keeps_how_far_ahead_a_member_is_and_takes_any_agent() -> None:
    from pytest_codesearch.agents.builtin.hybrid import HybridAgent, score_fusion
    from pytest_codesearch.agents.contract import RetrievalResult

    a = RetrievalResult(files=["x.py", "y.py", "z.py"], scores=[10.0, 1.0, 0.0])
    b = RetrievalResult(files=["y.py", "z.py", "x.py"], scores=[3.0, 2.9, 2.8])
    fused = score_fusion([a, b], [1.0, 1.0])
    # x: 1 + 0 = 1; y: 0.1 + 1 = 1.1; z: 0 + 0.5 = 0.5
    assert fused.files == ["y.py", "x.py", "z.py"]
    assert [round(s, 6) for s in fused.scores] == [1.1, 1.0, 0.5]

    def mine(query: str) -> list[str]:  # a plain callable member, a user's agent
        return ["z.py", "x.py"]

    hybrid = HybridAgent([("mine", mine), ("mine-again", mine)], method="score", weights=[1.0, 2.0])
    hybrid.initialize("/nowhere")
    # no scores: 1 / rank, normalised: z 1.0, x 0.0 for each member
    assert hybrid.retrieve("q").files == ["z.py", "x.py"]
    with pytest.raises(ValueError, match="method='max'"):
        HybridAgent([("mine", mine)], method="max")


def test_other_languages_give_entities_by_their_outline() -> None:
    go = b"package cart\n\ntype Cart struct{ items []int }\n\nfunc (c *Cart) Add(item int) {\n\tc.items = append(c.items, item)\n}\n"
    docs = file_entities("cart/cart.go", go)
    # a Go method is top level, so its own module, as the truth names it (``outline/modules.py``)
    assert ("cart/cart.go:Cart.Add", "cart/cart.go:Cart.Add", True) in [(d.name, d.module, d.is_function) for d in docs]
    assert file_entities("notes.txt", b"def f(): pass\n") == ()


def test_a_files_modules_follow_the_truths_rule_in_every_language() -> None:
    from test_function_answers import CART_CPP, SHOP_RB

    cpp = {d.name: d.module for d in file_entities("src/cart.cpp", CART_CPP.encode())}
    assert cpp == {
        "src/cart.cpp:shop::billing::Cart": "src/cart.cpp:shop::billing::Cart",
        "src/cart.cpp:shop::billing::Cart::add": "src/cart.cpp:shop::billing::Cart",  # defined in its class
        "src/cart.cpp:shop::billing::Cart::total": "src/cart.cpp:shop::billing::Cart::total",  # outside it
    }
    ruby = {d.name: d.module for d in file_entities("lib/shop.rb", SHOP_RB.encode()) if d.is_function}
    assert ruby == {"lib/shop.rb:Shop.Cart.add": "lib/shop.rb:Shop.Cart"}  # a Ruby module is no module
