"""Read an embedded Chroma index through Chroma's own engine, without its Python client.

`import chromadb` costs about 0.5 s of a one-shot command (its API classes, telemetry and
configuration models); the engine under it, `chromadb_rust_bindings` (shipped in the same
wheel, so always the same version), opens an index in about 25 ms. Reading needs only that
engine: the calls below are those `chromadb.api.rust.RustBindingsAPI` makes, with the same
arguments. `rag.index.store.ChromaStore` reads through this and switches to
`chromadb.PersistentClient` before its first write.

The index is opened with migrations validated, not applied: one that needs a migration (made by
an older Chroma) raises `ReaderUnavailable`, and the caller uses Chroma's client, which applies
it. Any other failure to open says the same, so a reader never stands between a user and the
index.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rag.index.chroma_client import DEFAULT_DATABASE, DEFAULT_TENANT

SQLITE_FILE = "chroma.sqlite3"


_FIELDS = ("ids", "embeddings", "documents", "metadatas")  # what chromadb's results hold


def _fields(response: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """The engine's response as the dict `chromadb.Collection.get` / `query` returns."""
    return {name: getattr(response, name) for name in names}


class ReaderUnavailable(RuntimeError):
    """The engine cannot open this index read-only here: use Chroma's client instead."""


class ReadOnlyCollection:
    """One collection, with the read calls of `chromadb.Collection` that `rag.index.store` uses."""

    def __init__(self, bindings: Any, collection: Any) -> None:
        self._bindings = bindings
        self._id = str(collection.id)
        self.name = str(collection.name)
        self.metadata: dict[str, Any] | None = collection.metadata

    def count(self) -> int:
        return int(self._bindings.count(self._id, DEFAULT_TENANT, DEFAULT_DATABASE))

    def get(
        self,
        ids: list[str] | None = None,
        where: dict[str, Any] | None = None,
        limit: int | None = None,
        offset: int | None = None,
        include: list[str] | tuple[str, ...] = ("metadatas", "documents"),
    ) -> dict[str, Any]:
        got = self._bindings.get(
            self._id,
            ids,
            json.dumps(where) if where else None,
            limit,
            offset or 0,
            None,
            list(include),
            DEFAULT_TENANT,
            DEFAULT_DATABASE,
        )
        return _fields(got, _FIELDS)

    def query(
        self,
        query_embeddings: list[list[float]],
        n_results: int = 10,
        where: dict[str, Any] | None = None,
        include: list[str] | tuple[str, ...] = ("metadatas", "documents", "distances"),
    ) -> dict[str, Any]:
        got = self._bindings.query(
            self._id,
            None,
            query_embeddings,
            n_results,
            json.dumps(where) if where else None,
            None,
            list(include),
            DEFAULT_TENANT,
            DEFAULT_DATABASE,
        )
        return _fields(got, (*_FIELDS, "distances"))


class ReadOnlyClient:
    """The read calls of `chromadb.PersistentClient` on one index folder.

    Raises:
        ReaderUnavailable: the engine is missing, or cannot open the folder read-only.
    """

    def __init__(self, index_dir: Path) -> None:
        try:
            import resource

            import chromadb_rust_bindings as engine

            config = engine.SqliteDBConfig(
                hash_type=engine.MigrationHash.MD5,  # chromadb's default
                migration_mode=engine.MigrationMode.Validate,
                url=str(index_dir / SQLITE_FILE),
            )
            self._bindings = engine.Bindings(
                allow_reset=False,
                sqlite_db_config=config,
                persist_path=str(index_dir),
                # chromadb's own choice: 5 files per HNSW index, within the open-file limit.
                hnsw_cache_size=resource.getrlimit(resource.RLIMIT_NOFILE)[0] // 5,
            )
        except Exception as exc:  # ImportError, a migration to apply, a changed signature
            raise ReaderUnavailable(f"{type(exc).__name__}: {exc}") from exc

    def get_collection(self, name: str, embedding_function: None = None) -> ReadOnlyCollection:
        """Return the collection `name` (raises the engine's error when there is none)."""
        return ReadOnlyCollection(
            self._bindings, self._bindings.get_collection(name, DEFAULT_TENANT, DEFAULT_DATABASE)
        )

    def get_max_batch_size(self) -> int:
        return int(self._bindings.get_max_batch_size())
