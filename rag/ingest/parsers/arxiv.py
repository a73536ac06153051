"""The arXiv metadata snapshot: JSON lines with `id`, `title`, `authors`, `abstract`, ...

`authors` is one string with LaTeX accents and sometimes affiliations in parentheses
("C. Bal\\'azs (MIT), E. L. Berger"). The year is the year of the first version, read from
the arXiv id (`0704.0001` → 2007, `hep-th/9901001` → 1999) or from `versions[0].created`;
`update_date` is the date of the last revision, so it is not used as the year. `categories`
become the research area, the abstract page the URL, and `arXiv:<id>` the external id.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rag.errors import ParseError
from rag.ingest.naming import split_authors
from rag.ingest.parsers.bibtex import decode_latex
from rag.ingest.parsers.jsonl import paper_from_record
from rag.ingest.parsers.reading import decode_line, raw_lines
from rag.records import Paper

KEYS = frozenset({"id", "title", "authors", "abstract", "categories"})
_NEW_ID = re.compile(r"(\d{2})(\d{2})\.\d{4,5}(?:v\d+)?")
_OLD_ID = re.compile(r"[a-z\-]+(?:\.[A-Z]{2})?/(\d{2})(\d{2})\d{3}(?:v\d+)?")
_PARENTHESES = re.compile(r"\s*\([^()]*\)")


def is_arxiv_record(record: Any) -> bool:
    """Return whether a decoded JSON value is an arXiv snapshot record."""
    return isinstance(record, dict) and record.keys() >= KEYS and isinstance(record["authors"], str)


def looks_like(text: str) -> bool:
    """Return whether `text` (the start of a file) holds arXiv snapshot lines."""
    for line in text.splitlines():
        if line.strip():
            try:
                return is_arxiv_record(json.loads(line))
            except ValueError:
                return False
    return False


def parse(path: Path) -> Iterator[Paper | ParseError]:
    """Parse an arXiv metadata snapshot file (or a slice of it).

    Args:
        path: the file, one JSON object per line.

    Returns:
        An iterator of papers and, per bad line, a `ParseError` with its line.
    """
    with path.open("rb") as fh:
        for item in raw_lines(fh, str(path), hint="is this an arXiv metadata snapshot?"):
            if isinstance(item, ParseError):
                yield item
            elif item[1].strip():
                yield _line(item[1], item[0], str(path))


def _line(raw: bytes, number: int, path: str) -> Paper | ParseError:
    try:
        record = json.loads(decode_line(raw, path, number))
    except ParseError as exc:
        return exc
    except json.JSONDecodeError as exc:
        return ParseError(path, f"invalid JSON ({exc.msg}, column {exc.colno})", number)
    try:
        return paper_from_arxiv(record, f"{path}:{number}")
    except ValueError as exc:
        return ParseError(path, str(exc), number)


def paper_from_arxiv(record: Any, source: str) -> Paper:
    """Build a paper from one arXiv snapshot record.

    Args:
        record: the decoded JSON object.
        source: `path:line` of the record.

    Returns:
        The paper.

    Raises:
        ValueError: the record is not an object, lacks an id or abstract, or has fields of
            the wrong type; the message says which.
    """
    if not isinstance(record, dict):
        raise ValueError(f"a record must be a JSON object, not {type(record).__name__}")
    arxiv_id = record.get("id")
    if not isinstance(arxiv_id, str) or not arxiv_id.strip():
        raise ValueError("missing 'id': an arXiv record needs its identifier, e.g. '2101.00001'")
    arxiv_id = arxiv_id.strip()
    authors = record.get("authors") or ""
    if not isinstance(authors, str):
        raise ValueError(f"'authors' must be a string, not {type(authors).__name__}")
    names, truncated = split_authors(_without_affiliations(decode_latex(authors)))
    doi = record.get("doi")
    return paper_from_record(
        {
            "authors": names,
            "authors_truncated": truncated,
            "abstract": record.get("abstract"),
            "title": record.get("title"),
            "year": _year(arxiv_id, record.get("versions")),
            "doi": doi.split()[0] if isinstance(doi, str) and doi.strip() else None,
            "url": f"https://arxiv.org/abs/{arxiv_id}",
            "area": record.get("categories"),
            "external_id": f"arXiv:{arxiv_id}",
        },
        source,
    )


def _without_affiliations(authors: str) -> str:
    """Drop "(MIT)" and "((1) MIT, (2) Harvard)" from an author string."""
    while (stripped := _PARENTHESES.sub("", authors)) != authors:
        authors = stripped
    return authors


def _year(arxiv_id: str, versions: Any) -> int | None:
    if match := _NEW_ID.fullmatch(arxiv_id):
        return 2000 + int(match.group(1))
    if match := _OLD_ID.fullmatch(arxiv_id):
        yy = int(match.group(1))
        return (1900 if yy >= 91 else 2000) + yy
    first = versions[0] if isinstance(versions, list) and versions else None
    if isinstance(first, dict) and (match := re.search(r"\b(\d{4})\b", str(first.get("created")))):
        return int(match.group(1))
    return None
