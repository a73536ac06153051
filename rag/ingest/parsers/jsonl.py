"""JSON records of papers: our own schema (`Paper.to_dict()`) and BEIR `corpus.jsonl`.

One record per line (JSON lines, read a line at a time), or one JSON array (read whole, so
capped at `rag.ingest.parsers.reading.MAX_DOCUMENT_BYTES`). A BEIR record (`_id`, `title`, `text`,
optional `metadata`) becomes a paper with `external_id` = `_id`, abstract = `text` and no
authors; a record from the user's own pipeline with `id`, `title`, `text` keeps its `id` as
`external_id` the same way (`_id`, then `external_id`, win when present). A record without
an abstract is a title-only paper. A bad record becomes a `ParseError` with its line; the
other records still count.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from rag.errors import ParseError
from rag.ingest.naming import clean_abstract, derive_label, split_authors
from rag.ingest.parsers.fields import is_placeholder
from rag.ingest.parsers.reading import decode_line, raw_lines, read_document
from rag.records import Paper
from rag.text import clean_markup

_EARLIEST_YEAR = 1600


def parse(path: Path) -> Iterator[Paper | ParseError]:
    """Parse a JSON lines file line by line, or a file holding one JSON array.

    Args:
        path: the file.

    Returns:
        An iterator of papers and, for each bad record, a `ParseError` with its line.
    """
    return parse_records(path, paper_from_record)


Builder = Callable[[Any, str], Paper]


def parse_records(path: Path, build: Builder) -> Iterator[Paper | ParseError]:
    """Parse JSON lines or one JSON array, turning each record into a paper with `build`.

    Args:
        path: the file.
        build: makes a paper of one decoded record and its `path:line`; raises ValueError
            with the reason for a bad record.

    Returns:
        An iterator of papers and, for each bad record, a `ParseError` with its line.
    """
    with path.open("rb") as fh:
        is_array = _first_byte(fh) == b"["
        if not is_array:
            for item in raw_lines(fh, str(path), hint="is this a JSON lines file?"):
                if isinstance(item, ParseError):
                    yield item
                else:
                    yield from _parse_line(item[1], item[0], str(path), build)
            return
    try:
        text = read_document(
            path,
            f"convert it to JSON lines, which are read one at a time: "
            f"jq -c '.[]' {path.name} > {path.stem}.jsonl",
        )
    except ParseError as exc:
        yield exc
        return
    yield from _parse_array(text, str(path), build)


def _first_byte(fh: IO[bytes]) -> bytes:
    head = fh.read(4096).removeprefix(b"\xef\xbb\xbf").lstrip()
    fh.seek(0)
    return head[:1]


def _parse_line(raw: bytes, number: int, path: str, build: Builder) -> Iterator[Paper | ParseError]:
    try:
        line = decode_line(raw, path, number)
    except ParseError as exc:
        yield exc
        return
    if not line.strip():
        return
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        reason = f"invalid JSON ({exc.msg}, column {exc.colno}): fix or remove this line"
        yield ParseError(path, reason, number)
        return
    yield _record(record, path, number, build)


def _parse_array(text: str, path: str, build: Builder) -> Iterator[Paper | ParseError]:
    """Parse `[record, ...]`, tracking each record's line; stop at a syntax error."""
    decoder = json.JSONDecoder()
    pos = text.index("[") + 1
    line, counted = 1, 0
    while True:
        pos = _skip_separators(text, pos)
        line, counted = line + text.count("\n", counted, pos), pos
        if pos >= len(text):
            yield ParseError(path, "the JSON array is not closed with ']'", line)
            return
        if text[pos] == "]":
            return
        try:
            record, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            reason = f"invalid JSON ({exc.msg}, column {exc.colno}): the rest is skipped"
            yield ParseError(path, reason, exc.lineno)
            return
        yield _record(record, path, line, build)


def _skip_separators(text: str, pos: int) -> int:
    while pos < len(text) and (text[pos].isspace() or text[pos] == ","):
        pos += 1
    return pos


def _record(record: Any, path: str, line: int, build: Builder) -> Paper | ParseError:
    try:
        return build(record, f"{path}:{line}")
    except ValueError as exc:
        return ParseError(path, str(exc), line)


def paper_from_record(record: Any, source: str) -> Paper:
    """Build a paper from one decoded JSON record, in our schema or BEIR's.

    Args:
        record: the decoded JSON value.
        source: `path:line` of the record.

    Returns:
        The paper; its label is derived when it has no title and no label. Without an
        abstract (BEIR: `text`) it is a title-only paper.

    Raises:
        ValueError: when the record is not an object, or a field has the wrong type or an
            absurd value; the message says which.
    """
    if not isinstance(record, dict):
        raise ValueError(f"a record must be a JSON object, not {type(record).__name__}")
    beir = "_id" in record or ("text" in record and "abstract" not in record)
    abstract = clean_abstract(_string(record, "text" if beir else "abstract") or "")
    abstract = "" if is_placeholder(abstract) else abstract
    metadata = record.get("metadata")
    meta = metadata if isinstance(metadata, dict) else {}
    authors, truncated = _authors(record.get("authors"))
    title = clean_markup(_string(record, "title") or "") or None
    label = _string(record, "label") or ""
    derived = bool(record.get("label_derived")) if label else title is None
    if not label and title is None:
        label = derive_label(authors, abstract, truncated)
    return Paper.create(
        authors=authors,
        abstract=abstract,
        title=title,
        area=_string(record, "area"),
        year=_year(record.get("year")),
        doi=_string(record, "doi") or _string(meta, "doi"),
        url=_string(record, "url") or _string(meta, "url"),
        authors_truncated=truncated or _flag(record, "authors_truncated"),
        external_id=_external_id(record),
        source=source,
        citation_key=_string(record, "citation_key") or "",
        label=label,
        label_derived=derived,
    )


def _string(record: dict[str, Any], key: str) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"'{key}' must be a string, not {type(value).__name__}")
    return value.strip() or None


def _authors(value: Any) -> tuple[list[str], bool]:
    if value is None:
        return [], False
    if isinstance(value, str):
        return split_authors(value)
    if isinstance(value, list) and all(isinstance(a, str) and a.strip() for a in value):
        return [" ".join(a.split()) for a in value], False
    raise ValueError("'authors' must be a list of names or a string like 'A; B'")


def _year(value: Any) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    latest = datetime.date.today().year + 1
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"'year' must be a number, not {value!r}")
    if not _EARLIEST_YEAR <= value <= latest:
        raise ValueError(f"'year' {value} is not a plausible year ({_EARLIEST_YEAR}-{latest})")
    return value


def _flag(record: dict[str, Any], key: str) -> bool:
    value = record.get(key, False)
    if not isinstance(value, bool):
        raise ValueError(f"'{key}' must be true or false, not {value!r}")
    return value


def _external_id(record: dict[str, Any]) -> str | None:
    """Return the source's id: BEIR's `_id`, our `external_id`, else the pipeline's `id`.

    Our own records always carry `external_id` (maybe null), so their `id`, the content hash,
    is never taken for the source's.
    """
    name = next((k for k in ("_id", "external_id", "id") if k in record), None)
    value = record.get(name) if name else None
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError(f"'{name}' must be a string or number, not {type(value).__name__}")
    return str(value).strip() or None
