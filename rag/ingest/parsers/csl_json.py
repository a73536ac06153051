"""CSL-JSON (.json): what Zotero, Better BibTeX, Pandoc and citeproc read and write.

One JSON array of items (or JSON lines of items), read as `rag.ingest.parsers.jsonl` reads records,
each with its line. Kept: the citation key (`citation-key`, Better BibTeX's `citationKey`,
a `Citation Key: ...` line in `note` (Zotero's Extra field), else `id` when it is a usable
key rather than Zotero's item URI), `title`, `author` (family/given/particles/suffix or
`literal`; a last `{"literal": "others"}`, BibTeX's `and others`, marks the list as cut short),
the year of `issued`, `DOI`, `URL`, `abstract`, `keyword` (the research area: keywords
separated by `;` when there is one, else by commas), `PMID` (the external id) and the `note`
lines our export writes, read line by line. Dropped: container, volume, pages, publisher,
editors, the rest of the date and every other variable.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rag.errors import ParseError
from rag.ingest.naming import clean_abstract, derive_label, usable_key
from rag.ingest.parsers.fields import area_from, doi_from, read_notes, year_from
from rag.ingest.parsers.jsonl import parse_records
from rag.records import Paper
from rag.text import clean_markup

_CSL_KEYS = re.compile(r'"(?:issued|container-title|citation-key|citationKey)"\s*:')
_CSL_AUTHOR = re.compile(r'"author"\s*:\s*\[\s*\{')
_OUR_AUTHORS = re.compile(r'"authors"\s*:')
_NOTE_KEY = re.compile(r"^\s*Citation Key:\s*(\S+)\s*$", re.MULTILINE | re.IGNORECASE)


def looks_like(text: str) -> bool:
    """Return whether `text` (the start of a JSON file) holds CSL-JSON items.

    CSL names people in `author` objects and dates in `issued`; our own schema and BEIR
    use `authors` strings and no such fields.
    """
    if _OUR_AUTHORS.search(text):
        return False
    return bool(_CSL_KEYS.search(text) or _CSL_AUTHOR.search(text))


def parse(path: Path) -> Iterator[Paper | ParseError]:
    """Parse a CSL-JSON file.

    Args:
        path: the file.

    Returns:
        An iterator of papers and, for each item that cannot be read, a `ParseError` with
        the item's line.
    """
    return parse_records(path, paper_from_item)


def _arxiv_number(number: str) -> str | None:
    """The arXiv id a preprint's `number` gives ("arXiv:2206.01234", as Zotero writes it)."""
    return number if re.fullmatch(r"arXiv:\S+", number) else None


def _string(item: dict[str, Any], key: str) -> str:
    value = item.get(key)
    if value is None:
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise ValueError(f"'{key}' must be a string, not {type(value).__name__}")
    return " ".join(value.split())


def _lines(item: dict[str, Any], key: str) -> str:
    """A free-text variable with its lines kept (`note`, Zotero's Extra: a `Key: value` a line)."""
    value = item.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"'{key}' must be a string, not {type(value).__name__}")
    return "\n".join(line for line in (" ".join(n.split()) for n in value.splitlines()) if line)


def _keywords(item: dict[str, Any]) -> list[str]:
    """The `keyword` string cut into keywords: at `;` when it has one (our export's separator
    when a keyword holds a comma, as in "Accountability, Transparency, and Interpretability"),
    else at commas."""
    keywords = _string(item, "keyword")
    return re.split(r"\s*;\s*" if ";" in keywords else r"\s*,\s*", keywords) if keywords else []


def _is_others(person: Any) -> bool:
    """Whether a name is BibTeX's `and others` as converters write it (`{"literal": "others"}`)."""
    return isinstance(person, dict) and set(person) == {"literal"} and person["literal"] == "others"


def _person(person: Any) -> str:
    if not isinstance(person, dict):
        raise ValueError('each \'author\' must be an object such as {"family": ..., "given": ...}')
    if literal := _string(person, "literal"):
        return literal
    family = " ".join(
        p for p in (_string(person, "non-dropping-particle"), _string(person, "family")) if p
    )
    given = " ".join(
        p for p in (_string(person, "given"), _string(person, "dropping-particle")) if p
    )
    name = f"{given} {family}".strip()
    suffix = _string(person, "suffix")
    return f"{name} {suffix}" if suffix and name else name


def _year(item: dict[str, Any]) -> int | None:
    issued = item.get("issued")
    if issued is None:
        return None
    if isinstance(issued, str):  # some exporters write the date as a string
        return year_from(issued, "issued")
    if not isinstance(issued, dict):
        raise ValueError("'issued' must be an object such as {\"date-parts\": [[2020]]}")
    parts = issued.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        return year_from(str(parts[0][0]), "issued")
    return year_from(_string(issued, "raw") or _string(issued, "literal"), "issued")


def _key(item: dict[str, Any], note: str) -> str:
    for name in ("citation-key", "citationKey"):
        if key := _string(item, name):
            return key
    if match := _NOTE_KEY.search(note):
        return match.group(1)
    return usable_key(_string(item, "id")) or ""


def paper_from_item(item: Any, source: str) -> Paper:
    """Build a paper from one decoded CSL-JSON item.

    Args:
        item: the decoded JSON value.
        source: `path:line` of the item.

    Returns:
        The paper, with the item's citation key when it has one.

    Raises:
        ValueError: the item is not an object, or a variable has the wrong type or an
            implausible year; the message says which.
    """
    if not isinstance(item, dict):
        raise ValueError(f"a CSL-JSON item must be an object, not {type(item).__name__}")
    abstract = clean_abstract(_string(item, "abstract"))  # "" (a book, a web page): title-only
    named = f"item '{item['id']}'" if isinstance(item.get("id"), str | int) else "this item"
    people = item.get("author") or []
    if not isinstance(people, list):
        raise ValueError(f"{named}: 'author' must be a list of names")
    others = bool(people) and _is_others(people[-1])
    authors = [name for name in (_person(p) for p in people[: -1 if others else None]) if name]
    note = _lines(item, "note")
    label, truncated = read_notes([note])
    truncated = truncated or others
    title = clean_markup(_string(item, "title")) or None
    pmid = _string(item, "PMID")
    return Paper.create(
        authors=authors,
        abstract=abstract,
        title=title,
        year=_year(item),
        area=area_from(_keywords(item)),
        doi=doi_from(_string(item, "DOI")),
        url=_string(item, "URL") or None,
        authors_truncated=truncated,
        external_id=f"PMID:{pmid}" if pmid else _arxiv_number(_string(item, "number")),
        source=source,
        citation_key=_key(item, note),
        label="" if title else label or derive_label(authors, abstract, truncated),
        label_derived=title is None,
    )
