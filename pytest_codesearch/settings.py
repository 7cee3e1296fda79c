"""One settings object from the command line and ini file, validated with messages that say where."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_KS = (1, 5, 10)
DEFAULT_RUNS = 3
DEFAULT_REPORT_DIR = "codesearch-report"
DEFAULT_CACHE_DIR = ".codesearch"
DEFAULT_BOOTSTRAP = 1000
DEFAULT_ALPHA = 0.05


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


def build_settings(
    agents: Sequence[str],
    seed: object,
    runs: object,
    k: object,
    ks: object,
    report_dir: str,
    cache_dir: str,
    base: Path,
    cache_base: Path,
    f_beta: object = None,
    bootstrap: object = DEFAULT_BOOTSTRAP,
    alpha: object = DEFAULT_ALPHA,
) -> Settings:
    """Return validated settings; relative directories are taken from ``base`` / ``cache_base``."""
    return Settings(
        agents=parse_agent_names(agents),
        seed=None if seed in (None, "") else parse_seed(seed, "--codesearch-seed"),
        runs=parse_positive_int(runs, "--codesearch-runs"),
        k=None if k in (None, "") else parse_positive_int(k, "--codesearch-k"),
        ks=parse_ks(ks, "--codesearch-ks"),
        report_dir=base / report_dir,
        cache_dir=cache_base / cache_dir,
        f_beta=None if f_beta in (None, "") else parse_float(f_beta, "--codesearch-f-beta", 0.0),
        bootstrap=parse_positive_int(bootstrap, "--codesearch-bootstrap", minimum=100),
        alpha=parse_float(alpha, "--codesearch-alpha", 0.0, 1.0),
    )
