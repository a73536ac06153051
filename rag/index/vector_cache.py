"""Abstract-sentence vectors kept on disk, so a new process does not embed them again.

`rag cite` and `rag ask` choose the sentence they show by embedding every sentence of the
candidate abstracts: about 80 sentences, 1.4 s of a cold `rag cite` on one core, and the same
sentences again in the next process. `CachedEmbedder` wraps the index's embedder and keeps each
text's vector in an SQLite file in the index folder, keyed by the model and a digest of the
text, so an entry never goes stale (the same text always has the same vector) and any
sentence splitting finds its sentences. Deleting the file only costs time.

A file that cannot be read or written (a read-only folder, a disk full, another process holding
a long write) is passed over: the texts are embedded as if there were no file.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import numpy as np

from rag.index.embedding import Embedder

log = logging.getLogger(__name__)

FILE = "sentence-vectors.sqlite3"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS vectors "
    "(model TEXT NOT NULL, digest BLOB NOT NULL, vector BLOB NOT NULL, "
    "PRIMARY KEY (model, digest)) WITHOUT ROWID"
)
_LOOKUP = 500  # digests per SELECT (SQLite's bound-parameter limit is 32,766 here)


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class CachedEmbedder:
    """An `Embedder` whose vectors are looked up in `path` first and stored there after."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.path = path

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return one normalised row per text, as `inner.embed` would."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        digests = [_digest(t) for t in texts]
        try:
            with self._connect() as db:
                found = self._lookup(db, set(digests))
        except sqlite3.Error as exc:
            log.debug("sentence-vector cache %s unreadable (%s): embedding all", self.path, exc)
            return self.inner.embed(texts)
        missing = [i for i, d in enumerate(digests) if d not in found]
        if missing:
            fresh = self.inner.embed([texts[i] for i in missing])
            out[missing] = fresh
            self._store({digests[i]: fresh[n] for n, i in enumerate(missing)})
        for i, d in enumerate(digests):
            if d in found:
                out[i] = found[d]
        return out

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """An open connection, committed and closed after use."""
        with closing(sqlite3.connect(self.path, timeout=2)) as db, db:
            db.execute(_SCHEMA)
            yield db

    def _lookup(self, db: sqlite3.Connection, digests: set[bytes]) -> dict[bytes, np.ndarray]:
        wanted, found = list(digests), {}
        for start in range(0, len(wanted), _LOOKUP):
            part = wanted[start : start + _LOOKUP]
            rows = db.execute(
                f"SELECT digest, vector FROM vectors WHERE model = ? AND digest IN "
                f"({','.join('?' * len(part))})",
                [self.name, *part],
            )
            for digest, blob in rows:
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape == (self.dim,):
                    found[digest] = vector
        return found

    def _store(self, vectors: dict[bytes, np.ndarray]) -> None:
        try:
            with self._connect() as db:
                db.executemany(
                    "INSERT OR IGNORE INTO vectors VALUES (?, ?, ?)",
                    [(self.name, d, v.astype(np.float32).tobytes()) for d, v in vectors.items()],
                )
        except sqlite3.Error as exc:
            log.debug("sentence-vector cache %s not written (%s)", self.path, exc)
