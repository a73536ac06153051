"""Sentence embeddings from a local sentence-transformers model; nothing from a model hub."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from rag.errors import ConfigError
from rag.index.model_files import BUNDLED_MODEL, model_layout, model_name, model_path

if TYPE_CHECKING:
    from rag.index.late_chunking import LateDocument

log = logging.getLogger(__name__)

QUERY_TEXTS = 4  # at most this many texts count as a query: embedded on one thread


class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return one normalized row per text."""
        ...


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
            # bench/retrieval/retrieval.py). Batches such as an ingest keep every thread.
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

    def embed_late(self, documents: Sequence[LateDocument]) -> list[np.ndarray]:
        """Return each document's passage vectors, pooled from one encode of its whole text.

        See `rag.index.late_chunking`; used by ingest when `passage_vectors` is "late".
        """
        from rag.index.late_chunking import late_vectors

        with self._lock:
            return late_vectors(self._model, documents, batch_size=self.batch_size)


_CACHE: dict[tuple[str, int], SentenceTransformerEmbedder] = {}
_QUERY_CACHE: dict[tuple[str, int, str, str], Embedder] = {}
_CACHE_LOCK = threading.Lock()


def load_embedder(model: str = BUNDLED_MODEL, batch_size: int = 64) -> SentenceTransformerEmbedder:
    """Return the embedder for `model`, loaded once per process."""
    with _CACHE_LOCK:
        key = (model, batch_size)
        if key not in _CACHE:
            _CACHE[key] = SentenceTransformerEmbedder(model, batch_size)
        return _CACHE[key]


def load_query_embedder(
    model: str = BUNDLED_MODEL,
    batch_size: int = 64,
    *,
    encoder: str = "onnx",
    onnx_dir: Path | None = None,
) -> Embedder:
    """Return the embedder for questions and sentences at query time, loaded once per process.

    With `encoder="onnx"` that is ONNX Runtime over the model's ONNX export (no torch; the
    same vectors as sentence-transformers, see `rag.index.onnx_embedding`). When there is no export
    yet it is made once, here (torch is imported for that one time), and said so on stderr.
    A model the ONNX path cannot reproduce, or an export that fails, falls back to
    sentence-transformers with a warning.

    Args:
        model: the bundled model's name or a local sentence-transformers folder.
        batch_size: texts per batch for the sentence-transformers fallback.
        encoder: "onnx" or "sentence-transformers".
        onnx_dir: the ONNX cache folder (default: `rag.index.onnx_cache.default_onnx_dir()`).
    """
    key = (model, batch_size, encoder, str(onnx_dir or ""))
    with _CACHE_LOCK:
        found = _QUERY_CACHE.get(key)
    if found is not None:
        return found
    loaded = _onnx_embedder(model, onnx_dir) if encoder == "onnx" else None
    if loaded is None:
        loaded = load_embedder(model, batch_size)
    with _CACHE_LOCK:
        return _QUERY_CACHE.setdefault(key, loaded)


def _onnx_embedder(model: str, onnx_dir: Path | None) -> Embedder | None:
    """Return the ONNX embedder of `model`, exporting it first if needed; None to fall back."""
    if model_layout(model_path(model)) is None:
        log.info("embedding model %s: no ONNX query encoder for its layout; using torch", model)
        return None
    try:
        from rag.index.onnx_embedding import OnnxEmbedder
        from rag.index.onnx_export import ensure_exported, exported_folder, is_exported

        folder = exported_folder(model, onnx_dir)
        if not is_exported(folder):
            log.warning(
                "making the ONNX query encoder of %s once, in %s (10-40 s; later commands "
                "reuse it without torch)",
                model,
                folder,
            )
            folder = ensure_exported(model, onnx_dir)
        return OnnxEmbedder(folder)
    except (ConfigError, ImportError, OSError, RuntimeError) as exc:
        # onnxruntime and the exporter raise RuntimeError subclasses for a bad graph
        log.warning("%s; embedding queries with sentence-transformers instead", exc)
        return None


def prepare_query_embedder(model: str, encoder: str, onnx_dir: Path | None) -> None:
    """Make the ONNX export of `model` now if it is missing (ingest: torch is loaded anyway).

    A failure is only logged: the query path then tries again or falls back.
    """
    if encoder != "onnx" or model_layout(model_path(model)) is None:
        return
    try:
        from rag.index.onnx_export import ensure_exported

        ensure_exported(model, onnx_dir)
    except (ConfigError, ImportError, OSError, RuntimeError) as exc:
        log.warning("could not make the ONNX query encoder: %s", exc)
