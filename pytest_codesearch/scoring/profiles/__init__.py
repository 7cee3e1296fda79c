"""Scoring profiles: one module per published convention, behind one registry (``--codesearch-profile``)."""

from __future__ import annotations

from pytest_codesearch.scoring.profiles import cosil, locagent, native, orcaloca
from pytest_codesearch.scoring.profiles.base import Profile, ProfileInput

PROFILES: dict[str, Profile] = {p.name: p for p in (native.PROFILE, locagent.PROFILE, cosil.PROFILE, orcaloca.PROFILE)}
"""Every profile by name, ``native`` first."""


def get_profile(name: str) -> Profile:
    """Return the profile called ``name``; raise ValueError naming the known ones otherwise."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown scoring profile {name!r}; known: {', '.join(PROFILES)}") from None


__all__ = ["PROFILES", "Profile", "ProfileInput", "get_profile"]
