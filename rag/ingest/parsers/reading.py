"""Reading paper files in bounded memory: capped lines, capped documents, UTF-8 or a line.

Line formats (JSON lines, the arXiv snapshot, CSV, seed pages) are read one line at a time,
and a line longer than `MAX_LINE_BYTES` is skipped in fixed-size chunks, never held whole.
Formats that need the whole text (BibTeX, a JSON array) refuse files over
`MAX_DOCUMENT_BYTES` instead of reading them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO

from rag.errors import ParseError

MAX_LINE_BYTES = 8 * 1024 * 1024
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
_SKIP_CHUNK_BYTES = 1024 * 1024
_UTF8_BOM = b"\xef\xbb\xbf"


def _megabytes(size: int) -> str:
    return f"{size // (1024 * 1024)} MB"


def raw_lines(
    fh: IO[bytes], path: str, hint: str = "", *, skipped: str = "skipped"
) -> Iterator[tuple[int, bytes] | ParseError]:
    """Yield each line of a binary file with its 1-based number, newline included.

    A line longer than `MAX_LINE_BYTES` is read on to its end in fixed-size chunks and
    dropped, and a `ParseError` at its number takes its place, so memory stays bounded
    whatever the file holds.

    Args:
        fh: the file, opened in binary mode.
        path: the file name used in errors.
        hint: what the user may check, added to the too-long message ("is this ...?").
        skipped: what the too-long message says became of the line.

    Returns:
        An iterator of (line number, bytes) pairs and `ParseError`s for the skipped lines.
    """
    number = 0
    while raw := fh.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            del raw  # drop the 8 MB before reading on
            while (chunk := fh.readline(_SKIP_CHUNK_BYTES)) and not chunk.endswith(b"\n"):
                pass
            reason = f"line {number} is longer than {_megabytes(MAX_LINE_BYTES)}: {skipped}"
            yield ParseError(path, f"{reason} ({hint})" if hint else reason, number)
            continue
        yield number, raw


def decode_line(raw: bytes, path: str, number: int, skipped: str = "") -> str:
    """Decode one line as UTF-8 (a byte-order mark on line 1 is dropped).

    Args:
        raw: the line's bytes.
        path: the file name used in errors.
        number: the 1-based line number.
        skipped: what the error says became of the rest, if anything.

    Returns:
        The text of the line.

    Raises:
        ParseError: at `number`, saying where in the line the bad byte is.
    """
    try:
        return (raw.removeprefix(_UTF8_BOM) if number == 1 else raw).decode("utf-8")
    except UnicodeDecodeError as exc:
        where = f"invalid UTF-8 at byte {exc.start + 1} of the line"
        reason = f"{where}{', ' + skipped if skipped else ''}: re-save the file as UTF-8"
        raise ParseError(path, reason, number) from None


def text_lines(path: Path, hint: str = "") -> Iterator[tuple[int, str]]:
    """Yield each line of a UTF-8 text file with its 1-based number, newline included.

    For formats where a record may span lines (CSV, seed pages), so a bad line cannot
    simply be skipped: reading stops at it, and what came before it still counts.

    Args:
        path: the file.
        hint: what the user may check when a line is too long.

    Returns:
        An iterator of (line number, text) pairs.

    Raises:
        ParseError: at the first line that is not UTF-8 or is longer than `MAX_LINE_BYTES`.
    """
    skipped = "the rest of the file is skipped"
    with path.open("rb") as fh:
        for item in raw_lines(fh, str(path), hint, skipped=skipped):
            if isinstance(item, ParseError):
                raise item
            number, raw = item
            yield number, decode_line(raw, str(path), number, skipped)


def read_document(path: Path, advice: str) -> str:
    """Read a whole UTF-8 text file that is at most `MAX_DOCUMENT_BYTES`.

    Args:
        path: the file.
        advice: what to do with a file over the cap ("split it", "convert it to ...").

    Returns:
        The text, without a byte-order mark.

    Raises:
        ParseError: the file is over the cap (nothing is read), or not UTF-8 (with the
            line of the first bad byte).
    """
    size = path.stat().st_size
    if size > MAX_DOCUMENT_BYTES:
        reason = (
            f"the file is {_megabytes(size)}, more than the {_megabytes(MAX_DOCUMENT_BYTES)} "
            f"read at once for this format: {advice}"
        )
        raise ParseError(str(path), reason)
    data = path.read_bytes().removeprefix(_UTF8_BOM)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ParseError(str(path), "invalid UTF-8: re-save the file as UTF-8 text", line) from None
