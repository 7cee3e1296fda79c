"""One settings object from the command line and ini file, validated with messages that say where."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_KS = (1, 5, 10)
DEFAULT_RUNS = 3
DEFAULT_REPORT_DIR = "codesearch-report"
DEFAULT_CACHE_DIR = ".codesearch"
DEFAULT_BOOTSTRAP = 1000
DEFAULT_ALPHA = 0.05
DEFAULT_INDEX_TIMEOUT = 600.0
from pytest_codesearch.report.formats import REPORT_FORMATS as _FORMAT_REGISTRY

REPORT_FORMATS = tuple(_FORMAT_REGISTRY)
"""Every report format's name, from the report-format registry."""


class SettingsError(ValueError):
    """A setting with a bad value; str() names the option and the value."""


@dataclass(frozen=True)
class Settings:
    """What the user asked of this run."""

    agents: tuple[str, ...]
    seed: int | None
    runs: int
    k: int | None
    ks: tuple[int, ...]
    report_dir: Path
    cache_dir: Path
    f_beta: float | None = None
    bootstrap: int = DEFAULT_BOOTSTRAP
    alpha: float = DEFAULT_ALPHA
    timeout: float | None = None
    index_timeout: float | None = None
    isolate: str = "auto"
    retries: int = 0
    warmup: int = 0
    headline: tuple[str, ...] = ()
    shard: tuple[int, int] | None = None
    resume: bool = False
    max_answer: int = 1000
    randomize: bool = True
    formats: tuple[str, ...] = ("json", "csv", "markdown")
    config_path: Path | None = None

    @property
    def isolation(self) -> str:
        """Return the isolation level the pool uses: ``auto`` means ``none`` unless a retrieval budget is set."""
        if self.isolate == "auto" and self.timeout is None:
            return "none"
        return self.isolate

    @property
    def active(self) -> bool:
        """Return True when at least one agent is selected: otherwise the plugin stays out of the way."""
        return bool(self.agents)


def parse_agent_names(values: Iterable[str]) -> tuple[str, ...]:
    """Return the agent names from repeated, comma-separated values, in order, without blanks."""
    names: list[str] = []
    for value in values:
        for part in _split_top_level_commas(value):
            name = part.strip()
            if name and name not in names:
                names.append(name)
    return tuple(names)


def _split_top_level_commas(value: str) -> list[str]:
    """Split on commas outside brackets, so 'bm25[a,b],keyword' stays two names."""
    parts, depth, current = [], 0, ""
    for char in value:
        depth += (char == "[") - (char == "]")
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def parse_positive_int(value: object, where: str, minimum: int = 1) -> int:
    """Return value as an int >= minimum, or raise SettingsError naming ``where``."""
    try:
        number = int(str(value).strip())
    except ValueError:
        raise SettingsError(f"{where}: expected an integer, got {value!r}") from None
    if number < minimum:
        raise SettingsError(f"{where}: must be at least {minimum}, got {number}")
    return number


def parse_ks(value: object, where: str) -> tuple[int, ...]:
    """Return the cut-offs from '1,5,10' (sorted, unique), or raise SettingsError naming ``where``."""
    parts = [p for p in str(value).replace(" ", "").split(",") if p]
    if not parts:
        raise SettingsError(f"{where}: give at least one cut-off, e.g. 1,5,10")
    return tuple(sorted({parse_positive_int(p, where) for p in parts}))


def parse_float(value: object, where: str, low: float, high: float | None = None) -> float:
    """Return value as a float in [low, high] (or > low when high is None), or raise SettingsError."""
    try:
        number = float(str(value).strip())
    except ValueError:
        raise SettingsError(f"{where}: expected a number, got {value!r}") from None
    if number != number or number <= low or (high is not None and number >= high):
        bounds = f"between {low} and {high}" if high is not None else f"greater than {low}"
        raise SettingsError(f"{where}: must be {bounds}, got {value!r}")
    return number


def parse_seed(value: object, where: str) -> int:
    """Return the seed as a non-negative int, or raise SettingsError naming ``where``."""
    return parse_positive_int(value, where, minimum=0)


def first_given(*sources: Mapping[str, object]) -> dict[str, object]:
    """Merge raw values: for each key the first source (command line, YAML, ini) that gives one wins."""
    merged: dict[str, object] = {}
    for source in sources:
        for key, value in source.items():
            if key not in merged and value not in (None, "", [], ()):
                merged[key] = value
    return merged


def build_settings(raw: Mapping[str, object], base: Path, cache_base: Path) -> Settings:
    """Return validated settings from merged raw values; relative directories are taken from ``base``
    (reports) and ``cache_base`` (snapshots). Missing keys take their defaults."""
    get = raw.get
    agents = get("agents") or ()
    formats = tuple(str(f) for f in (get("formats") or REPORT_FORMATS))  # type: ignore[attr-defined]
    return Settings(
        agents=parse_agent_names(agents if not isinstance(agents, str) else [agents]),  # type: ignore[arg-type]
        seed=None if get("seed") is None else parse_seed(get("seed"), "--codesearch-seed"),
        runs=parse_positive_int(get("runs", DEFAULT_RUNS), "--codesearch-runs"),
        k=None if get("k") is None else parse_positive_int(get("k"), "--codesearch-k"),
        ks=parse_ks(get("ks", ",".join(map(str, DEFAULT_KS))), "--codesearch-ks"),
        report_dir=base / str(get("report_dir", DEFAULT_REPORT_DIR)),
        cache_dir=cache_base / str(get("cache_dir", DEFAULT_CACHE_DIR)),
        f_beta=None if get("f_beta") is None else parse_float(get("f_beta"), "--codesearch-f-beta", 0.0),
        bootstrap=parse_positive_int(get("bootstrap", DEFAULT_BOOTSTRAP), "--codesearch-bootstrap", minimum=100),
        alpha=parse_float(get("alpha", DEFAULT_ALPHA), "--codesearch-alpha", 0.0, 1.0),
        timeout=None if get("timeout") is None else parse_float(get("timeout"), "--codesearch-timeout", 0.0),
        resume=bool(get("resume", False)),
        warmup=parse_positive_int(get("warmup", 0), "--codesearch-warmup", minimum=0),
        shard=None if get("shard") is None else _parse_shard(get("shard")),
        retries=parse_positive_int(get("retries", 0), "--codesearch-retries", minimum=0),
        max_answer=parse_positive_int(get("max_answer", 1000), "--codesearch-max-answer"),
        isolate=_parse_choice(get("isolate", "auto"), "--codesearch-isolate", ("auto", "none", "process")),
        index_timeout=parse_float(get("index_timeout", DEFAULT_INDEX_TIMEOUT), "--codesearch-index-timeout", 0.0),
        randomize=bool(get("randomize", True)),
        formats=_parse_formats(formats),
        config_path=None if get("config") is None else Path(str(get("config"))),
    )


def _parse_shard(value: object) -> tuple[int, int]:
    from pytest_codesearch.shard import ShardError, parse_shard

    try:
        return parse_shard(str(value))
    except ShardError as exc:
        raise SettingsError(str(exc)) from None


def _parse_choice(value: object, where: str, choices: tuple[str, ...]) -> str:
    text = str(value).strip()
    if text not in choices:
        raise SettingsError(f"{where}: expected one of {', '.join(choices)}, got {value!r}")
    return text


def _parse_formats(formats: Sequence[str]) -> tuple[str, ...]:
    unknown = [f for f in formats if f not in REPORT_FORMATS]
    if unknown:
        raise SettingsError(f"output formats: unknown {unknown}; choose from {', '.join(REPORT_FORMATS)}")
    return tuple(dict.fromkeys(formats))
