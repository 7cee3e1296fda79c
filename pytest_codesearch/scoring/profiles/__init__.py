"""Scoring profiles: one module per published convention, behind one registry (``--codesearch-profile``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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


def score_profile(
    name: str,
    given_files: Sequence[str],
    cleaned: Mapping[int, str],
    functions: Sequence[str],
    truth_files: frozenset[str],
    truth_functions: Sequence[str],
    ks: tuple[int, ...],
) -> dict[str, float]:
    """Return the profile ``name``'s own metrics of one answer (none for a profile without any).

    ``given_files`` are the answer's files as given; ``cleaned`` maps the position of each that names a file
    of the snapshot to its cleaned path. The profile sees the files in their answered ranks, repeats and
    unknown entries kept (a paper's evaluator reads the list as given), each cleaned where it can be.
    """
    profile = get_profile(name)
    if profile.score is None:
        return {}
    ranked = [cleaned.get(i, entry) for i, entry in enumerate(given_files)]
    return profile.score(ProfileInput(ranked, given_files, functions, truth_files, truth_functions, ks))


__all__ = ["PROFILES", "Profile", "ProfileInput", "get_profile", "score_profile"]
