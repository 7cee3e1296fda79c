"""Compatibility: ``BM25Agent`` lives in ``agents/builtin/bm25.py``; this path (given by docs before 0.1) still imports it."""

from __future__ import annotations

from pytest_codesearch.agents.builtin.bm25 import BM25Agent

__all__ = ["BM25Agent"]
