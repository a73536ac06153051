"""BibTeX files (.bib): each entry becomes a paper (title-only when it has no `abstract`).

Read without a BibTeX library: `@string` macros, `#` concatenation, braced and quoted values,
`@comment`/`@preamble` blocks, and LaTeX accents and escapes in values (the ones
`rag.export` writes, and the usual hand-written ones). `keywords` become the research area
(joined with " · ", as the seed pages write areas), `eprint` with `archivePrefix = arXiv` the
external id. An entry without a citation key (`@article{,` or `@article{title = ...`, as the
Cochrane Library writes) gets a derived one at ingest, said once per file. An entry that cannot
be read is a `ParseError` at its line; reading goes on with the next entry. The whole file is
read at once, so it is capped at `rag.ingest.parsers.reading.MAX_DOCUMENT_BYTES`.
"""

from __future__ import annotations

import bisect
import datetime
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import ParseError
from rag.ingest.latex import ACCENTS, LETTERS, SYMBOLS
from rag.ingest.naming import clean_abstract, derive_label, display_name
from rag.ingest.parsers.reading import read_document
from rag.records import Paper, ParseNotice
from rag.text import clean_markup

_ENTRY = re.compile(r"@\s*([A-Za-z]+)\s*([{(])")
_KEY = re.compile(r"\s*([^\s,{}()=\"#%]+)\s*,")
_NO_KEY = re.compile(r"\s*,")  # `@article{,`: an empty key
_FIELD_START = re.compile(r"\s*[A-Za-z_][\w\-:.+/']*\s*=")  # `@article{title = ...`: none
_NEXT_ENTRY = re.compile(r"^[ \t]*@", re.MULTILINE)
_NAME = re.compile(r"[A-Za-z_][\w\-:.+/']*")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_SKIPPED_TYPES = {"comment", "preamble"}
_EARLIEST_YEAR = 1600


def looks_like(text: str) -> bool:
    """Return whether `text` (the start of a file) is BibTeX: an `@type{` before any prose."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        return bool(_ENTRY.match(stripped))
    return False


def parse(path: Path) -> Iterator[Paper | ParseError | ParseNotice]:
    """Parse a .bib file.

    Args:
        path: the file.

    Returns:
        An iterator of papers (title-only for an entry without an abstract), a `ParseError`
        with the entry's (or the bad field's) line for each entry that cannot be read, and
        one `ParseNotice` at the end when some entries have no citation key.
    """
    try:
        text = read_document(path, "split it into several smaller .bib files")
    except ParseError as exc:
        yield exc
        return
    yield from parse_text(text, str(path))


@dataclass
class _Entry:
    kind: str
    key: str
    line: int
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """How messages name the entry: by its key, else by its type."""
        return f"entry '{self.key}'" if self.key else f"@{self.kind} entry"


class _Syntax(Exception):
    def __init__(self, reason: str, pos: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.pos = pos


def parse_text(text: str, path: str) -> Iterator[Paper | ParseError | ParseNotice]:
    """Parse BibTeX text; `path` names the file in sources and errors."""
    reader = _Reader(text)
    pos = 0
    keyless: list[int] = []  # lines of the entries without a citation key
    while match := _ENTRY.search(text, pos):
        start = match.start()
        try:
            entry, pos = reader.entry(match)
        except _Syntax as exc:
            yield ParseError(path, exc.reason, reader.line(exc.pos))
            resync = _NEXT_ENTRY.search(text, text.find("\n", start) + 1 or len(text))
            pos = resync.start() if resync else len(text)
            continue
        if entry is not None:
            if not entry.key:
                keyless.append(entry.line)
            yield _paper(entry, path)
    if keyless:
        lines = ", ".join(str(n) for n in keyless[:5]) + (", ..." if len(keyless) > 5 else "")
        many = len(keyless) > 1
        yield ParseNotice(
            path,
            f"{len(keyless)} {'entries have' if many else 'entry has'} no citation key (line"
            f"{'s' if many else ''} {lines}): {'each gets' if many else 'it gets'} one derived "
            "from its authors, year and title",
        )


def _paper(entry: _Entry, path: str) -> Paper | ParseError:
    f = entry.fields
    # "" (a book, a web page): title-only
    abstract = clean_abstract(f.get("abstract", ""), decode_latex)
    names = _split_top(f.get("author", "") or f.get("editor", ""), r"\s+and\s+")
    truncated = bool(names) and names[-1].strip().lower() == "others"
    authors = [display_name(decode_latex(n)) for n in names[: -1 if truncated else None]]
    authors = [a for a in authors if a]
    keywords = [decode_latex(k) for k in _split_top(f.get("keywords", ""), r"\s*[,;]\s*")]
    title = decode_latex(f.get("title", "")) or None
    try:
        year = _year(decode_latex(f.get("year", "")) or _year_of(f.get("date", "")))
    except ValueError as exc:
        return ParseError(path, f"{entry.name}: {exc}", entry.line)
    return Paper.create(
        authors=authors,
        abstract=abstract,
        title=title,
        year=year,
        area=" · ".join(k for k in keywords if k) or None,
        doi=f.get("doi", "").strip() or None,
        url=f.get("url", "").strip() or None,
        authors_truncated=truncated,
        external_id=_external_id(f),
        source=f"{path}:{entry.line}",
        citation_key=entry.key,
        label="" if title else derive_label(authors, abstract, truncated),
        label_derived=title is None,
    )


def _year(text: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    latest = datetime.date.today().year + 1
    if not text.isdigit() or not _EARLIEST_YEAR <= int(text) <= latest:
        raise ValueError(f"'year' {text!r} is not a year between {_EARLIEST_YEAR} and {latest}")
    return int(text)


def _year_of(date: str) -> str:
    match = re.match(r"\s*(\d{4})", date)
    return match.group(1) if match else ""


def _split_top(value: str, separator: str) -> list[str]:
    """Split at `separator` outside braces (so `{Barnes and Noble}` stays one name)."""
    parts, depth, start = [], 0, 0
    sep = re.compile(separator, re.IGNORECASE)
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0 and (m := sep.match(value, i)) and m.end() > i:
            parts.append(value[start:i])
            start = i = m.end()
            continue
        i += 1
    parts.append(value[start:])
    return [p.strip() for p in parts if p.strip()]


class _Reader:
    """A scanner over the whole text, with @string macros carried from entry to entry."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.macros = {m: m.capitalize() for m in _MONTHS}
        self._newlines = [i for i, ch in enumerate(text) if ch == "\n"]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self._newlines, pos) + 1

    def entry(self, match: re.Match[str]) -> tuple[_Entry | None, int]:
        """Read the entry `match` opens; return it (None for macros, comments) and the end."""
        kind, opener = match.group(1).lower(), match.group(2)
        closer = "}" if opener == "{" else ")"
        pos = match.end()
        if kind in _SKIPPED_TYPES:
            return None, self._balanced(match.end(2) - 1, opener, closer)
        if kind == "string":
            name, value, pos = self._field(pos)
            self.macros[name] = value
            return None, self._close(pos, closer)
        key = ""
        if key_match := _KEY.match(self.text, pos):
            key, pos = key_match.group(1), key_match.end()
        elif empty := _NO_KEY.match(self.text, pos):
            pos = empty.end()
        elif not _FIELD_START.match(self.text, pos):
            raise _Syntax(
                f"@{kind} entry: expected a citation key or a field after '{opener}', "
                f"as in @{kind}{{key, title = {{...}}}}",
                pos,
            )
        entry = _Entry(kind, key, self.line(match.start()))
        while True:
            pos = self._skip_space(pos)
            if self.text.startswith(closer, pos):
                return entry, pos + 1
            name, value, pos = self._field(pos)
            entry.fields[name] = value
            pos = self._skip_space(pos)
            if self.text.startswith(",", pos):
                pos += 1
            elif not self.text.startswith(closer, pos):
                raise _Syntax(f"{entry.name}: expected ',' or '{closer}' after field '{name}'", pos)

    def _field(self, pos: int) -> tuple[str, str, int]:
        pos = self._skip_space(pos)
        name_match = _NAME.match(self.text, pos)
        if not name_match:
            raise _Syntax("expected a field name such as 'title = {...}'", pos)
        name = name_match.group(0).lower()
        pos = self._skip_space(name_match.end())
        if not self.text.startswith("=", pos):
            raise _Syntax(f"field '{name}' has no '=': write {name} = {{value}}", pos)
        parts = []
        while True:
            pos = self._skip_space(pos + 1)
            value, pos = self._value(pos, name)
            parts.append(value)
            pos = self._skip_space(pos)
            if not self.text.startswith("#", pos):
                return name, "".join(parts), pos

    def _value(self, pos: int, name: str) -> tuple[str, int]:
        ch = self.text[pos : pos + 1]
        if ch == "{":
            end = self._balanced(pos, "{", "}")
            return self.text[pos + 1 : end - 1], end
        if ch == '"':
            depth, i = 0, pos + 1
            while i < len(self.text):
                c = self.text[i]
                depth += (c == "{") - (c == "}")
                if c == '"' and depth == 0:
                    return self.text[pos + 1 : i], i + 1
                i += 1
            raise _Syntax(f"field '{name}': the quoted value is never closed with '\"'", pos)
        if match := re.compile(r"\d+").match(self.text, pos):
            return match.group(0), match.end()
        if match := _NAME.match(self.text, pos):
            macro = match.group(0).lower()
            if macro not in self.macros:
                raise _Syntax(
                    f"field '{name}': '{match.group(0)}' is not defined: brace the value "
                    f"({name} = {{...}}) or define it with @string",
                    pos,
                )
            return self.macros[macro], match.end()
        raise _Syntax(f"field '{name}' has no value: write {name} = {{value}}", pos)

    def _balanced(self, pos: int, opener: str, closer: str) -> int:
        """Return the position after the `closer` that matches the `opener` at `pos`."""
        depth = 0
        for i in range(pos, len(self.text)):
            ch = self.text[i]
            if ch == "\\":
                continue
            if ch == opener:
                depth += 1
            elif ch == closer:
                depth -= 1
                if depth == 0:
                    return i + 1
        raise _Syntax(f"unbalanced '{opener}': a '{closer}' is missing from here on", pos)

    def _close(self, pos: int, closer: str) -> int:
        pos = self._skip_space(pos)
        if not self.text.startswith(closer, pos):
            raise _Syntax(f"expected '{closer}' to close the @string", pos)
        return pos + 1

    def _skip_space(self, pos: int) -> int:
        while pos < len(self.text) and self.text[pos].isspace():
            pos += 1
        return pos


# -- LaTeX in values → Unicode

_PUA = 0xE100  # private-use characters hold literal specials through clean_markup
_LITERALS = {
    r"\{": "{", r"\}": "}", r"\textbraceleft": "{", r"\textbraceright": "}",
    r"\textbackslash": "\\", r"\textasciitilde": "~", r"\textasciicircum": "^",
    r"\textless": "<", r"\textgreater": ">", r"\textbar": "|", r"\textquoteright": "\u2019",
    r"\textquoteleft": "\u2018",
}  # fmt: skip
_LITERAL = re.compile(
    "|".join(
        re.escape(k) + (r"(?![A-Za-z])(?:\{\})?" if k[-1].isalpha() else "")
        for k in sorted(_LITERALS, key=len, reverse=True)
    )
)
_MARKS = {cmd: mark for mark, cmd in ACCENTS.items()}
_BASE = r"(?:\{\s*(\\[ij](?![A-Za-z])|[A-Za-z])\s*\}|(\\[ij](?![A-Za-z])|[A-Za-z]))"
_ACCENT_BODY = r"\\(?:([`'^\"~=.])\s*|([uvHckrdb])(?=[\s{])\s*)" + _BASE
# `{\"u}` (braces and all) first, then the bare `\"u` / `\"{u}` / `\c{s}` / `\c s`.
_ACCENT_CMDS = [re.compile(r"\{" + _ACCENT_BODY + r"\}"), re.compile(_ACCENT_BODY)]
_LETTER_NAMES = "|".join(sorted(LETTERS.values(), key=len, reverse=True))
_LETTER_CMDS = [
    re.compile(r"\{\\(" + _LETTER_NAMES + r")(?![A-Za-z])\s*\}"),
    re.compile(r"\\(" + _LETTER_NAMES + r")(?![A-Za-z])(?:\{\}| ?)"),
]
_LETTER_CHARS = {v: k for k, v in LETTERS.items()}  # a lone `{\i}` is the dotless i
_PLAIN_GROUP = re.compile(r"(?<![A-Za-z*\]])\{([^{}\\]*)\}")  # not a command's argument
_SYMBOL_TEXT = sorted(
    ((latex, ch) for ch, latex in SYMBOLS.items() if latex not in {"~", "`", "'"}),
    key=lambda pair: -len(pair[0]),
)


def _external_id(f: dict[str, str]) -> str | None:
    """The paper's id in arXiv (`eprint` with `archivePrefix = arXiv`) or PubMed (`pmid`, as
    JabRef and Better BibTeX write it, or `eprint` with biblatex's `eprinttype = pubmed`)."""
    eprint = f.get("eprint", "").strip()
    kind = f.get("archiveprefix", f.get("eprinttype", "")).strip().lower()
    pmid = f.get("pmid", "").strip() or (eprint if kind == "pubmed" else "")
    if pmid.isdigit():
        return f"PMID:{pmid}"
    return f"arXiv:{eprint}" if eprint and kind == "arxiv" else None


def decode_latex(value: str) -> str:
    """Turn a BibTeX field value into plain Unicode text.

    `{\\"u}`, `\\"{u}` and `\\"u` become ü, `{\\o}` becomes ø, escapes become their
    character, protective braces go, and the rest is `rag.text.clean_markup`.

    Args:
        value: the raw value between the braces or quotes.

    Returns:
        The text, on one line.
    """
    held: list[str] = []

    def hold(text: str) -> str:
        held.append(text)
        return chr(_PUA + len(held) - 1)

    text = _LITERAL.sub(lambda m: hold(_LITERALS[m.group(0).removesuffix("{}")]), value)
    for pattern in _ACCENT_CMDS:
        text = pattern.sub(_accent, text)
    for pattern in _LETTER_CMDS:
        text = pattern.sub(lambda m: _LETTER_CHARS[m.group(1)], text)
    for latex, ch in _SYMBOL_TEXT:
        if latex in text:  # a held character only for a symbol the value has
            text = text.replace(latex, hold(ch))
    while (stripped := _PLAIN_GROUP.sub(r"\1", text)) != text:
        text = stripped
    text = clean_markup(text).replace("{", "").replace("}", "")
    text = "".join(held[ord(c) - _PUA] if _PUA <= ord(c) < _PUA + len(held) else c for c in text)
    return " ".join(text.split())


def _accent(match: re.Match[str]) -> str:
    cmd = match.group(1) or match.group(2)
    base = match.group(3) or match.group(4)
    base = base[1] if base.startswith("\\") else base  # an accent on \i or \j: i, j
    return unicodedata.normalize("NFC", base + _MARKS[cmd])
