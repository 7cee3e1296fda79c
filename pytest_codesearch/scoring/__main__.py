"""Regenerate the metric tables of the given docs pages: ``python -m pytest_codesearch.scoring docs/metrics.md``."""

from __future__ import annotations

import sys
from pathlib import Path

from pytest_codesearch.scoring.registry import update_docs

for page in map(Path, sys.argv[1:]):
    page.write_text(update_docs(page.read_text(encoding="utf-8")), encoding="utf-8")
