"""PubMed / MEDLINE files (.nbib, or PubMed's "Save as PubMed format" .txt).

Written here rather than with a library: the `nbib` package on PyPI has had no release
since 2021 and gives no line numbers, and the format is simple: a record starts at `PMID- `
and ends at a blank line; each line is a four-character tag, `- ` and a value, and a line
that starts with six spaces continues the one before. Kept: `PMID` (the external id,
`PMID:...`), `TI` (without the full stop PubMed ends every title with), `AB`, `FAU` (or
`AU` when there is no full name), `DP` (the year), the DOI from `LID`/`AID ... [doi]` and
`OT` keywords (the research area). Dropped: journal, MeSH terms, affiliations, grants and
every other tag. PubMed gives no citation key: keys are derived at ingest.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import ParseError
from rag.ingest.naming import clean_abstract, derive_label, display_name
from rag.ingest.parsers.fields import area_from, doi_from, first_line_matches, year_from
from rag.ingest.parsers.reading import decode_line, raw_lines
from rag.records import Paper
from rag.text import clean_markup

_TAG = re.compile(r"^([A-Z][A-Z0-9]{1,3}) {0,3}- ?(.*)$")
_CONTINUATION = "      "
_START = re.compile(r"^PMID- ?\S")


def looks_like(text: str) -> bool:
    """Return whether `text` (the start of a file) is MEDLINE: its first line is `PMID- `."""
    return first_line_matches(text, _START)


@dataclass
class _Record:
    line: int
    tags: list[tuple[str, str]] = field(default_factory=list)

    def values(self, tag: str) -> list[str]:
        return [value for name, value in self.tags if name == tag]

    def first(self, tag: str) -> str:
        return next(iter(self.values(tag)), "")


def parse(path: Path) -> Iterator[Paper | ParseError]:
    """Parse a MEDLINE file record by record.

    Args:
        path: the file.

    Returns:
        An iterator of papers (title-only for a record without an abstract) and, for each
        record that cannot be read (a bad date) or text outside any record, a `ParseError`
        at its line.
    """
    name = str(path)
    record: _Record | None = None
    stray: int | None = None
    with path.open("rb") as fh:
        for item in raw_lines(fh, name, hint="is this a PubMed file?"):
            if isinstance(item, ParseError):
                yield item
                continue
            number, raw = item
            try:
                line = decode_line(raw, name, number).rstrip("\r\n")
            except ParseError as exc:
                yield exc
                continue
            if not line.strip():
                if record is not None:
                    yield _paper(record, name)
                record = None
                continue
            tag = _TAG.match(line)
            if tag and tag.group(1) == "PMID":
                if record is not None:
                    yield _paper(record, name)
                record = _Record(number)
            if record is None:
                if stray is None:
                    stray = number
                    reason = "text outside a record: every PubMed record starts with 'PMID- '"
                    yield ParseError(name, reason, number)
                continue
            stray = None
            if line.startswith(_CONTINUATION) and record.tags:
                last, value = record.tags[-1]
                record.tags[-1] = (last, f"{value} {line.strip()}")
            elif tag:
                record.tags.append((tag.group(1), tag.group(2).strip()))
            else:
                reason = "not a 'TAG - value' line nor a continuation: the line is ignored"
                yield ParseError(name, reason, number)
    if record is not None:
        yield _paper(record, name)


def _doi(record: _Record) -> str | None:
    for value in record.values("LID") + record.values("AID"):
        if value.endswith("[doi]"):
            return doi_from(value.removesuffix("[doi]"))
    return None


def _paper(record: _Record, path: str) -> Paper | ParseError:
    pmid = record.first("PMID")
    abstract = clean_abstract(" ".join(record.values("AB")))  # "" for a letter: title-only
    try:
        year = year_from(record.first("DP"), "DP")
    except ValueError as exc:
        return ParseError(path, f"record PMID {pmid}: {exc}", record.line)
    names = record.values("FAU") or record.values("AU")
    authors = [display_name(n) for n in names if n]
    title = clean_markup(record.first("TI"))
    if title.endswith(".") and not title.endswith(".."):
        title = title[:-1]
    return Paper.create(
        authors=authors,
        abstract=abstract,
        title=title or None,
        year=year,
        area=area_from(record.values("OT")),
        doi=_doi(record),
        external_id=f"PMID:{pmid}" if pmid else None,
        source=f"{path}:{record.line}",
        label="" if title else derive_label(authors, abstract, False),
        label_derived=not title,
    )
