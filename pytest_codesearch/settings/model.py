"""One settings object from the command line, the YAML benchmark file, the ini file and the defaults.

Each source is a layer (option field -> the raw value and where it came from); for each option of the
table the first layer that gives a value wins (command line > YAML > ini > default), and only that value
is parsed, so an error names the source actually used.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, cast

from pytest_codesearch.settings.options import OPTIONS
from pytest_codesearch.settings.types import Origin, SettingsError

__all__ = ["Given", "Layer", "Settings", "SettingsError", "build_settings", "default_settings", "winner"]


@dataclass(frozen=True)
class Settings:
    """What the user asked of this run; one field per row of ``options.OPTIONS`` (the table gives the
    defaults: ``build_settings``, or ``default_settings`` in code)."""

    agents: tuple[str, ...]
    seed: int | None
    runs: int
    k: int | None
    ks: tuple[int, ...]
    randomize: bool
    timeout: float | None
    """Seconds one ``retrieve`` call may take (None: no limit)."""
    index_timeout: float
    """Seconds one ``initialize`` call may take."""
    isolate: str
    """Where agents run: ``none``, ``process`` or ``auto`` (see ``isolation``)."""
    retries: int
    max_answer: int
    warmup: int
    shard: tuple[int, int] | None
    """(I, N): run the I-th of N shards; None runs every item."""
    merge: tuple[Path, ...]
    """Report directories whose journals ``--codesearch-merge`` merges."""
    validate: bool
    """``--codesearch-validate``: check the gold sets among the paths, run nothing."""
    resume: bool
    f_beta: float | None
    bootstrap: int
    alpha: float
    report_dir: Path
    formats: tuple[str, ...]
    headline: tuple[str, ...]
    """Metric names shown as the headline; empty: chosen automatically."""
    cache_dir: Path
    cache_size: int | None
    """Bytes the snapshot cache may hold (None: unbounded); see ``repo/prune.py``."""
    config_path: Path | None
    generate: bool
    repo: Path | None
    rev: str
    output: Path | None
    convert: Path | None
    """``--codesearch-convert``: the gold set to write as native JSONL (None: run cases)."""
    repo_map: tuple[tuple[str, Path], ...]
    """Repository names (``owner/name``, URLs) to local clones."""
    allow_any_repo: bool
    """Whether a gold set's ``repo`` may be any directory (else a git repository or inside the rootdir)."""
    predictions: Path | None
    """The predictions the built-in ``replay`` agent answers with (None: it cannot be used)."""
    entity_truth: str
    """SWE-bench entity truth: ``patch`` (derived) or ``dataset`` (the instance's ``edit_functions``)."""
    profile: str
    """The scoring profile (``scoring/profiles/``): ``native``, ``locagent``, ``cosil`` or ``orcaloca``."""
    truth: Path | None
    """A truth file replacing the derived truth of the cases it names (None: none)."""
    blind: bool
    """Each agent also answers with an empty repository, as ``NAME-blind`` (``--codesearch-blind``)."""
    limit: int | None
    """Run only this many cases (None: all)."""
    sample: str
    """How the limited cases are picked: ``first`` or ``stratified``."""
    name: str | None
    """The name mined case ids start with (None: the repository's folder name)."""
    generate_lines: bool
    """Mined cases record their line ranges, functions and modules."""
    progress: str
    """Progress lines while cases run: ``auto`` (a terminal, not ``-q``, not CI), ``on`` or ``off``."""
    no_save: bool
    """Do not save the run under ``<cache_dir>/history/``."""
    history_keep: int
    """Saved runs kept in the history; the oldest beyond are removed when a run is saved."""
    history: bool
    compare: tuple[str, ...]
    """Saved runs ``--codesearch-compare`` compares (paths, ids, ``latest``, ``previous``)."""
    fail_under: str | None
    """Gate floors, e.g. ``ndcg@10=0.40`` (parsed by ``runs.gates.parse_floors``)."""
    baseline: str | None
    fail_on: str | None
    """Gate tolerances against the baseline, e.g. ``ndcg@10:-0.02`` (``runs.gates.parse_tolerances``)."""
    gate_any: bool
    trec: Path | None
    """Where TREC qrels and run files go (None: not written)."""

    def __post_init__(self) -> None:
        if self.sample == "stratified" and self.limit is None:
            raise SettingsError("--codesearch-sample: stratified sampling needs --codesearch-limit N (how many cases)")

    @property
    def isolation(self) -> str:
        """Return the isolation level the pool uses: ``auto`` means ``none`` unless a retrieval budget is set."""
        if self.isolate == "auto" and self.timeout is None:
            return "none"
        return self.isolate

    @functools.cached_property
    def truth_cache(self) -> Path:
        """Return the folder, under the cache dir, of the truth derived from patches and of file outlines."""
        return self.cache_dir / "truth"

    @property
    def active(self) -> bool:
        """Return True when at least one agent is selected: otherwise the plugin stays out of the way."""
        return bool(self.agents)


@dataclass(frozen=True)
class Given:
    """A raw value one source gives for one option, with where it came from."""

    value: object
    origin: Origin


Layer = Mapping[str, Given]
"""One source's values, by ``Settings`` field."""


def _given(value: object) -> bool:
    return value is not None and value != "" and value != [] and value != ()


def winner(layers: Sequence[Layer], field: str) -> Given | None:
    """Return the value the first layer gives for ``field`` (empty values do not count), or None."""
    for layer in layers:
        given = layer.get(field)
        if given is not None and _given(given.value):
            return given
    return None


def build_settings(layers: Sequence[Layer], invocation_dir: Path, rootdir: Path) -> Settings:
    """Return validated settings: for each option the first layer's value, else its default.

    Layers come in precedence order (command line, YAML file, ini file). A relative default path is
    taken from ``invocation_dir`` or ``rootdir``, as its row says. Raises SettingsError naming the source.
    """
    values: dict[str, object] = {}
    for option in OPTIONS:
        given = winner(layers, option.field)
        if given is None and option.default is None:
            values[option.field] = None
            continue
        if given is None:
            base = rootdir if option.default_base == "rootdir" else invocation_dir
            given = Given(option.default, Origin(f"default of {option.field}", base, typed=True))
        values[option.field] = option.type.parse(given.value, given.origin)
    return Settings(**cast("dict[str, Any]", values))


def default_settings(base: Path | None = None, **values: Any) -> Settings:
    """Return the table's defaults (relative paths from ``base``, else the current folder) with ``values``
    (typed ``Settings`` field values) replacing some: settings for code that runs cases without pytest."""
    here = Path.cwd() if base is None else base
    return dataclasses.replace(build_settings([], here, here), **values)


def settings_fields() -> tuple[str, ...]:
    """Return the names of the ``Settings`` fields (for the test that keeps them equal to the table)."""
    return tuple(f.name for f in fields(Settings))
