"""The same paper read twice: one record, with what each copy gives.

A library exported from two reference managers holds its papers twice: the same authors, title
and abstract (so the same id), one copy with its DOI and the other without, one with the user's
citation key and the other with none. The first copy read used to be kept whole, so what only
the other gave was lost, and which was lost depended on the order of the files. Now a field one
copy lacks is taken from the other; where both give it and they differ, the copy read first is
kept, and the ingest's note says so. A record already stored gains the fields it lacks from a
copy read later, and one whose own file now gives other values takes them (the file was
edited); no field is emptied.

Copies are the same paper when they share the id, or when only the way their authors' names
are written differs: PubMed writes "Wei K Nakamura", a RIS or BibTeX export "Wei K. Nakamura"
(`copy_key`).
"""

from __future__ import annotations

import re

from rag.ingest.naming import family_name
from rag.records import Paper
from rag.text import fold

# What a copy may give that the other lacks (authors, title and abstract make the id).
FIELDS = ("citation_key", "year", "doi", "url", "area", "external_id")
_NAMES = {
    "citation_key": "citation key",
    "year": "year",
    "doi": "DOI",
    "url": "URL",
    "area": "area",
    "external_id": "external id",
}


def _letters(text: str) -> str:
    return " ".join(re.findall(r"\w+", fold(text)))


def copy_key(paper: Paper) -> tuple[str, str, str] | None:
    """What two copies of a paper share however their authors' given names are written
    ("Wei K Nakamura", "Wei K. Nakamura", "Nakamura, Wei K."): the authors' family names,
    the title and the abstract, without case, accents or punctuation (None: a record without
    an abstract, which `rag.ingest.pipeline` matches on its own)."""
    if not paper.abstract.strip():
        return None
    families = " ".join(_letters(family_name(a)) for a in paper.authors)
    return families, _letters(paper.title or ""), _letters(paper.abstract)


def opening(paper: Paper) -> str:
    """The first twenty words of a paper's abstract, as `copy_key` reads them: what a copy
    must share before its whole key is worth computing (a 100k-paper library is not read
    whole for each new paper)."""
    return " ".join(_letters(paper.abstract[:300]).split()[:20])


def merged(first: Paper, other: Paper) -> tuple[Paper, list[str], list[str]]:
    """Return `first` with the fields it lacks taken from `other` (the same paper read again),
    the names of those fields, and those both give with different values (kept from
    `first`)."""
    filled = [f for f in FIELDS if not getattr(first, f) and getattr(other, f)]
    differing = [
        f
        for f in FIELDS
        if getattr(first, f) and getattr(other, f) and getattr(first, f) != getattr(other, f)
    ]
    return first.with_(**{f: getattr(other, f) for f in filled}), filled, differing


def refreshed(stored: Paper, read: Paper) -> tuple[Paper, list[str]]:
    """Return the stored record as the copy just `read` gives it, and the fields that changed:
    from its own file (edited), every field it gives but the citation key (settled at ingest);
    from another file, only those the stored record lacks. A field is never emptied: the
    stored value may have come from another copy (the DOI of a .ris beside the .bib)."""
    if stored.source_file == read.source_file:
        changed = [
            f
            for f in FIELDS
            if f != "citation_key" and getattr(read, f) and getattr(read, f) != getattr(stored, f)
        ]
        return stored.with_(**{f: getattr(read, f) for f in changed}), changed
    paper, filled, _ = merged(stored, read)
    return paper, [f for f in filled if f != "citation_key"]


def note(first: Paper, other: Paper, filled: list[str], differing: list[str]) -> str:
    """The ingest's line on `other`, read after `first` and found to be the same paper."""
    text = f"{other.source}: the same paper as {first.source} (same authors, title and abstract)"
    parts = []
    if filled:
        parts.append(f"its {_listed(filled)} taken from here")
    for field in differing:
        parts.append(
            f"the {_NAMES[field]} {getattr(first, field)!r} of the first copy kept "
            f"(here {getattr(other, field)!r})"
        )
    return f"{text}: stored once" + (f", {'; '.join(parts)}" if parts else "")


def _listed(fields: list[str]) -> str:
    names = [_NAMES[f] for f in fields]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
