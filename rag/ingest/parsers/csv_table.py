"""CSV and TSV tables with a header row, such as Zotero, Scopus or spreadsheet exports.

Columns are found by their usual names, whatever the case and punctuation: abstract
("Abstract Note", "summary"), title, authors ("Author", "Author full names"), year
("Publication Year", or a date), doi, url ("link"), and research area ("area", "keywords",
"categories"). A row that cannot be read is a `ParseError` at its line (a quoted cell may span
lines); the other rows still count.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from rag.errors import ParseError
from rag.ingest.parsers.jsonl import paper_from_record
from rag.ingest.parsers.limits import MAX_ABSTRACT_CHARS
from rag.ingest.parsers.reading import text_lines
from rag.records import Paper

# Our field → header names that mean it, normalized (lower-case letters and digits only).
COLUMNS: dict[str, tuple[str, ...]] = {
    "abstract": ("abstract", "abstractnote", "summary", "description", "text"),
    "title": ("title", "papertitle", "articletitle", "documenttitle"),
    "authors": ("authors", "author", "authorfullnames", "creators", "authorlist"),
    "year": ("year", "publicationyear", "pubyear", "date", "publicationdate", "published"),
    "doi": ("doi",),
    "url": ("url", "link", "pdfurl"),
    "area": (
        "area", "researcharea", "field", "subject", "categories", "category",
        "keywords", "authorkeywords", "manualtags",
    ),
}  # fmt: skip
_DELIMITERS = ",;\t"
_HINT = "is this a CSV table?"


def _normalize(header: str) -> str:
    return re.sub(r"[^a-z0-9]", "", header.casefold())


def map_columns(header: list[str]) -> dict[str, int]:
    """Return, for each field we know, the index of the first column that holds it.

    Args:
        header: the header row.

    Returns:
        Field name → column index, for the fields found.
    """
    found: dict[str, int] = {}
    normalized = [_normalize(h) for h in header]
    for name, aliases in COLUMNS.items():
        for alias in aliases:
            if alias in normalized:
                found[name] = normalized.index(alias)
                break
    return found


def parse(path: Path) -> Iterator[Paper | ParseError]:
    """Parse a CSV/TSV file with a header row.

    Args:
        path: the file.

    Returns:
        An iterator of papers and, per bad row, a `ParseError` with the row's first line; a
        file without an abstract column is one `ParseError` naming the columns it has.
    """
    delimiter = "\t" if path.suffix == ".tsv" else None
    # Split at "\r" too, as a file opened with newline="" would be, for old Mac exports.
    lines = (part for _, line in text_lines(path, _HINT) for part in io.StringIO(line, newline=""))
    try:
        yield from parse_lines(lines, str(path), delimiter)
    except ParseError as exc:
        yield exc


def parse_text(text: str, path: str, delimiter: str | None = None) -> Iterator[Paper | ParseError]:
    """Parse CSV text; the delimiter is sniffed from the header line when not given."""
    return parse_lines(io.StringIO(text, newline=""), path, delimiter)


def parse_lines(
    lines: Iterable[str], path: str, delimiter: str | None = None
) -> Iterator[Paper | ParseError]:
    """Parse CSV lines (line breaks kept), read lazily.

    Args:
        lines: the table's lines.
        path: the file name used in `Paper.source` and in errors.
        delimiter: the cell separator; sniffed from the header line when None.

    Returns:
        An iterator of papers and `ParseError`s, in table order.
    """
    lines = iter(lines)
    header_line = next(lines, "")
    if delimiter is None:
        counts = {d: header_line.count(d) for d in _DELIMITERS}
        delimiter = max(counts, key=lambda d: counts[d]) if any(counts.values()) else ","
    last: list[str] = [header_line]  # the line the reader took last

    def remembered(rest: Iterator[str]) -> Iterator[str]:
        for text in rest:
            last[0] = text
            yield text

    reader = csv.reader(itertools.chain([header_line], remembered(lines)), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        yield ParseError(path, f"unreadable header row ({exc}): fix its quotes", 1)
        return
    columns = map_columns(header)
    if "abstract" not in columns:
        shown = ", ".join(repr(h) for h in header[:12])
        yield ParseError(
            path, f"no abstract column in the header ({shown}): name one 'abstract'", 1
        )
        return
    # Zotero writes "Family, Given; Family, Given": there a comma never separates two authors.
    semicolons_only = bool({"itemtype", "abstractnote"} & {_normalize(h) for h in header})
    line = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            start, line = line, reader.line_num + 1
            if "field larger than field limit" not in str(exc):
                yield ParseError(path, f"unreadable row ({exc}): fix its quotes", start)
                return
            if line - start > 1 or last[0].count('"') % 2:
                # The cell runs on past this line (an open quote): a full text as likely as a
                # quote left open, and starting afresh mid-cell would read its text as rows.
                rest = _too_large_cell("the rest of the file is skipped")
                yield ParseError(path, f"{rest}, or a quote left open?", start)
                return
            # A one-line row: the reader starts afresh on the next line, the rest still counts.
            yield ParseError(path, _too_large_cell() + "?", start)
            continue
        start, line = line, reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            reason = (
                f"the row has {len(row)} cells but the header has {len(header)}: "
                f"check its quotes and {delimiter!r} separators"
            )
            yield ParseError(path, reason, start)
            continue
        yield _paper(row, columns, path, start, semicolons_only)


def _too_large_cell(skipped: str = "the row is skipped") -> str:
    limit = csv.field_size_limit()
    return (
        f"a cell is longer than {limit:,} characters, more than any abstract (the cap is "
        f"{MAX_ABSTRACT_CHARS:,}): {skipped}; is this the full text"
    )


def _paper(
    row: list[str], columns: dict[str, int], path: str, line: int, semicolons_only: bool
) -> Paper | ParseError:
    record: dict[str, str | list[str] | None] = {
        name: row[index].strip() or None for name, index in columns.items()
    }
    if semicolons_only and isinstance(authors := record.get("authors"), str):
        record["authors"] = [a.strip() for a in authors.split(";") if a.strip()]
    if isinstance(year := record.get("year"), str):
        # A date ("2024-05-01", "May 2024") gives its year; anything else is reported.
        match = re.search(r"\b(\d{4})\b", year)
        record["year"] = match.group(1) if match else year
    if isinstance(area := record.get("area"), str):
        record["area"] = " · ".join(p.strip() for p in area.split(";") if p.strip())
    try:
        return paper_from_record(record, f"{path}:{line}")
    except ValueError as exc:
        return ParseError(path, str(exc), line)
