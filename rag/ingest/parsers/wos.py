"""Web of Science exports: the "Plain text file" (`savedrecs.txt`) and the tab-delimited file.

Both use Clarivate's two-letter field tags. The plain text opens with `FN` and `VR` lines,
holds records from `PT` to `ER`, and ends with `EF`; a value runs on in lines that start
with three spaces (one author, one address or one more piece of the title per line). The
tab-delimited export has a header row of the same tags and one record per row, authors and
keywords separated by "; ". Both are told by content (`looks_like`), whatever the file is
called: they are saved as .txt, and often renamed .ris or .csv.

Kept: `AF` (full names; else `AU`, else the group author `CA`), `TI`, `AB`, `PY` (else the
early-access year `EY`), `DI`, `UT` (the accession number, as the external id) and the
keywords `DE` (the authors') and `ID` (Keywords Plus) as the research area. Dropped: `SO`
and the other journal fields, addresses, cited references, counts and the rest. A record
without `AB` is a title-only paper; a record that cannot be read is a `ParseError` at the
line where it starts, and the others still count.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import ParseError
from rag.ingest.naming import clean_abstract, derive_label, display_name
from rag.ingest.parsers.fields import area_from, doi_from, is_placeholder, year_from
from rag.ingest.parsers.reading import decode_line, raw_lines
from rag.records import Paper
from rag.text import clean_markup

_TAG = re.compile(r"^([A-Z][A-Z0-9])(?: (.*))?$")
_CONTINUATION = "   "
_HEADER_TAGS = {"FN", "VR"}
# Tags whose continuation lines are further items (one name per line), not more text.
_LIST_TAGS = {"AU", "AF", "CA", "BA", "BF", "BE", "C1", "C3", "CR", "EM", "RI", "OI", "FU"}
_FN = re.compile(r"^FN \S")
_PT = re.compile(r"^PT [A-Z]\s*$")
_FIELD = re.compile(r"^(?:AU|AF|TI|UT) ", re.MULTILINE)
_HINT = "is this a Web of Science export?"


def looks_like(text: str) -> bool:
    """Return whether `text` (the start of a file, BOM dropped) is a Web of Science export.

    The plain text starts with its `FN` line (or, cut from a larger file, with `PT J` and
    tagged fields after it); the tab-delimited file with a header row `PT<tab>AU<tab>...`.
    """
    first = next((line for line in text.splitlines() if line.strip()), "").lstrip("\ufeff")
    if _FN.match(first):
        return True
    if _PT.match(first):
        return bool(_FIELD.search(text))
    cells = first.rstrip("\r\n").split("\t")
    return cells[0] == "PT" and "TI" in cells and ("AU" in cells or "UT" in cells)


def parse(path: Path) -> Iterator[Paper | ParseError]:
    """Parse a Web of Science plain-text or tab-delimited export.

    Args:
        path: the file.

    Returns:
        An iterator of papers (title-only for a record without an abstract) and, for each
        record that cannot be read (no `ER`, a bad year, a row of the wrong width) or text
        outside any record, a `ParseError` at its line.
    """
    name = str(path)
    lines = _lines(path, name)
    first = next(lines, None)
    while isinstance(first, tuple) and not first[1].strip():
        first = next(lines, None)  # blank lines before the header
    if first is None:
        return
    if isinstance(first, ParseError):
        yield first
        return
    number, text = first
    if text.split("\t")[0] == "PT" and "\t" in text:
        yield from _parse_table(text, lines, name)
    else:
        yield from _parse_tagged((number, text), lines, name)


def _lines(path: Path, name: str) -> Iterator[tuple[int, str] | ParseError]:
    """Yield (line number, text without its newline), and a `ParseError` per bad line."""
    with path.open("rb") as fh:
        for item in raw_lines(fh, name, hint=_HINT):
            if isinstance(item, ParseError):
                yield item
                continue
            number, raw = item
            try:
                yield number, decode_line(raw, name, number).rstrip("\r\n")
            except ParseError as exc:
                yield exc


@dataclass
class _Record:
    line: int
    tags: dict[str, list[str]] = field(default_factory=dict)
    last: str = ""

    def add(self, tag: str, value: str) -> None:
        self.tags.setdefault(tag, []).append(value.strip())
        self.last = tag

    def go_on(self, value: str) -> None:
        """Add a continuation line to the last field: one more item, or more of its text."""
        values = self.tags[self.last]
        if self.last in _LIST_TAGS:
            values.append(value.strip())
        else:
            values[-1] = f"{values[-1]} {value.strip()}".strip()

    def text(self, *tags: str) -> str:
        for tag in tags:
            if value := " ".join(v for v in self.tags.get(tag, []) if v):
                return " ".join(value.split())
        return ""

    def items(self, *tags: str) -> list[str]:
        for tag in tags:
            if values := [v for v in self.tags.get(tag, []) if v]:
                return values
        return []


def _parse_tagged(
    first: tuple[int, str], rest: Iterator[tuple[int, str] | ParseError], path: str
) -> Iterator[Paper | ParseError]:
    record: _Record | None = None
    stray: int | None = None  # first line of text outside a record, reported once per run
    for item in _chain(first, rest):
        if isinstance(item, ParseError):
            yield item
            continue
        number, line = item
        tag = _TAG.match(line)
        name, value = (tag.group(1), tag.group(2) or "") if tag else ("", "")
        if name == "PT":
            if record is not None:
                reason = "record has no 'ER' line before the next 'PT': it is skipped"
                yield ParseError(path, reason, record.line)
            if stray is not None:
                yield _stray(path, stray)
                stray = None
            record = _Record(number)
            record.add("PT", value)
        elif record is None:
            if name in _HEADER_TAGS or name == "EF" or not line.strip():
                continue
            if stray is None:
                stray = number
        elif name == "ER":
            yield _paper(record, path)
            record = None
        elif name == "EF":
            reason = "record has no 'ER' line before the file's 'EF': it is skipped"
            yield ParseError(path, reason, record.line)
            record = None
        elif line.startswith(_CONTINUATION) and record.last:
            record.go_on(line)
        elif tag:
            record.add(name, value)
        elif line.strip():
            reason = (
                "not a 'TG value' line nor a continuation (three spaces, then the value): "
                "the line is ignored"
            )
            yield ParseError(path, reason, number)
    if stray is not None:
        yield _stray(path, stray)
    if record is not None:
        reason = "the last record has no 'ER' line: add it, or the record is skipped"
        yield ParseError(path, reason, record.line)


def _chain(
    first: tuple[int, str], rest: Iterator[tuple[int, str] | ParseError]
) -> Iterator[tuple[int, str] | ParseError]:
    yield first
    yield from rest


def _stray(path: str, line: int) -> ParseError:
    reason = (
        "text outside a record: every Web of Science record starts with 'PT' and ends with 'ER'"
    )
    return ParseError(path, reason, line)


def _parse_table(
    header_line: str, rows: Iterator[tuple[int, str] | ParseError], path: str
) -> Iterator[Paper | ParseError]:
    header = [cell.strip() for cell in header_line.split("\t")]
    width = len(header)
    while header and not header[-1]:
        header.pop()  # the export ends every row with a tab
    for item in rows:
        if isinstance(item, ParseError):
            yield item
            continue
        number, line = item
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) > width and any(c.strip() for c in cells[width:]):
            reason = (
                f"the row has {len(cells)} cells but the header has {width}: is a tab in a "
                "value, or is the row cut in two?"
            )
            yield ParseError(path, reason, number)
            continue
        record = _Record(number)
        for tag, cell in zip(header, cells, strict=False):
            if tag in _LIST_TAGS:
                for part in cell.split(";"):
                    record.add(tag, part)
            else:
                record.add(tag, cell)
        yield _paper(record, path)


def _paper(record: _Record, path: str) -> Paper | ParseError:
    accession = record.text("UT")
    named = f"record {accession}" if accession else "this record"
    try:
        year = _year(record)
    except ValueError as exc:
        return ParseError(path, f"{named}: {exc}", record.line)
    abstract = clean_abstract(record.text("AB"))
    abstract = "" if is_placeholder(abstract) else abstract
    authors = [display_name(n) for n in record.items("AF", "AU", "CA")]
    authors = [a for a in authors if a]
    title = clean_markup(record.text("TI")) or None
    keywords = [
        k for tag in ("DE", "ID") for value in record.tags.get(tag, []) for k in value.split(";")
    ]
    seen: set[str] = set()
    unique = [k for k in keywords if k.strip() and not _seen(k, seen)]
    return Paper.create(
        authors=authors,
        abstract=abstract,
        title=title,
        year=year,
        area=area_from(unique),
        doi=doi_from(record.text("DI")),
        external_id=accession or None,
        source=f"{path}:{record.line}",
        label="" if title else derive_label(authors, abstract, False),
        label_derived=title is None,
    )


def _year(record: _Record) -> int | None:
    for tag in ("PY", "EY"):
        if value := record.text(tag):
            return year_from(value, tag)
    return None


def _seen(keyword: str, seen: set[str]) -> bool:
    """Whether a keyword came already (Keywords Plus repeats the authors' in capitals)."""
    key = " ".join(keyword.split()).casefold()
    if key in seen:
        return True
    seen.add(key)
    return False
