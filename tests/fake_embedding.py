"""A deterministic embedding for tests: hashed bag of word stems, so ranking is testable."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from rag.index.late_chunking import LateDocument

_WORD = re.compile(r"[a-z0-9]+")
_STOP = {
    "the",
    "and",
    "for",
    "with",
    "that",
    "this",
    "are",
    "from",
    "which",
    "what",
    "our",
    "how",
    "does",
    "can",
    "into",
    "their",
    "they",
    "use",
    "using",
    "paper",
    "papers",
}


class FakeEmbedding:
    """Texts sharing word stems (first five letters) get close vectors."""

    name = "fake-hash"
    dim = 4096  # wide enough that unrelated words rarely share a bucket

    def __init__(self) -> None:
        self.calls = 0
        self.texts_embedded = 0
        self.late_documents = 0  # documents given to embed_late

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            if len(word) < 3 or word in _STOP:
                continue
            h = int(hashlib.md5(word[:5].encode()).hexdigest(), 16)
            vec[h % self.dim] += 1.0
        norm = np.linalg.norm(vec)
        if norm == 0:
            vec[0] = 1.0
            return vec
        return vec / norm

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])

    def embed_late(self, documents: Sequence[LateDocument]) -> list[np.ndarray]:
        """Late chunking, faked: each span's text embedded, one call per batch of documents."""
        self.calls += 1
        self.late_documents += len(documents)
        return [np.stack([self._vector(d.text[a:b]) for a, b in d.spans]) for d in documents]
