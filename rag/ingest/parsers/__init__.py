"""Paper files: find them, tell their format, parse them into `Paper` records.

Each format is one module with `parse(path) -> Iterator[Paper | ParseError | ParseNotice]`,
registered in `PARSERS`. A bad file or record becomes a `ParseError` in the result, never an
exception; what a user should know about a good file (entries without a citation key) is one
`ParseNotice`.
An entry without an abstract (a book, a web page, a letter) is not a bad record: it comes out
as a title-only `Paper` (abstract ""), which the ingest keeps or counts (`rag.ingest`).
Files are read in bounded memory (`rag.ingest.parsers.reading`) and records held to size caps
(`rag.ingest.parsers.limits`), so a huge or absurd file is reported, not loaded.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import ParseError
from rag.ingest.parsers import (
    arxiv,
    bibtex,
    csl_json,
    csv_table,
    jsonl,
    limits,
    pubmed,
    ris,
    seed_page,
    wos,
)
from rag.records import Paper, ParseNotice

Item = Paper | ParseError | ParseNotice
Parser = Callable[[Path], Iterator[Item]]

PARSERS: dict[str, Parser] = {
    "arxiv": arxiv.parse,
    "bibtex": bibtex.parse,
    "csljson": csl_json.parse,
    "csv": csv_table.parse,
    "jsonl": jsonl.parse,
    "pubmed": pubmed.parse,
    "ris": ris.parse,
    "seed": seed_page.parse,
    "wos": wos.parse,
}
_BY_EXTENSION = {
    ".bib": "bibtex",
    ".bibtex": "bibtex",
    ".csv": "csv",
    ".tsv": "csv",
    ".ris": "ris",
    ".nbib": "pubmed",
    ".medline": "pubmed",
}
# our schema, BEIR, the arXiv snapshot, or CSL-JSON (Zotero's export), told by content
_JSON_EXTENSIONS = {".jsonl", ".ndjson", ".json"}
_SNIFFED_EXTENSIONS = {"", ".txt", ".text", ".md"}
_SNIFF_BYTES = 65536
MAX_ERRORS_PER_FILE = 100  # past this, the file is surely in another format: stop reading


@dataclass(frozen=True)
class ParseResult:
    """The papers read from one file, the entries without an abstract, and the errors."""

    papers: list[Paper]
    errors: list[ParseError]
    # Entries the source gave no abstract: title-only papers (a title is not guaranteed).
    no_abstract: list[Paper] = field(default_factory=list)
    notices: list[ParseNotice] = field(default_factory=list)


def iter_files(paths: Iterable[Path]) -> Iterator[Path]:
    """Yield the files to parse: given files as they are, folders walked recursively.

    Folder entries come in name order; hidden entries (".name") are skipped, and a folder
    reached twice (a symlink loop) is walked once. A file reached twice is yielded once.

    Args:
        paths: files and folders.

    Returns:
        An iterator of file paths. Paths that are neither files nor folders are yielded too,
        so that `parse_path` reports them.
    """
    seen_dirs: set[str] = set()
    seen_files: set[str] = set()
    for path in paths:
        if path.is_dir():
            yield from _walk(path, seen_dirs, seen_files)
        elif _first_visit(path, seen_files):
            yield path


def _walk(folder: Path, seen_dirs: set[str], seen_files: set[str]) -> Iterator[Path]:
    if not _first_visit(folder, seen_dirs):
        return
    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError:
        yield folder  # parse_path turns it into "cannot read" for the user
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            yield from _walk(entry, seen_dirs, seen_files)
        elif _first_visit(entry, seen_files):
            yield entry


def _first_visit(path: Path, seen: set[str]) -> bool:
    real = os.path.realpath(path)
    if real in seen:
        return False
    seen.add(real)
    return True


def detect_format(path: Path) -> str:
    """Tell a file's format from its extension, or from its content for text files.

    Args:
        path: the file.

    Returns:
        A key of `PARSERS`: "wos" for a Web of Science export (plain text or tab-delimited,
        whatever its extension: it is often saved as .txt, .ris or .csv), else "bibtex" for
        .bib, "csv" for .csv/.tsv, "ris" for .ris, "pubmed" for .nbib/.medline; for
        .jsonl/.ndjson/.json and text that starts with "{" or "[", "arxiv" when the first
        record has the arXiv snapshot's keys, "csljson" when it has CSL's (`issued`,
        `author` objects, ...), else "jsonl"; for other text, "bibtex" when it starts with
        an `@type{` entry, "ris" with `TY  - `, "pubmed" with `PMID- `, "seed" for the seed
        page layout.

    Raises:
        ParseError: when the file cannot be read or its format is unknown.
    """
    suffix = path.suffix.lower()
    supported = (
        "JSON lines (.jsonl), a JSON array (.json), CSL-JSON (.json), BibTeX (.bib), RIS "
        "(.ris), PubMed (.nbib), Web of Science (.txt), CSV with a header row (.csv) or a "
        "seed page (.txt)"
    )
    if suffix in _JSON_EXTENSIONS:
        return _json_kind(path)
    if suffix not in _BY_EXTENSION and suffix not in _SNIFFED_EXTENSIONS:
        raise ParseError(str(path), f"unsupported file type '{suffix}': use {supported}")
    try:
        head = _head(path).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    except OSError:
        head = ""  # iter_path says why the file cannot be read
    if wos.looks_like(head):
        return "wos"
    if suffix in _BY_EXTENSION:
        return _BY_EXTENSION[suffix]
    if head.startswith(("{", "[")):
        return _json_kind_of(head)
    if bibtex.looks_like(head):
        return "bibtex"
    if ris.looks_like(head):
        return "ris"
    if pubmed.looks_like(head):
        return "pubmed"
    if seed_page.looks_like(head):
        return "seed"
    raise ParseError(str(path), f"cannot tell the format of this file: use {supported}")


def _json_kind(path: Path) -> str:
    """Tell which JSON records a file holds (unreadable: "jsonl", parse_path says why)."""
    try:
        head = _head(path).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    except OSError:
        return "jsonl"
    return _json_kind_of(head)


def _json_kind_of(head: str) -> str:
    if arxiv.looks_like(head):
        return "arxiv"
    return "csljson" if csl_json.looks_like(head) else "jsonl"


def iter_path(path: Path, fmt: str | None = None) -> Iterator[Item]:
    """Parse one file lazily into papers and errors, in file order.

    Every paper is held to the caps of `rag.ingest.parsers.limits`; one over a cap becomes a
    `ParseError` at its line. After `MAX_ERRORS_PER_FILE` errors the rest of the file is
    skipped, with one more error saying so. Entries without an abstract come out as
    title-only papers and never count as errors: in a real library they are normal.

    Args:
        path: the file.
        fmt: a key of `PARSERS`; detected with `detect_format` when None.

    Returns:
        An iterator of papers, `ParseError`s (one per unreadable file or record: a missing,
        empty, binary or non-UTF-8 file, an unknown format, a bad record) and the parser's
        `ParseNotice`s.
    """
    found = False
    errors = 0
    try:
        _check_text_file(path)
        fmt = fmt or detect_format(path)
        if fmt not in PARSERS:
            known = ", ".join(sorted(PARSERS))
            raise ParseError(str(path), f"unknown format '{fmt}': use one of {known}")
        for item in PARSERS[fmt](path):
            if isinstance(item, ParseNotice):
                yield item
                continue
            found = True
            if isinstance(item, Paper) and (reason := limits.check(item)):
                item = ParseError(str(path), reason, _line_of(item))
            if isinstance(item, ParseError):
                errors += 1
                if errors > MAX_ERRORS_PER_FILE:
                    reason = (
                        f"more than {MAX_ERRORS_PER_FILE} bad records: the rest of the file "
                        "is skipped (is it in the format its name says?)"
                    )
                    yield ParseError(str(path), reason)
                    return
            yield item
    except ParseError as exc:
        found = True
        yield exc
    except OSError as exc:
        found = True
        yield ParseError(str(path), f"cannot read the file: {exc.strerror or exc}")
    if not found:
        yield ParseError(str(path), "no papers found in this file")


def parse_path(path: Path, fmt: str | None = None) -> ParseResult:
    """Parse one file into papers, collecting what could not be read as errors.

    Args:
        path: the file.
        fmt: a key of `PARSERS`; detected with `detect_format` when None.

    Returns:
        The papers with an abstract in file order, the errors as `iter_path` gives them, the
        entries without an abstract (title-only papers) apart, and the notices.
    """
    papers: list[Paper] = []
    errors: list[ParseError] = []
    no_abstract: list[Paper] = []
    notices: list[ParseNotice] = []
    for item in iter_path(path, fmt):
        if isinstance(item, ParseError):
            errors.append(item)
        elif isinstance(item, ParseNotice):
            notices.append(item)
        elif item.title_only:
            no_abstract.append(item)
        else:
            papers.append(item)
    return ParseResult(papers, errors, no_abstract, notices)


def _line_of(paper: Paper) -> int | None:
    line = paper.source.rpartition(":")[2]
    return int(line) if line.isdigit() else None


def _head(path: Path) -> bytes:
    with path.open("rb") as fh:
        return fh.read(_SNIFF_BYTES)


def _check_text_file(path: Path) -> None:
    if not path.exists():
        raise ParseError(str(path), "no such file: check the path")
    if not path.is_file():
        raise ParseError(str(path), "not a regular file: give a file or a folder of files")
    head = _head(path)
    if not head.strip():
        raise ParseError(str(path), "the file is empty: add papers or remove it")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        # Web of Science's "Tab-delimited (Win)" and Excel's "Unicode Text" are UTF-16.
        reason = "UTF-16 text, not UTF-8: re-save it as UTF-8 (or export it as UTF-8)"
        raise ParseError(str(path), reason)
    if b"\x00" in head:
        raise ParseError(str(path), "binary file, not text: convert it to UTF-8 text")
