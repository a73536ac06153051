"""The query-time embedder: ONNX Runtime and `tokenizers`, no torch.

It computes what sentence-transformers computes for the same model folder: the model's own
tokenizer truncating at the model's `max_seq_length`, the transformer (exported once by
`rag.index.onnx_export`), mean (or CLS) pooling over the attention mask, then L2 normalisation. So
its vectors equal those of the ingest encoder (minimum cosine 0.99999 on the seed passages,
`tests/index/test_onnx_embedding.py`) and indexes built with sentence-transformers stay valid.

Importing onnxruntime, tokenizers and numpy takes about 0.2 s, against about 6 s for
sentence-transformers and torch.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

import numpy as np

from rag.errors import ConfigError

log = logging.getLogger(__name__)

BATCH = 32  # texts per run: sorted by length first, so a batch pads to similar lengths
# Intra-op threads, not spinning: embedding 80 abstract sentences on 2 cores took 0.97 s with 2
# threads against 1.67 s with one, and beside a busy process 1.62 s with either; spinning
# threads were slower there (1.88 s) and burn the other core (bench/results/onnx_threads.md).
THREADS = min(4, os.cpu_count() or 1)


class OnnxEmbedder:
    """An exported sentence-transformers model run by ONNX Runtime on the CPU.

    Args:
        folder: an export folder made by `rag.index.onnx_export` (model.onnx, tokenizer.json,
            meta.json).

    Raises:
        ConfigError: the folder is not a complete export.
    """

    def __init__(self, folder: Path) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        try:
            meta = json.loads((folder / "meta.json").read_text())
            tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except (OSError, ValueError, KeyError) as exc:
            raise ConfigError(
                f"The ONNX export at {folder} is incomplete ({exc}): delete that folder and "
                "run `python -m rag.index.onnx_export` again."
            ) from None
        self.name: str = meta["model"]
        self.dim: int = int(meta["dim"])
        self.max_tokens: int = int(meta["max_tokens"])
        self._pooling: str = meta["pooling"]
        self._lower: bool = bool(meta.get("lower_case"))
        self._inputs: list[str] = list(meta["inputs"])
        self._pad_id = int(meta.get("pad_id", 0))
        # The tokenizer file carries its own truncation (128 for MiniLM); sentence-transformers
        # truncates at max_seq_length (256), and so must we, or longer texts get other vectors.
        tokenizer.enable_truncation(self.max_tokens)
        tokenizer.no_padding()  # padded per batch below, to the batch's longest text
        self._tokenizer = tokenizer
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = THREADS
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # warnings about unused initializers are noise here
        self._session = onnxruntime.InferenceSession(
            str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return one L2-normalised float32 row per text, in the order given."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        # sentence-transformers lowercases the texts first when the model says so
        prepared = [t.lower() for t in texts] if self._lower else list(texts)
        encodings = self._tokenizer.encode_batch(prepared)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), BATCH):
            rows = order[start : start + BATCH]
            out[rows] = self._run([encodings[i] for i in rows])
        return out

    def _run(self, encodings: list[object]) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)  # type: ignore[attr-defined]
        arrays = {
            name: np.zeros((len(encodings), width), dtype=np.int64)
            for name in ("input_ids", "attention_mask", "token_type_ids")
        }
        arrays["input_ids"][:] = self._pad_id
        for row, e in enumerate(encodings):
            n = len(e.ids)  # type: ignore[attr-defined]
            arrays["input_ids"][row, :n] = e.ids  # type: ignore[attr-defined]
            arrays["attention_mask"][row, :n] = e.attention_mask  # type: ignore[attr-defined]
            arrays["token_type_ids"][row, :n] = e.type_ids  # type: ignore[attr-defined]
        with self._lock:
            tokens = self._session.run(None, {n: arrays[n] for n in self._inputs})[0]
        mask = arrays["attention_mask"][..., None].astype(np.float32)
        if self._pooling == "cls":
            pooled = tokens[:, 0]
        else:  # mean over the real tokens, as sentence-transformers' Pooling does
            pooled = (tokens * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.asarray(pooled / np.clip(norms, 1e-12, None), dtype=np.float32)
