"""A small repository and SWE-bench-style instances of it, built with pygit2, for the scoring profiles.

The first instance's fix changes ``RST.__init__``, the class body of ``RST`` (an attribute), ``helper`` in
``pkg/rst.py``, the class body of ``Config`` and ``fmt`` in ``pkg/util.py``. The second changes ``helper``.
"""

from __future__ import annotations

import json
from pathlib import Path

from gitrepo import commit, init_repo

RST = '''\
class RST:
    header = 1

    def __init__(self):
        self.x = 1

    def write(self, lines):
        return lines


def helper():
    return 2
'''
UTIL = '''\
class Config:
    debug = False


def fmt(value):
    return str(value)
'''


def build_instances(root: Path) -> Path:
    """Create the repository under ``root / "rst"`` and write ``root / "instances.jsonl"``; return the latter."""
    repo = init_repo(root / "rst")
    base = commit(repo, {"pkg/rst.py": RST, "pkg/util.py": UTIL}, "Base")
    first = commit(repo, {
        "pkg/rst.py": RST.replace("header = 1", "header = 2").replace("self.x = 1", "self.x = 2")
        .replace("return 2", "return 3"),
        "pkg/util.py": UTIL.replace("debug = False", "debug = True").replace("str(value)", "repr(value)"),
    }, "Fix one")  # fmt: skip
    second = commit(repo, {"pkg/rst.py": RST.replace("return 2", "return 4")}, "Fix two", parents=[base], branch="two")
    lines = []
    for number, fixed in enumerate((first, second), start=1):
        patch = repo.diff(base, fixed).patch
        record = {"instance_id": f"acme__rst-{number}", "repo": "acme/rst", "base_commit": base,
                  "problem_statement": f"problem {number}", "patch": patch}  # fmt: skip
        lines.append(json.dumps(record))
    path = root / "instances.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path
