"""RIS files (.ris): Zotero, Mendeley, EndNote and Web of Science (RIS export) records.

The file is cut into `TY  - ` ... `ER  - ` records here, one line at a time, so that each
record has its line and a broken one is skipped alone; the tags of one record are read by
`rispy` (repeated `AU`/`KW`/`UR`, continuation lines). Kept: `TY`..`ER`, `ID` (the
citation key, when it is a usable one: Mendeley and our export write it), `AU`/`A1`,
`TI`/`T1`, `PY`/`Y1`/`DA` (the year), `AB` or EndNote's `N2` (the abstract), `DO`, the first
`UR`, `KW` (the research area), and the `N1` notes our export writes. Dropped: journal,
volume, pages, publisher, editors, attachments and the other tags.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rispy

from rag.errors import ParseError
from rag.ingest.naming import clean_abstract, derive_label, display_name
from rag.ingest.parsers.fields import area_from, doi_from, first_line_matches, read_notes, year_from
from rag.ingest.parsers.reading import decode_line, raw_lines
from rag.records import Paper
from rag.text import clean_markup

_TAG = re.compile(r"^([A-Z][A-Z0-9])  -(?: (.*))?$")
_START = re.compile(r"^\ufeff?TY  - ")


def looks_like(text: str) -> bool:
    """Return whether `text` (the start of a file) is RIS: its first line is a `TY  - ` tag."""
    return first_line_matches(text, _START)


@dataclass
class _Record:
    line: int
    lines: list[str] = field(default_factory=list)


def parse(path: Path) -> Iterator[Paper | ParseError]:
    """Parse a RIS file record by record.

    Args:
        path: the file.

    Returns:
        An iterator of papers (title-only for a record without an abstract) and, for each
        record that cannot be read (no `ER`, a bad year) or text outside any record, a
        `ParseError` at its line.
    """
    name = str(path)
    record: _Record | None = None
    stray: int | None = None  # first line of text outside a record, reported once per run
    with path.open("rb") as fh:
        for item in raw_lines(fh, name, hint="is this a RIS file?"):
            if isinstance(item, ParseError):
                yield item
                continue
            number, raw = item
            try:
                line = decode_line(raw, name, number).rstrip("\r\n")
            except ParseError as exc:
                yield exc
                continue
            tag = _TAG.match(line)
            if tag and tag.group(1) == "TY":
                if record is not None:
                    reason = "record has no 'ER  - ' line before the next 'TY': it is skipped"
                    yield ParseError(name, reason, record.line)
                if stray is not None:
                    yield _stray(name, stray)
                    stray = None
                record = _Record(number, [line])
            elif record is None:
                if line.strip() and stray is None:
                    stray = number
            elif tag and tag.group(1) == "ER":
                yield _paper(record, name)
                record = None
            else:
                record.lines.append(line)
    if stray is not None:
        yield _stray(name, stray)
    if record is not None:
        reason = "the last record has no 'ER  - ' line: add it, or the record is skipped"
        yield ParseError(name, reason, record.line)


def _stray(path: str, line: int) -> ParseError:
    reason = "text outside a record: every RIS record starts with 'TY  - ' and ends with 'ER  - '"
    return ParseError(path, reason, line)


def _paper(record: _Record, path: str) -> Paper | ParseError:
    try:
        entries = rispy.loads("\n".join([*record.lines, "ER  - ", ""]))
    except Exception as exc:  # rispy raises bare exceptions on malformed input
        return ParseError(path, f"cannot read this record ({exc}): fix or remove it", record.line)
    if len(entries) != 1:
        return ParseError(path, "cannot read this record: fix or remove it", record.line)
    try:
        return paper_from_ris(entries[0], f"{path}:{record.line}")
    except ValueError as exc:
        return ParseError(path, str(exc), record.line)


def _text(entry: dict[str, Any], *keys: str) -> str:
    for key in keys:
        value = entry.get(key)
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        if value and str(value).strip():
            return " ".join(str(value).split())
    return ""


# An accession number that says whose it is, as our export writes it ("PMID:26751583"); a bare
# number could be any database's, and is not read.
_EXTERNAL_ID = re.compile(r"(?:PMID|arXiv|WOS):\S+")


def external_id_from(accession: str) -> str | None:
    """The external id an `AN` line gives, when it names its database (`_EXTERNAL_ID`)."""
    return accession if _EXTERNAL_ID.fullmatch(accession) else None


def paper_from_ris(entry: dict[str, Any], source: str) -> Paper:
    """Build a paper from one record as `rispy` reads it.

    Raises:
        ValueError: the record has a date without a plausible year.
    """
    key = _text(entry, "id")
    abstract = clean_abstract(_text(entry, "abstract", "notes_abstract"))  # "": title-only
    names = entry.get("authors") or entry.get("first_authors") or []
    authors = [display_name(n) for n in names if str(n).strip()]
    title = clean_markup(_text(entry, "title", "primary_title")) or None
    dates = [(t, _text(entry, k)) for t, k in (("PY", "year"), ("Y1", "publication_year"))]
    dates.append(("DA", _text(entry, "date")))
    tag, date = next(((t, d) for t, d in dates if d), ("PY", ""))
    label, truncated = read_notes(entry.get("notes") or [])
    urls = entry.get("urls") or []
    return Paper.create(
        authors=authors,
        abstract=abstract,
        title=title,
        year=year_from(date, tag),
        area=area_from(entry.get("keywords") or []),
        doi=doi_from(_text(entry, "doi")),
        url=str(urls[0]).strip() if urls else None,
        authors_truncated=truncated,
        external_id=external_id_from(_text(entry, "accession_number")),
        source=source,
        citation_key=key,
        label="" if title else label or derive_label(authors, abstract, truncated),
        label_derived=title is None,
    )
