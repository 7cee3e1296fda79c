"""Compatibility: ``HybridAgent`` lives in ``agents/builtin/hybrid.py``; this path (given by docs before 0.1) still imports it."""

from __future__ import annotations

from pytest_codesearch.agents.builtin.hybrid import HybridAgent

__all__ = ["HybridAgent"]
