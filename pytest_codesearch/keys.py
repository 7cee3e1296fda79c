"""Names the plugin, the collection nodes and the controller share (a leaf: imports nothing of ours).

Keeping them here breaks the import cycle plugin -> items -> plugin and plugin -> collector -> plugin.
"""

from __future__ import annotations

SEED_KEY = "codesearch_seed"
"""``workerinput`` key: the controller's seed, so every xdist worker collects the same order."""
POOL_FIXTURE = "_codesearch_pool"
"""The session fixture holding this process's agent runners."""
CASE_ATTRIBUTE = "codesearch_case"
"""Attribute of a call report carrying the case record as JSON text (crosses xdist intact)."""
INVALID_ATTRIBUTE = "codesearch_invalid"
"""Attribute of a call report carrying a broken gold-set entry as JSON text."""
JOURNAL_NAME = "journal.jsonl"
"""The case journal in the report directory: one JSON line per record, appended as records arrive."""
RESUME_KEY = "codesearch_resume"
"""``workerinput`` key: node ids the controller resumes, which every worker deselects alike."""
