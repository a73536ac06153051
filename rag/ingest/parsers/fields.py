"""Field values shared by the reference-manager formats (RIS, CSL-JSON, PubMed, CSV, Web of
Science): years, DOIs, keywords, abstracts, and the notes our own export writes (so an export
reads back the same)."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable

from rag.ingest.naming import AREA_SEPARATOR, DERIVED_NOTE, TRUNCATED_NOTE

EARLIEST_YEAR = 1600
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
# What exporters write in the abstract field of an entry that has none (Scopus, Lens).
_NO_ABSTRACT = re.compile(r"^\W*(?:no abstract(?: is)? available|abstract not available)\W*$", re.I)


def is_placeholder(abstract: str) -> bool:
    """Return whether an abstract field only says there is none ("[No abstract available]")."""
    return bool(_NO_ABSTRACT.match(abstract))


def year_from(text: str | None, field: str) -> int | None:
    """Return the year a date field starts with ("2020", "2020/05/01/", "2020 May 1").

    Args:
        text: the field value, or None.
        field: the field's name, for the error.

    Returns:
        The year, or None when the field is empty.

    Raises:
        ValueError: the field holds no four-digit year, or an implausible one.
    """
    text = (text or "").strip()
    if not text:
        return None
    match = _YEAR.search(text)
    latest = datetime.date.today().year + 1
    if not match or not EARLIEST_YEAR <= int(match.group(1)) <= latest:
        raise ValueError(
            f"'{field}' {text!r} is not a date with a year between {EARLIEST_YEAR} and {latest}"
        )
    return int(match.group(1))


def doi_from(text: str | None) -> str | None:
    """Return a DOI without its resolver prefix ("https://doi.org/10.1/x" → "10.1/x")."""
    doi = _DOI_PREFIX.sub("", (text or "").strip()).strip()
    return doi or None


def area_from(keywords: Iterable[str]) -> str | None:
    """Join keywords as the research area, the way the BibTeX reader does."""
    parts = [" ".join(k.split()) for k in keywords]
    return AREA_SEPARATOR.join(p for p in parts if p) or None


def read_notes(notes: Iterable[str]) -> tuple[str | None, bool]:
    """Read back our export's notes: the derived label, and whether authors were cut short.

    Returns:
        The derived label (None when no note carries one), and the truncation flag.
    """
    label, truncated = None, False
    for note in notes:
        for line in note.splitlines():
            line = line.strip()
            if line == TRUNCATED_NOTE:
                truncated = True
            elif line.startswith(f"{DERIVED_NOTE}: "):
                label = line.removeprefix(f"{DERIVED_NOTE}: ").strip() or None
    return label, truncated


def first_line_matches(text: str, start: re.Pattern[str]) -> bool:
    """Return whether the first non-blank line of `text` (a BOM dropped) matches `start`."""
    for line in text.splitlines():
        if line.strip():
            return bool(start.match(line.lstrip("\ufeff")))
    return False
