"""Import again, in a child process, a module pytest loaded: under the same name, from the same file.

pytest imports a ``conftest.py`` by its path (``--import-mode``): as ``conftest`` with its directory put
on ``sys.path`` (prepend, append), or under a package or rootdir-relative name (``pkg.sub.conftest``,
``tests.conftest``) without touching ``sys.path`` (importlib). Another file on ``sys.path`` may answer
to the same name. So a module is imported by its name only when that name finds the same file, else
from the file itself, its parent packages first, each found the same way (as pytest's
``_import_module_using_spec`` does). Each module is imported once per process, under the name the parent
gave it: a module that imports it gets the same module, and nothing it registers is registered twice.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

MAIN_ALIAS = "__codesearch_main__"
"""The name a script's module (``__main__`` in the parent) is imported under: its main block must not run."""


def import_as(name: str, file: str | None) -> ModuleType:
    """Return the module ``name`` as loaded from ``file`` (by name alone when ``file`` is None)."""
    if name == "__main__":
        name = MAIN_ALIAS
    if file is None:
        return importlib.import_module(name)
    return _import_as(name, Path(file))


def _import_as(name: str, path: Path) -> ModuleType:
    """``path`` is a module's file, a package's ``__init__.py`` or a namespace package's directory."""
    loaded = sys.modules.get(name)
    if loaded is not None and _is_at(loaded, path):
        return loaded
    parent_name, _, child = name.rpartition(".")
    parent: ModuleType | None = None
    if parent_name:
        parent = sys.modules.get(parent_name)
        if parent is None or not hasattr(parent, "__path__"):
            above = path.parent.parent if path.name == "__init__.py" else path.parent
            parent = _import_as(parent_name, _package_at(above))
    try:
        found = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        found = None
    if found is not None and _spec_is_at(found, path):
        return importlib.import_module(name)
    module = _load(name, path)
    if parent is not None:
        setattr(parent, child, module)
    return module


def _package_at(directory: Path) -> Path:
    init = directory / "__init__.py"
    return init if init.is_file() else directory


def _load(name: str, path: Path) -> ModuleType:
    if path.is_dir():  # a namespace package: a module whose __path__ lets its submodules be found
        module = ModuleType(name)
        module.__path__ = [str(path)]
        sys.modules[name] = module
        return module
    search = [str(path.parent)] if path.name == "__init__.py" else None
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=search)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path} as {name}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _is_at(module: ModuleType, path: Path) -> bool:
    if path.is_dir():
        return any(_same(entry, path) for entry in getattr(module, "__path__", ()))
    return _same(getattr(module, "__file__", None), path)


def _spec_is_at(spec: importlib.machinery.ModuleSpec, path: Path) -> bool:
    if path.is_dir():
        return any(_same(entry, path) for entry in spec.submodule_search_locations or ())
    return _same(spec.origin, path)


def _same(first: str | None, second: Path) -> bool:
    return first is not None and os.path.realpath(first) == os.path.realpath(second)
