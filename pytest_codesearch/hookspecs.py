"""Hooks that other plugins implement to extend pytest-codesearch."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_codesearch_transform_query(query: str, commit: Any, config: pytest.Config) -> str | None:
    """Rewrite a query mined from a commit message; return None to keep it.

    Called by ``pytest --codesearch-generate`` for every kept commit, with the rule-based query,
    the mined commit (``pytest_codesearch.mining`` record: message, changed files, ids) and the
    pytest config. The first non-None result wins. If the implementation raises, the rule-based
    query is kept and the case's ``query_source`` says the hook failed.

    Example: an LLM rewrite of commit messages into questions a user would ask::

        # conftest.py or an installed plugin
        def pytest_codesearch_transform_query(query, commit, config):
            return my_llm.rephrase_as_question(query)
    """
