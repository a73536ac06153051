"""Ingest files into an index: parse, chunk, embed new papers only, write in batches."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rag.index.paper_index import Index
from rag.ingest.chunking import chunk_paper
from rag.ingest.naming import rekey_stored, settle_keys
from rag.ingest.parsers import iter_files, parse_path
from rag.records import IngestReport, Paper

log = logging.getLogger(__name__)

PAPERS_PER_BATCH = 256  # each batch is committed before the next: a killed ingest resumes


def _embed_and_store(index: Index, papers: list[Paper], progress: bool) -> None:
    """Embed and write `papers` batch by batch; a batch is written while the next one embeds.

    One writer thread commits the batches in order, so a killed ingest still leaves whole
    batches behind; a write error surfaces before the next batch is handed over, and an
    interrupted ingest returns (and lets go of the write lock) only once the batch being
    written is finished.
    """
    from tqdm import tqdm

    if not papers:
        return
    bar = tqdm(total=len(papers), unit="paper", desc="ingesting", disable=not progress)
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rag-write")
    pending: Future[None] | None = None
    try:
        for start in range(0, len(papers), PAPERS_PER_BATCH):
            batch = papers[start : start + PAPERS_PER_BATCH]
            chunks = [(p.id, text) for p in batch for text in chunk_paper(p)]
            vectors = index.ingest_embedder.embed([text for _, text in chunks])
            owners = np.array([pid for pid, _ in chunks])
            paper_vectors = np.stack([vectors[owners == p.id].mean(axis=0) for p in batch])
            paper_vectors /= np.linalg.norm(paper_vectors, axis=1, keepdims=True)
            if pending is not None:
                pending.result()
                bar.update(PAPERS_PER_BATCH)
            pending = writer.submit(index.store.add, batch, paper_vectors, chunks, vectors)
        if pending is not None:
            pending.result()
            bar.update(len(papers) - bar.n)
    finally:
        _finish_write(pending)
        writer.shutdown()
        bar.close()


def _finish_write(pending: Future[None] | None) -> None:
    """Wait for the batch being written, through any further Ctrl+C, and log its failure."""
    while pending is not None and not pending.done():
        try:
            wait([pending])
        except KeyboardInterrupt:
            log.warning("finishing the batch being written before stopping")
    if pending is not None and pending.exception() is not None:
        log.error("writing a batch failed: %s", pending.exception())


@dataclass
class ParsedFiles:
    """What a set of files holds: papers by id (first copy wins), files read, and errors.

    `complete` holds the files read without any problem: only those may drop stored papers
    they no longer hold. A file with a bad record, a skipped rest or a refusal keeps its
    stored papers until it reads cleanly, so nothing is lost to a broken line.
    """

    papers: dict[str, Paper] = field(default_factory=dict)
    files: set[str] = field(default_factory=set)
    complete: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)

    def report(self) -> IngestReport:
        """Return the report of an ingest that stored nothing from these files."""
        return IngestReport(files=len(self.files), errors=tuple(self.errors))


def read_files(paths: Sequence[str | Path], fmt: str | None = None) -> ParsedFiles:
    """Parse the files in `paths` (files or folders).

    Args:
        paths: files and folders (walked recursively).
        fmt: a parser name for every file; detected per file when None.

    Returns:
        The papers, the files seen and those read cleanly, and one message per bad file or
        record.
    """
    parsed = ParsedFiles()
    for path in iter_files([Path(p) for p in paths]):
        name = str(path.resolve())
        result = parse_path(path.resolve(), fmt)
        parsed.files.add(name)
        if not result.errors:
            parsed.complete.add(name)
        parsed.errors.extend(str(e) for e in result.errors)
        for paper in result.papers:
            parsed.papers.setdefault(paper.id, paper)
    return parsed


def ingest(
    paths: Sequence[str | Path], index: Index, *, fmt: str | None = None, progress: bool = False
) -> IngestReport:
    """Add the papers in `paths` (files or folders) to `index`.

    Papers already stored are not embedded again; a file edited in place replaces the papers
    it used to hold; bad files and records are reported and the good ones still go in.

    Returns:
        Counts of what changed and one message per skipped file or record.

    Raises:
        IndexBusyError: another process is writing the index.
    """
    return store_files(read_files(paths, fmt), index, progress=progress)


def store_files(files: ParsedFiles, index: Index, *, progress: bool = False) -> IngestReport:
    """Bring `index` in line with parsed files: add new papers, drop those the files lost.

    Args:
        files: what `read_files` read.
        index: the index to write.
        progress: show a progress bar.

    Returns:
        Counts of what changed, and the errors of `files`.

    Raises:
        IndexBusyError: another process is writing the index.
        ConfigError, IndexMismatchError: the embedding model cannot be loaded or does not
            fit the index (raised before anything is written).
    """
    parsed = files.papers
    with index.writing():
        index.refresh()
        stored = index.papers
        stale = [
            pid
            for pid, p in stored.items()
            if p.source_file in files.complete and pid not in parsed
        ]
        taken = {p.citation_key for pid, p in stored.items() if pid not in set(stale)}
        keyed = settle_keys([p for pid, p in parsed.items() if pid not in stored], taken)
        new = keyed.papers
        if new:
            index.ingest_embedder  # noqa: B018  # a model that cannot load fails before any write
        kept = [(stored[pid], p) for pid, p in parsed.items() if pid in stored]
        rekeyed = rekey_stored(kept, taken | {p.citation_key for p in new})
        moved = [
            old.with_(source=p.source, citation_key=rekeyed.keys.get(old.id, old.citation_key))
            for old, p in kept
            if old.source != p.source or old.id in rekeyed.keys
        ]
        if stale:
            index.store.delete(stale)
        if moved:
            index.store.update_records(moved)
        _embed_and_store(index, new, progress)
    index.bm25()  # brought in line with the collection and saved
    report = IngestReport(
        added=len(new),
        updated=len(moved),
        unchanged=len(parsed) - len(new) - len(moved),
        removed=len(stale),
        files=len(files.files),
        errors=tuple(files.errors),
        key_clashes=tuple(keyed.clashes + rekeyed.clashes),
        key_changes=tuple(rekeyed.changes),
    )
    log.info("ingest: %s", report)
    return report


def remove(index: Index, paper_ids: Sequence[str]) -> int:
    """Remove papers from Chroma and BM25 both; return how many were removed."""
    with index.writing():
        index.refresh()
        present = [pid for pid in paper_ids if pid in index.papers]
        index.store.delete(present)
    index.bm25()
    return len(present)
