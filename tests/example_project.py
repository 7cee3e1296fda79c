"""A small example project and gold set for tests that run the plugin through pytester."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# A tiny "repository" (a plain directory) and cases whose answers are known.
SOURCE_FILES = {
    "src/app.py": "def create_app():\n    return Flask(__name__)\n",
    "src/routes.py": "def register_routes(app):\n    app.route('/login')(login_view)\n",
    "src/auth/login.py": "def login_view():\n    check_password()\n",
    "src/auth/password.py": "def check_password():\n    return hash_password('x')\n",
    "README.md": "An example project about login and passwords.\n",
}

CASES: list[dict[str, Any]] = [
    {"id": "login", "query": "login view", "ground_truth_files": ["src/auth/login.py"], "complexity": "low",
     "category": "auth"},
    {"id": "password", "query": "check password hashing",
     "ground_truth_files": [{"path": "src/auth/password.py", "relevance": 2}, "src/auth/login.py"],
     "complexity": "medium", "category": "auth"},
    {"id": "app", "query": "create the flask app", "ground_truth_files": ["src/app.py"], "complexity": "low",
     "category": "core"},
]


def write_project(
    root: Path,
    cases: Sequence[dict[str, Any]] = CASES,
    name: str = "cases.jsonl",
    metadata: dict[str, Any] | None = None,
) -> Path:
    """Write SOURCE_FILES under root/repo and a JSONL gold set in root searching it; return the gold set."""
    for rel, text in SOURCE_FILES.items():
        path = root / "repo" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    meta = {"name": "example", "repo": "repo"} if metadata is None else metadata
    lines = [json.dumps({"metadata": meta})] + [json.dumps(c) for c in cases]
    goldset = root / name
    goldset.write_text("\n".join(lines) + "\n")
    return goldset


def read_results(root: Path, report_dir: str = "codesearch-report") -> dict[str, Any]:
    """Return the parsed results.json of a run made in ``root``."""
    data: dict[str, Any] = json.loads((root / report_dir / "results.json").read_text())
    return data
