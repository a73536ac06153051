"""Ingest files into an index: parse, chunk, embed new papers only, write in batches."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rag.errors import ConfigError
from rag.index.late_chunking import LateDocument
from rag.index.paper_index import Index
from rag.ingest.chunking import chunk_paper, passages
from rag.ingest.duplicates import copy_key, merged, note, opening, refreshed
from rag.ingest.naming import rekey_stored, settle_keys, usable_key
from rag.ingest.parsers import iter_files, parse_path
from rag.ingest.roles import model_fingerprint as roles_model_fingerprint
from rag.ingest.roles import sentence_roles
from rag.records import IngestReport, Paper

log = logging.getLogger(__name__)

PAPERS_PER_BATCH = 256  # each batch is committed before the next: a killed ingest resumes


def with_roles(paper: Paper) -> Paper:
    """Return `paper` with the role of each abstract sentence, as stored (`rag.ingest.roles`)."""
    return paper.with_(sentence_roles=tuple(role for _, role in sentence_roles(paper.abstract)))


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
            chunks, vectors = _passage_vectors(index, batch)
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


def _passage_vectors(index: Index, papers: list[Paper]) -> tuple[list[tuple[str, str]], np.ndarray]:
    """Return the passages of `papers` as (paper id, text) pairs, and their vectors.

    By the index's `passage_vectors` method: each window encoded on its own ("windows"), or
    pooled from one encode of the paper's whole text ("late", `rag.index.late_chunking`).
    """
    embedder = index.ingest_embedder
    if index.passage_vectors == "windows":
        chunks = [(p.id, text) for p in papers for text in chunk_paper(p)]
        return chunks, embedder.embed([text for _, text in chunks])
    embed_late = getattr(embedder, "embed_late", None)
    if embed_late is None:
        raise ConfigError(
            f"The embedding model {embedder.name!r} cannot pool passage vectors from one pass "
            "(passage_vectors = 'late'): use passage_vectors = 'windows'."
        )
    cut = [passages(p) for p in papers]
    per_paper = embed_late(
        [LateDocument(c.document, c.spans, c.title_end, c.sentence_starts) for c in cut]
    )
    chunks = [(p.id, text) for p, c in zip(papers, cut, strict=True) for text in c.texts]
    return chunks, np.concatenate(per_paper).astype(np.float32)


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
    stored papers until it reads cleanly, so nothing is lost to a broken line. An entry
    without an abstract is no problem: left out (unless kept as a title-only record), it is
    counted in one note per file, and a title-only record stored for it earlier stays
    (`held`).
    """

    papers: dict[str, Paper] = field(default_factory=dict)
    files: set[str] = field(default_factory=set)
    complete: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    held: set[str] = field(default_factory=set)  # ids of title-only entries read, not taken
    notes: list[str] = field(default_factory=list)  # one line per file per kind of note
    no_abstract: list[str] = field(default_factory=list)  # one line per entry without one
    # the id of the first copy read of each paper, by `copy_key`
    copies: dict[tuple[str, str, str], str] = field(default_factory=dict)

    def report(self) -> IngestReport:
        """Return the report of an ingest that stored nothing from these files."""
        return IngestReport(
            files=len(self.files),
            errors=tuple(self.errors),
            notes=tuple(self.notes),
            no_abstract=tuple(self.no_abstract),
        )


def read_files(
    paths: Sequence[str | Path], fmt: str | None = None, *, title_only: bool = False
) -> ParsedFiles:
    """Parse the files in `paths` (files or folders).

    Args:
        paths: files and folders (walked recursively).
        fmt: a parser name for every file; detected per file when None.
        title_only: keep the entries without an abstract that have a title, as title-only
            records; else they are only counted.

    Returns:
        The papers, the files seen and those read cleanly, one message per bad file or
        record, one note per file about its entries without an abstract (and the parsers'
        notices), and one line per such entry.
    """
    parsed = ParsedFiles()
    for path in iter_files([Path(p) for p in paths]):
        name = str(path.resolve())
        result = parse_path(path.resolve(), fmt)
        parsed.files.add(name)
        if not result.errors:
            parsed.complete.add(name)
        parsed.errors.extend(str(e) for e in result.errors)
        parsed.notes.extend(str(n) for n in result.notices)
        for paper in result.papers:
            key = copy_key(paper)
            pid = parsed.copies.get(key, paper.id) if key else paper.id
            first = parsed.papers.get(pid)
            if first is None:
                parsed.papers[paper.id] = paper
                if key:
                    parsed.copies[key] = paper.id
                continue
            # The same paper twice ("library.bib" and "library.ris"): one record, with
            # what either copy gives (rag/ingest/duplicates.py).
            parsed.papers[pid], filled, differing = merged(first, paper)
            parsed.notes.append(note(first, paper, filled, differing))
        if result.no_abstract:
            _take_no_abstract(parsed, name, result.no_abstract, title_only)
    return parsed


def _take_no_abstract(
    parsed: ParsedFiles, path: str, entries: list[Paper], title_only: bool
) -> None:
    """Keep or count one file's entries without an abstract, and say so in one note."""
    titled = [p for p in entries if p.title]
    parsed.no_abstract.extend(f"{p.source}: {_entry_name(p)} has no abstract" for p in entries)
    if title_only:
        for paper in titled:
            parsed.papers.setdefault(paper.id, paper)
    else:
        parsed.held.update(p.id for p in titled)
    untitled = len(entries) - len(titled)
    parts = []
    records = "title-only records" if len(titled) > 1 else "a title-only record"
    if titled and title_only:
        parts.append(f"{_entries(len(titled))} without an abstract kept as {records}")
    elif titled:
        which = "them" if len(titled) > 1 else "it"
        which = f"the {len(titled)} with a title" if untitled else which
        parts.append(
            f"{_entries(len(entries))} without an abstract {_were(len(entries))} not indexed; "
            f"`rag ingest --title-only` keeps {which} as {records}"
        )
    if untitled and (title_only or not titled):
        parts.append(
            f"{_entries(untitled)} with neither a title nor an abstract "
            f"{_were(untitled)} not indexed"
        )
    parsed.notes.append(f"{path}: " + "; ".join(parts))


def _entries(n: int) -> str:
    return f"{n} entr{'ies' if n != 1 else 'y'}"


def _were(n: int) -> str:
    return "were" if n != 1 else "was"


def _entry_name(paper: Paper) -> str:
    title = paper.title or ""
    shown = title if len(title) <= 70 else title[:69].rsplit(" ", 1)[0] + "…"
    key = f"entry '{paper.citation_key}'" if paper.citation_key else "the entry"
    return f"{key} ({shown})" if shown else key


def ingest(
    paths: Sequence[str | Path],
    index: Index,
    *,
    fmt: str | None = None,
    progress: bool = False,
    title_only: bool = False,
) -> IngestReport:
    """Add the papers in `paths` (files or folders) to `index`.

    Papers already stored are not embedded again; a file edited in place replaces the papers
    it used to hold; bad files and records are reported and the good ones still go in.
    Entries without an abstract are counted, or kept as title-only records (`title_only`).

    Returns:
        Counts of what changed and one message per skipped file or record.

    Raises:
        IndexBusyError: another process is writing the index.
    """
    files = read_files(paths, fmt, title_only=title_only)
    return store_files(files, index, progress=progress)


def _as_stored_copies(
    parsed: dict[str, Paper], stored: dict[str, Paper], copies: dict[tuple[str, str, str], str]
) -> dict[str, Paper]:
    """`parsed`, a paper stored already under another id as one of its copies ("Wei K." where
    the stored record has "Wei K", `copy_key`) taken as that stored paper, so that it is
    updated as the same paper, not added beside it. `copies`: the read papers' keys, as
    `read_files` computed them (`ParsedFiles.copies`)."""
    new = {
        opening(parsed[pid]): (pid, key)
        for key, pid in copies.items()
        if pid in parsed and pid not in stored
    }
    same: dict[str, str] = {}
    for sid, paper in stored.items() if new else ():
        pid, key = new.get(opening(paper), ("", None))
        if key is not None and sid not in parsed and copy_key(paper) == key:
            same[pid] = sid
    return {
        same.get(pid, pid): p.with_(id=same[pid]) if pid in same else p for pid, p in parsed.items()
    }


def store_files(files: ParsedFiles, index: Index, *, progress: bool = False) -> IngestReport:
    """Bring `index` in line with parsed files: add new papers, drop those the files lost.

    A title-only record is replaced by the same entry read with its abstract (same title and
    authors, or same DOI), keeping its citation key; a title-only entry whose paper is
    stored or read with its abstract is not added beside it.

    Args:
        files: what `read_files` read.
        index: the index to write.
        progress: show a progress bar.

    Returns:
        Counts of what changed, and the errors and notes of `files`.

    Raises:
        IndexBusyError: another process is writing the index.
        ConfigError, IndexMismatchError: the embedding model cannot be loaded or does not
            fit the index, or the index was built with another `passage_vectors` method
            (raised before anything is written).
    """
    parsed = dict(files.papers)
    with index.writing():
        index.refresh()
        stored = index.papers
        parsed = _as_stored_copies(parsed, stored, files.copies)
        stale = {
            pid
            for pid, p in stored.items()
            if p.source_file in files.complete and pid not in parsed and pid not in files.held
        }
        upgraded = _upgrades(stored, stale, parsed)
        for pid in upgraded:
            parsed.pop(pid, None)
        stale -= set(upgraded)  # an entry that gained its abstract is not a removal
        gone = stale | set(upgraded)
        taken = {p.citation_key for pid, p in stored.items() if pid not in gone}
        fresh = [_inherit_key(p, upgraded) for pid, p in parsed.items() if pid not in stored]
        keyed = settle_keys(fresh, taken)
        new = [with_roles(p) for p in keyed.papers]
        if new:
            index.check_passage_method()  # never two kinds of passage vectors in one index
            index.ingest_embedder  # noqa: B018  # a model that cannot load fails before any write
        kept = [(stored[pid], p) for pid, p in parsed.items() if pid in stored]
        rekeyed = rekey_stored(kept, taken | {p.citation_key for p in new})
        moved, relabelled = [], []
        for old, p in kept:
            # A copy read now may give what the stored record lacks (its DOI), or, from the
            # record's own file, other values (the entry was edited).
            fresh_fields, changed = refreshed(old, p)
            # A label derived by an older rule ("Li et al." for the PoLar paper, stop 63) is
            # derived again, silently, as the roles below: the reader changed nothing. The
            # citation key stays: a reader may have cited it.
            label = p.label if old.label_derived and p.label_derived else old.label
            if old.source != p.source or old.id in rekeyed.keys or changed:
                key = rekeyed.keys.get(old.id, old.citation_key)
                moved.append(fresh_fields.with_(source=p.source, citation_key=key, label=label))
            elif label != old.label:
                relabelled.append(old.with_(label=label))
        if gone:
            index.store.delete(sorted(gone))
        # Stored roles follow the shipped role model: papers stored before sentence roles
        # existed, or (when the index records another model) whose roles another version of
        # the model gave, get the current ones now, silently: nothing a reader gave changed,
        # so they are not counted as updated. Checking every paper costs about 2 ms an
        # abstract, so it is done only when the model changed.
        model = roles_model_fingerprint()
        other_model = index.store.roles_model != model
        updated = len(moved)  # a relabelled record is rewritten, not counted
        moved = [
            with_roles(p) if other_model or not p.sentence_roles else p for p in moved + relabelled
        ]
        moved_ids = {p.id for p in moved}
        rerolled = [
            fresh_roles
            for pid, old in stored.items()
            if pid not in moved_ids
            and pid not in gone
            and old.abstract.strip()
            and (other_model or not old.sentence_roles)
            and (fresh_roles := with_roles(old)).sentence_roles != old.sentence_roles
        ]
        if moved or rerolled:
            index.store.update_records(moved + rerolled)
        _embed_and_store(index, new, progress)
        if other_model:
            index.store.set_roles_model(model)
    index.bm25()  # brought in line with the collection and saved
    report = IngestReport(
        added=len(new),
        updated=updated,
        unchanged=len(parsed) - len(new) - updated,
        removed=len(stale),
        upgraded=len(upgraded),
        files=len(files.files),
        errors=tuple(files.errors),
        key_clashes=tuple(keyed.clashes + rekeyed.clashes),
        key_changes=tuple(rekeyed.changes),
        notes=tuple(files.notes),
        no_abstract=tuple(files.no_abstract),
    )
    log.info("ingest: %s", report)
    return report


def _upgrades(
    stored: dict[str, Paper], stale: set[str], parsed: dict[str, Paper]
) -> dict[str, Paper]:
    """Return the title-only records (by id) that a paper with its abstract now stands for.

    Such a paper is stored (and stays) or is being read; it covers a title-only record with
    its title and authors (`Paper.title_key`) or its DOI. Title-only entries just read that
    are covered are dropped from `parsed` too, so none is added beside its paper.
    """
    full = [p for pid, p in stored.items() if pid not in stale and not p.title_only]
    full += [p for p in parsed.values() if not p.title_only]
    titles = {p.title_key for p in full} - {None}
    dois = {p.doi.casefold() for p in full if p.doi}
    covered = {
        pid
        for pid, p in (*stored.items(), *parsed.items())
        if p.title_only and (pid in titles or (p.doi and p.doi.casefold() in dois))
    }
    for pid in covered - set(stored):
        parsed.pop(pid)  # read without its abstract, while its paper is there: not added
    return {pid: stored[pid] for pid in covered if pid in stored}


def _inherit_key(paper: Paper, upgraded: dict[str, Paper]) -> Paper:
    """Give a paper the key of the title-only record it replaces, unless its source gives one."""
    if paper.title_only or usable_key(paper.citation_key):
        return paper
    doi = paper.doi.casefold() if paper.doi else None
    for old in upgraded.values():
        if old.id == paper.title_key or (doi and old.doi and old.doi.casefold() == doi):
            return paper.with_(citation_key=old.citation_key)
    return paper


def remove(index: Index, paper_ids: Sequence[str]) -> int:
    """Remove papers from Chroma and BM25 both; return how many were removed."""
    with index.writing():
        index.refresh()
        present = [pid for pid in paper_ids if pid in index.papers]
        index.store.delete(present)
    index.bm25()
    return len(present)
