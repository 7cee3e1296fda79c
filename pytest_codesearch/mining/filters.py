"""``FilterConfig``: which commits of a history become cases, settable from the YAML config's ``dataset:``.

Every field has a documented default (``docs/mining.md``). Unknown keys are errors, so a typo such as
``max_file`` is reported instead of silently ignored.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    field_validator,
    model_validator,
)

from pytest_codesearch.filekinds import DEFAULT_EXCLUDE
from pytest_codesearch.mining.classify import RULE_NAMES

__all__ = ["DEFAULT_BOT_AUTHORS", "DEFAULT_EXCLUDE", "FilterConfig"]

DEFAULT_BOT_AUTHORS: tuple[str, ...] = (
    "[bot]", "dependabot", "renovate", "pre-commit-ci", "github-actions", "greenkeeper", "snyk-bot",
    "pyup-bot", "mergify", "allcontributors", "weblate", "imgbot", "codecov",
)  # fmt: skip
"""Case-insensitive substrings of an author's name or email that mark a bot."""


def _as_aware_datetime(value: Any) -> Any:
    """Accept a date (YAML reads ``2024-01-31`` as one) as midnight UTC; naive datetimes are taken as UTC."""
    if isinstance(value, date) and not isinstance(value, datetime):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    if isinstance(value, str) and len(value.strip()) == 10:  # "2024-01-31"
        return value.strip() + "T00:00:00Z"
    return value


def _utc(value: datetime | None) -> datetime | None:
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value


Moment = Annotated[datetime, BeforeValidator(_as_aware_datetime)]


class FilterConfig(BaseModel):
    """Which commits become cases, and which of their files count as ground truth."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    exclude: list[str] = Field(
        default_factory=lambda: list(DEFAULT_EXCLUDE),
        description="Glob patterns of paths left out of the ground truth; setting it replaces the defaults.",
    )
    also_exclude: list[str] = Field(
        default_factory=list, description="More patterns, added to exclude (keeps the defaults)."
    )
    exclude_binary: StrictBool = Field(default=True, description="Leave out files whose content looks binary.")
    min_files: StrictInt = Field(default=1, ge=1, description="Fewest ground-truth files a case may have.")
    max_files: StrictInt | None = Field(
        default=50, ge=1, description="Most ground-truth files a case may have; null for no limit."
    )
    include_merges: StrictBool = Field(
        default=False, description="Mine merge commits too, diffed against their first parent."
    )
    since: Moment | None = Field(default=None, description="Only commits committed at or after this time.")
    until: Moment | None = Field(default=None, description="Only commits committed at or before this time.")
    max_commits: StrictInt | None = Field(
        default=None, ge=1, description="Stop after examining this many commits (newest first)."
    )
    bot_authors: list[str] = Field(
        default_factory=lambda: list(DEFAULT_BOT_AUTHORS),
        description="Case-insensitive substrings of author names or emails whose commits are dropped.",
    )
    drop_rules: list[str] = Field(
        default_factory=lambda: list(RULE_NAMES),
        description=f"Message rules to apply, by name: {', '.join(RULE_NAMES)}.",
    )
    min_query_words: StrictInt = Field(
        default=3, ge=1, description="Drop a case whose query has fewer words than this."
    )
    keep_leaky: StrictBool = Field(
        default=False, description="Keep cases whose query names a ground-truth file (marked leaky: true)."
    )
    rename_limit: StrictInt = Field(
        default=1000, ge=1, description="Most renames looked for in one commit (libgit2's rename_limit)."
    )

    @field_validator("since", "until")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        return _utc(value)

    @field_validator("drop_rules")
    @classmethod
    def _known_rules(cls, names: list[str]) -> list[str]:
        for name in names:
            if name not in RULE_NAMES:
                raise ValueError(f"unknown rule {name!r} (known rules: {', '.join(RULE_NAMES)})")
        return names

    @field_validator("exclude", "also_exclude", "bot_authors")
    @classmethod
    def _no_blank(cls, values: list[str]) -> list[str]:
        for value in values:
            if not value.strip():
                raise ValueError("entries must not be empty")
        return values

    @model_validator(mode="after")
    def _ranges(self) -> FilterConfig:
        if self.max_files is not None and self.max_files < self.min_files:
            raise ValueError(f"max_files ({self.max_files}) must be >= min_files ({self.min_files})")
        if self.since is not None and self.until is not None and self.since > self.until:
            raise ValueError(f"since ({self.since.isoformat()}) must not be after until ({self.until.isoformat()})")
        return self

    @property
    def exclude_patterns(self) -> list[str]:
        """Return every exclude pattern in effect: ``exclude`` then ``also_exclude``."""
        return [*self.exclude, *self.also_exclude]
