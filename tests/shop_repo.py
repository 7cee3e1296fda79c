"""A small repository and a SWE-bench-style fix of it, built with pygit2 (ids are reproducible).

The fix changes two methods of ``Cart`` (``add``, ``total``) in ``pkg/shop.py``, the top-level ``fmt`` and
``unused`` in ``pkg/util.py``, deletes ``docs/legacy.txt`` and adds ``pkg/discount.py``. The data files under
``tests/data/swebench/`` hold its patch and its base commit id.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pygit2
from gitrepo import commit, init_repo

DATA = Path(__file__).parent / "data" / "swebench"
BASE = "f331e807570122f616f597e85896b61613a4d66e"
"""The base commit id the data files name (gitrepo ids are reproducible)."""

SHOP = '''\
"""Shopping cart."""


class Cart:
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)

    def remove(self, item):
        self.items.remove(item)

    def total(self):
        return sum(i.price for i in self.items)
'''
UTIL = '''\
import math


def fmt(value):
    return str(value)


def unused():
    return math.pi
'''
FIXED_SHOP = SHOP.replace(
    "        self.items.append(item)\n",
    "        if item not in self.items:\n            self.items.append(item)\n",
).replace("return sum(i.price for i in self.items)", "return round(sum(i.price for i in self.items), 2)")
FIXED_UTIL = UTIL.replace("return str(value)", 'return f"{value:.2f}"').replace(
    "def unused():\n", 'def unused():\n    """Never called."""\n'
)


def build_shop(path: Path) -> tuple[pygit2.Repository, str, str]:
    """Create the repository at ``path``; return it, the base commit id and the fix as a git patch."""
    repo = init_repo(path)
    base = commit(repo, {"pkg/shop.py": SHOP, "pkg/util.py": UTIL, "docs/legacy.txt": "a\nb\nc\n"}, "Base")
    files = {"pkg/shop.py": FIXED_SHOP, "pkg/util.py": FIXED_UTIL, "docs/legacy.txt": None}
    files["pkg/discount.py"] = "RATE = 0.1\n"
    fixed = commit(repo, files, "Fix the cart")
    patch = repo.diff(base, fixed).patch  # what SWE-bench's `patch` field holds: git diff base..fix
    assert patch is not None
    return repo, base, patch


def swebench_workspace(root: Path, layout: str = "acme__shop") -> Path:
    """Copy the SWE-bench data files into ``root`` beside the shop repository, built at ``root / layout``."""
    _, base, _ = build_shop(root / layout)
    assert base == BASE, "the data files name another base commit: regenerate them"
    for source in DATA.iterdir():
        shutil.copy(source, root / source.name)
    return root
