"""Where the ONNX export of an embedding model lives: a cache folder keyed by the model's content.

The export goes under `onnx_dir` (setting `onnx_dir`, env `RAG_ONNX_DIR`; default
`$XDG_CACHE_HOME/rag/onnx`, i.e. `~/.cache/rag/onnx`), in a subfolder named by a SHA-256 of the
model folder's files (names and bytes). So:

- a fresh virtualenv with the same model wheel finds the export made by an earlier one (the
  bytes are the same), where a copy inside site-packages would be lost with the venv;
- every index, new or old, uses the same export, where one kept in the index folder would be
  made again for each index;
- a changed or different model (new weights, another tokenizer) gets a subfolder of its own, so
  a stale export is never used.

Hashing the 90 MB of the bundled model takes a tenth of a second, too much for every command:
the digest is remembered per model folder together with each file's size and modification
time (`folders.json`), and only recomputed when one of those changes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)

FOLDERS_FILE = "folders.json"  # model folder -> (file stats, content digest)
# Part of every digest: bump it when the export or its metadata changes, so that exports made
# by an older version are made again instead of being trusted.
EXPORT_FORMAT = "rag-onnx-1"


def default_onnx_dir() -> Path:
    """Return the default cache folder: `$XDG_CACHE_HOME/rag/onnx`, else `~/.cache/rag/onnx`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rag" / "onnx"


def _files(folder: Path) -> list[Path]:
    """Every file of a model folder that can change its vectors, in a stable order."""
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )


def _stats(folder: Path, files: list[Path]) -> list[list[object]]:
    stats: list[list[object]] = []
    for p in files:
        st = p.stat()
        stats.append([p.relative_to(folder).as_posix(), st.st_size, st.st_mtime_ns])
    return stats


def _digest(folder: Path, files: list[Path]) -> str:
    sha = hashlib.sha256(EXPORT_FORMAT.encode())
    for p in files:
        sha.update(b"\0" + p.relative_to(folder).as_posix().encode() + b"\0")
        with p.open("rb") as f:
            sha.update(hashlib.file_digest(f, "sha256").digest())
    return sha.hexdigest()


def model_digest(folder: Path, cache: Path) -> str:
    """Return the content digest of a model folder, remembered in `cache` while it holds.

    Args:
        folder: a sentence-transformers model folder.
        cache: the ONNX cache folder (where `folders.json` is kept).

    Returns:
        A hex SHA-256 over the relative names and bytes of the folder's files.
    """
    folder = folder.resolve()
    files = _files(folder)
    stats = _stats(folder, files)
    known_file = cache / FOLDERS_FILE
    try:
        known = json.loads(known_file.read_text())
    except (OSError, ValueError):
        known = {}
    entry = known.get(str(folder)) if isinstance(known, dict) else None
    if (
        isinstance(entry, dict)
        and entry.get("stats") == stats
        and entry.get("format") == (EXPORT_FORMAT)
    ):
        return str(entry["digest"])
    log.debug("hashing the model folder %s", folder)
    digest = _digest(folder, files)
    if not isinstance(known, dict):
        known = {}
    known[str(folder)] = {"format": EXPORT_FORMAT, "stats": stats, "digest": digest}
    try:
        cache.mkdir(parents=True, exist_ok=True)
        tmp = known_file.with_name(f"{FOLDERS_FILE}.{os.getpid()}")
        tmp.write_text(json.dumps(known, indent=1))
        os.replace(tmp, known_file)  # a concurrent writer's copy is as good as ours
    except OSError as exc:  # a read-only cache still works, it only hashes every time
        log.debug("could not remember the digest of %s: %s", folder, exc)
    return digest


def export_dir(folder: Path, cache: Path) -> Path:
    """Return the folder that holds (or will hold) the ONNX export of the model in `folder`."""
    return cache / model_digest(folder, cache)
