"""The run's settings from a pytest config: command line, ini file and YAML file, read once per run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_codesearch.settings.options import OPTIONS
from pytest_codesearch.settings.types import Names, Origin, PathValue, SettingsError
from pytest_codesearch.settings.model import Given, Layer, Settings, build_settings, winner

if TYPE_CHECKING:
    from pytest_codesearch.settings.yamlfile import BenchFile

LOADED: pytest.StashKey[tuple[Settings, BenchFile | None]] = pytest.StashKey()
"""The settings and the YAML file of this run, once read."""


def load_settings(config: pytest.Config) -> tuple[Settings, BenchFile | None]:
    """Return the settings (command line > YAML file > ini file > defaults) and the YAML file, once per run."""
    loaded = config.stash.get(LOADED, None)
    if loaded is not None:
        return loaded
    here = config.invocation_params.dir
    cli = {o.field: Given(config.getoption(o.dest), Origin(o.flag, here)) for o in OPTIONS if o.flag}
    ini_file = shown(config.inipath, here) if config.inipath else "ini file"
    ini = {
        o.field: Given(config.getini(o.ini), Origin(f"{ini_file}: {o.ini}", config.rootpath)) for o in OPTIONS if o.ini
    }
    try:
        bench = load_bench(_config_path([cli, ini]), here)
        layers: list[Layer] = [cli, ini] if bench is None else [cli, bench.layer(), ini]
        loaded = build_settings(layers, here, config.rootpath), bench
        if loaded[0].active and loaded[0].headline:
            _check_headline(loaded[0], winner(layers, "headline"))
    except SettingsError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[LOADED] = loaded
    return loaded


def _check_headline(settings: Settings, given: Given | None) -> None:
    """Raise SettingsError, naming the source, when a headline name is no metric of this run."""
    from pytest_codesearch.scoring.case import metric_names, optional_metric_names

    required = metric_names(settings.ks, settings.f_beta is not None, settings.profile)
    known = (*required, *optional_metric_names(settings.ks))
    if given is not None:
        Names(known).parse(given.value, given.origin)


def _config_path(layers: list[Layer]) -> Path | None:
    """Return the YAML file the command line or the ini file names (relative to where it was given)."""
    given = winner(layers, "config_path")
    return None if given is None else PathValue().parse(given.value, given.origin)


def shown(path: Path, here: Path) -> str:
    """Return ``path`` as errors show it: relative to the invocation directory when inside it."""
    try:
        return str(path.relative_to(here))
    except ValueError:
        return str(path)


def load_bench(path: Path | None, here: Path) -> BenchFile | None:
    """Return the YAML file when one is given; a bad one is a usage error naming file, line and key."""
    if path is None:
        return None
    from pytest_codesearch.settings.yamlfile import ConfigError, load_benchfile

    try:
        return load_benchfile(path, shown(path, here))
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
