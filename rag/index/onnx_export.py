"""Make the ONNX file of a local sentence-transformers model, once, from its own weights.

The only place outside ingest that imports torch: the export runs at install (`make venv` runs
`python -m rag.index.onnx_export`), at the first ingest that loads the model, or, failing both, on
the first query that needs it. Nothing is downloaded: the weights are the model folder's.

The graph is the transformer alone (token ids in, token vectors out); pooling and the L2 norm
are done by `rag.index.onnx_embedding` in numpy, as sentence-transformers does them in torch. Before
the export is put in place its output is compared with the torch model's on a few sentences,
so a graph that computes something else is never used.

    python -m rag.index.onnx_export [MODEL] [--onnx-dir DIR]
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from rag.errors import ConfigError
from rag.index.model_files import BUNDLED_MODEL, Layout, model_layout, model_name, model_path
from rag.index.onnx_cache import EXPORT_FORMAT, default_onnx_dir, export_dir

log = logging.getLogger(__name__)

META_FILE = "meta.json"  # written last: an export folder without it is incomplete
ONNX_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
OPSET = 17
# The export is traced on two short texts and checked on three of other lengths, one of them
# longer than the truncation.
TRACE_TEXTS = ["A query.", "Label noise in graph neural networks."]
CHECK_TEXTS = [
    "Graph neural networks are fragile when node labels are noisy.",
    "a",
    "Vitamin D supplementation reduces the risk of fractures in older adults. " * 30,
]
MAX_DIFFERENCE = 1e-4  # largest absolute difference of a token vector component allowed


def is_exported(folder: Path) -> bool:
    """Whether `folder` holds a complete export of this format."""
    try:
        meta = json.loads((folder / META_FILE).read_text())
    except (OSError, ValueError):
        return False
    return meta.get("format") == EXPORT_FORMAT and (folder / ONNX_FILE).is_file()


def exported_folder(model: str, onnx_dir: Path | None = None) -> Path:
    """Return the export folder of `model` under `onnx_dir` (it may not exist yet)."""
    return export_dir(model_path(model), onnx_dir or default_onnx_dir())


def ensure_exported(model: str = BUNDLED_MODEL, onnx_dir: Path | None = None) -> Path:
    """Return the export folder of `model`, making the export first when there is none.

    Args:
        model: the bundled model's name or a local sentence-transformers folder.
        onnx_dir: the cache folder (default: see `rag.index.onnx_cache`).

    Returns:
        A folder with `model.onnx`, `tokenizer.json` and `meta.json`.

    Raises:
        ConfigError: the model has a layout the ONNX path does not reproduce, or the export
            cannot be written or does not match the torch model.
    """
    from filelock import FileLock

    folder = exported_folder(model, onnx_dir)
    if is_exported(folder):
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    # Two processes starting cold at once: one exports, the other waits and reuses it.
    with FileLock(str(folder) + ".lock"):
        if not is_exported(folder):
            export(model, folder)
    return folder


def _tokenizer_file(layout: Layout) -> Path:
    found = layout.transformer / TOKENIZER_FILE
    if not found.is_file():
        raise ConfigError(
            f"The embedding model at {layout.transformer} has no {TOKENIZER_FILE} (a fast "
            "tokenizer): set RAG_QUERY_ENCODER=sentence-transformers to embed queries with torch."
        )
    return found


def _pad_id(layout: Layout, tokenizer: Any) -> int:
    """The id the model's tokenizer pads with (its `pad_token`), else 0."""
    try:
        config = json.loads((layout.transformer / "tokenizer_config.json").read_text())
        token = config.get("pad_token")
        token = token.get("content") if isinstance(token, dict) else token
        found = tokenizer.token_to_id(token) if isinstance(token, str) else None
    except (OSError, ValueError):
        found = None
    return int(found) if found is not None else 0


class _TokenVectors:
    """Wraps the HF model so the exporter calls it with keyword arguments only.

    A positional call collides with `use_cache` and other arguments of newer models.
    """

    def __init__(self, model: Any, inputs: list[str]) -> None:
        import torch

        class Module(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, *args: Any) -> Any:
                return self.model(**dict(zip(inputs, args, strict=True))).last_hidden_state

        self.module = Module().eval()


def export(model: str, folder: Path) -> None:
    """Export `model` to `folder` (replacing what is there), checked against torch.

    Raises:
        ConfigError: unsupported layout, no fast tokenizer, a write that fails, or an export
            whose output differs from the torch model's.
    """
    layout = model_layout(model_path(model))
    if layout is None:
        raise ConfigError(
            f"The embedding model {model!r} is not a plain transformer with mean or CLS "
            "pooling, which is all the ONNX query encoder reproduces: set "
            "RAG_QUERY_ENCODER=sentence-transformers."
        )
    tokenizer_file = _tokenizer_file(layout)
    started = time.perf_counter()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import numpy as np
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_model = AutoModel.from_pretrained(str(layout.transformer)).eval()
    accepted = inspect.signature(hf_model.forward).parameters
    inputs = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in accepted]
    wrapper = _TokenVectors(hf_model, inputs).module

    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.enable_truncation(layout.max_tokens)
    pad_id = _pad_id(layout, tokenizer)
    tokenizer.enable_padding(pad_id=pad_id)

    def inputs_of(texts: list[str]) -> dict[str, Any]:
        batch = tokenizer.encode_batch(texts)
        return {
            "input_ids": np.array([e.ids for e in batch], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in batch], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in batch], dtype=np.int64),
        }

    # Traced on one shape, checked on another: a graph that froze the traced batch size or
    # length (the tracer warns about such constants) fails the check instead of being used.
    traced = tuple(torch.from_numpy(inputs_of(TRACE_TEXTS)[n]) for n in inputs)
    check = {n: a for n, a in inputs_of(CHECK_TEXTS).items() if n in inputs}

    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=folder.name[:12] + ".", dir=folder.parent))
    try:
        work.chmod(0o755)  # mkdtemp makes it private; the cache may be shared
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer and deprecation warnings: noise to users
            expected = wrapper(*(torch.from_numpy(check[n]) for n in inputs)).numpy()
            torch.onnx.export(
                wrapper,
                traced,
                str(work / ONNX_FILE),
                input_names=inputs,
                output_names=["token_vectors"],
                dynamic_axes={
                    **{n: {0: "batch", 1: "tokens"} for n in inputs},
                    "token_vectors": {0: "batch", 1: "tokens"},
                },
                opset_version=OPSET,
                dynamo=False,  # the dynamo exporter needs onnxscript and fails on this model
            )
        _check(work / ONNX_FILE, check, expected)
        shutil.copyfile(tokenizer_file, work / TOKENIZER_FILE)
        meta = {
            "format": EXPORT_FORMAT,
            "model": model_name(model),
            "source": str(model_path(model).resolve()),
            "dim": layout.dim,
            "pooling": layout.pooling,
            "max_tokens": layout.max_tokens,
            "lower_case": layout.lower_case,
            "inputs": inputs,
            "pad_id": pad_id,
        }
        (work / META_FILE).write_text(json.dumps(meta, indent=1))
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(work, folder)
    except OSError as exc:
        raise ConfigError(
            f"Could not write the ONNX export of {model!r} to {folder}: {exc.strerror or exc}; "
            "set RAG_ONNX_DIR to a writable folder."
        ) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    log.info("exported %s to %s in %.1f s", model, folder, time.perf_counter() - started)


def _check(onnx_file: Path, arrays: dict[str, Any], expected: Any) -> None:
    import numpy as np
    import onnxruntime

    session = onnxruntime.InferenceSession(str(onnx_file), providers=["CPUExecutionProvider"])
    got = session.run(None, arrays)[0]
    mask = arrays["attention_mask"][..., None].astype(bool)
    worst = float(np.max(np.abs(np.where(mask, got - expected, 0.0))))
    if worst > MAX_DIFFERENCE:
        raise ConfigError(
            f"The ONNX export differs from the torch model by {worst:.2e} (more than "
            f"{MAX_DIFFERENCE:g}): set RAG_QUERY_ENCODER=sentence-transformers."
        )


def main(argv: list[str] | None = None) -> int:
    """Export a model from the command line; print the folder."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m rag.index.onnx_export", description=__doc__)
    parser.add_argument("model", nargs="?", default=BUNDLED_MODEL)
    parser.add_argument("--onnx-dir", type=Path, default=os.environ.get("RAG_ONNX_DIR"))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        print(ensure_exported(args.model, args.onnx_dir))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
