"""The seed page format: paragraphs of research area, author list and abstract.

A page starts with the header `论文检索`. Each entry is an optional research-area line
("Deep Learning · Large Language Models"), an author line ("A, B, C" or "A, B 等" when the
list was cut short) and an abstract paragraph, separated by blank lines. An entry without an
area line has area None: areas never carry over from one entry to the next.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import ParseError
from rag.ingest.naming import clean_abstract, derive_label, split_authors
from rag.ingest.parsers.limits import MAX_ABSTRACT_CHARS, abstract_too_long
from rag.ingest.parsers.reading import text_lines
from rag.records import Paper

HEADER = "论文检索"
_AREA_SEPARATOR = " · "
# Lower-case words of English prose that never appear in a personal name.
_PROSE_WORDS = {
    "the", "a", "an", "of", "and", "or", "to", "in", "on", "for", "with", "we", "is", "are",
    "was", "this", "that", "by", "from", "as", "our", "it", "be", "can", "which",
}  # fmt: skip
_NAME_END = re.compile(r"(?:[A-Z]\.)+|Jr\.|Sr\.")
_NO_ABSTRACT = "entry without an abstract: add it or remove the entry"
# A paragraph this long is over the abstract cap whatever markup it holds: count, don't keep.
_MAX_PROSE_CHARS = 4 * MAX_ABSTRACT_CHARS


def parse(path: Path) -> Iterator[Paper | ParseError]:
    """Parse a seed page file.

    Args:
        path: the file.

    Returns:
        An iterator of papers and, for entries that cannot be read, `ParseError`s carrying
        the file and the entry's first line.
    """
    lines = text_lines(path, hint="is this a seed page?")
    try:
        yield from parse_lines((part for _, line in lines for part in _split(line)), str(path))
    except ParseError as exc:
        yield exc


def _split(line: str) -> list[str]:
    """Split one newline-ended line at every line break `str.splitlines` knows."""
    return line.splitlines() or [""]


def looks_like(text: str) -> bool:
    """Return whether `text` (the start of a file) is in the seed page layout.

    Args:
        text: the first kilobytes of a file.

    Returns:
        True when it starts with the `论文检索` header, or has an area line followed by an
        author line.
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and lines[0] == HEADER:
        return True
    return any(_is_area(a) and _is_authors(b) for a, b in itertools.pairwise(lines))


@dataclass
class _Entry:
    line: int
    area: str | None = None
    authors: list[str] = field(default_factory=list)
    truncated: bool = False


def parse_text(text: str, path: str) -> Iterator[Paper | ParseError]:
    """Parse seed page text.

    Args:
        text: the whole page.
        path: the file name used in `Paper.source` and in errors.

    Returns:
        An iterator of papers and `ParseError`s, in page order.
    """
    return parse_lines(text.splitlines(), path)


def parse_lines(lines: Iterable[str], path: str) -> Iterator[Paper | ParseError]:
    """Parse the lines of a seed page, read lazily.

    Args:
        lines: the page's lines, without their line breaks.
        path: the file name used in `Paper.source` and in errors.

    Returns:
        An iterator of papers and `ParseError`s, in page order.
    """
    entry: _Entry | None = None
    for kind, content, line in _paragraphs(lines):
        if kind == "long":
            yield ParseError(path, abstract_too_long(int(content)), line)
            entry = None
            continue
        if kind == "prose":
            if entry is None or not entry.authors:
                reason = "abstract without an author line before it: add the authors"
                yield ParseError(path, reason, line)
            else:
                yield _paper(entry, content, path)
            entry = None
            continue
        if entry is not None and (kind == "area" or entry.authors):
            yield ParseError(path, _NO_ABSTRACT, entry.line)
            entry = None
        if kind == "area":
            entry = _Entry(line, area=content)
        else:
            entry = entry or _Entry(line)
            entry.authors, entry.truncated = split_authors(content)
    if entry is not None:
        yield ParseError(path, _NO_ABSTRACT, entry.line)


def _paper(entry: _Entry, raw_abstract: str, path: str) -> Paper:
    abstract = clean_abstract(raw_abstract)
    return Paper.create(
        authors=entry.authors,
        abstract=abstract,
        area=entry.area,
        authors_truncated=entry.truncated,
        source=f"{path}:{entry.line}",
        label=derive_label(entry.authors, abstract, entry.truncated),
        label_derived=True,
    )


def _paragraphs(lines: Iterable[str]) -> Iterator[tuple[str, str, int]]:
    """Yield (kind, text, 1-based line) for each area line, author line and prose paragraph.

    Consecutive prose lines (a wrapped abstract) make one paragraph; the page header and
    blank lines are skipped. A paragraph past `_MAX_PROSE_CHARS` is not kept: it comes as
    kind "long" with its length as the text.
    """
    prose: list[str] = []
    prose_line = prose_chars = 0
    seen_content = False
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        kind = "blank" if not line else _kind(line)
        if kind != "prose" and prose_chars:
            yield _prose(prose, prose_chars, prose_line)
            prose, prose_chars = [], 0
        if kind == "blank" or (line == HEADER and not seen_content):
            continue
        seen_content = True
        if kind == "prose":
            prose_line = prose_line if prose_chars else number
            prose_chars += len(line) + bool(prose_chars)
            if prose_chars <= _MAX_PROSE_CHARS:
                prose.append(line)
        else:
            yield kind, line, number
    if prose_chars:
        yield _prose(prose, prose_chars, prose_line)


def _prose(lines: list[str], chars: int, number: int) -> tuple[str, str, int]:
    if chars > _MAX_PROSE_CHARS:
        return "long", str(chars), number
    return "prose", " ".join(lines), number


def _kind(line: str) -> str:
    if _is_area(line):
        return "area"
    return "authors" if _is_authors(line) else "prose"


def _is_area(line: str) -> bool:
    parts = line.split(_AREA_SEPARATOR)
    return (
        len(parts) >= 2
        and len(line) <= 200
        and all(0 < len(part.strip()) <= 80 for part in parts)
        and not line.endswith((".", "。"))
    )


def _is_authors(line: str) -> bool:
    """An author line is a comma list of short names, not prose with commas."""
    names, _ = split_authors(line)
    if not names or any(not _is_name(name) for name in names):
        return False
    # Names have capitals or CJK characters; a few are written in lower case.
    marked = sum(1 for n in names if any(ch.isupper() or ord(ch) > 0x2E80 for ch in n))
    return marked * 2 >= len(names)


def _is_name(name: str) -> bool:
    words = name.split()
    if not words or len(name) > 60 or len(words) > 6:
        return False
    if any(word in _PROSE_WORDS for word in words) or re.search(
        r"[\d:;!?\"“”\u3002\uff01\uff1f]", name
    ):
        return False
    if len(words) == 1 and ord(name[0]) > 0x2E80 and len(name) > 6:
        return False  # CJK names are short; a long run of CJK text is prose
    return not name.endswith(".") or bool(_NAME_END.fullmatch(words[-1]))
