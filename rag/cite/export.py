"""Reference export: BibTeX, RIS, CSL-JSON and a Markdown reference list, from `Paper` records.

Nothing is invented. A paper without a title or year gets no `title`/`year` field; its derived
display label goes into a note that says it is derived. An author list the source cut short
ends with `and others` (BibTeX), `et al.` (Markdown) or a note (RIS, CSL-JSON). Every entry is
`@misc`/`GEN`/`article`: we never know the venue, so we do not claim a journal.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rag.errors import ConfigError
from rag.ingest.latex import ACCENTS, LETTERS, SPECIALS, SYMBOLS
from rag.ingest.naming import (
    AREA_SEPARATOR,
    DERIVED_NOTE,
    TRUNCATED_NOTE,
    citation_key,
    family_name,
)
from rag.records import Paper

_LETTER_ACCENTS = set("uvHckrdb")  # written `\c{s}`; the others `\"u`


def latex_escape(text: str) -> str:
    """Return `text` as LaTeX that BibTeX and pdfLaTeX read back as the same text.

    Specials are escaped, accented Latin letters become accent commands in braces (`{\\"u}`,
    the form BibTeX sorts and abbreviates right), common symbols become LaTeX. Characters
    with no LaTeX spelling (CJK, rare scripts) stay as UTF-8: they need a UTF-8 capable
    setup (XeLaTeX/LuaLaTeX, or pdfLaTeX with CJK support) to typeset.

    Args:
        text: plain Unicode text.

    Returns:
        The LaTeX text.
    """
    out: list[str] = []
    for ch in unicodedata.normalize("NFC", text):
        if ch.isascii():
            out.append(SPECIALS.get(ch, ch))
        elif ch in SYMBOLS:
            out.append(SYMBOLS[ch])
        elif ch in LETTERS:
            out.append(f"{{\\{LETTERS[ch]}}}")
        else:
            out.append(_accented(ch) or ch)
    return "".join(out)


def _accented(ch: str) -> str | None:
    decomposed = unicodedata.normalize("NFD", ch)
    base, marks = decomposed[0], decomposed[1:]
    if len(marks) != 1 or marks not in ACCENTS or not (base.isascii() and base.isalpha()):
        return None
    cmd = ACCENTS[marks]
    return f"{{\\{cmd}{{{base}}}}}" if cmd in _LETTER_ACCENTS else f"{{\\{cmd}{base}}}"


def _protect_title(title: str) -> str:
    """Brace words with capitals inside (ICGNN, LoRA) so styles do not lower-case them."""
    words = []
    for word in latex_escape(title).split(" "):
        words.append(f"{{{word}}}" if re.search(r"\w[A-Z]", word) else word)
    return " ".join(words)


# -- names


@dataclass(frozen=True)
class Name:
    """An author name split for reference formats; `literal` for names not to be split."""

    family: str = ""
    given: str = ""
    suffix: str = ""
    literal: str = ""


_SUFFIX = re.compile(r"(?:,\s*|\s+)(Jr|Sr|II|III|IV)(\.?)\s*$", re.IGNORECASE)


def _is_cjk(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    return bool(letters) and all(
        unicodedata.name(ch, "").startswith(("CJK", "HANGUL", "HIRAGANA", "KATAKANA"))
        for ch in letters
    )


def split_name(name: str) -> Name:
    """Split one author name into family, given and suffix, as `rag.ingest.naming` reads it.

    CJK names (`周欣`) are kept whole as a literal: their written order is already family
    first, and formats that split them would reorder them.

    Args:
        name: one author as the source wrote it.

    Returns:
        The parts; `literal` is set instead for CJK names.
    """
    name = " ".join(name.split())
    if _is_cjk(name):
        return Name(literal=name)
    if "," in name:
        family, _, given = name.partition(",")
        return Name(family=family.strip(), given=given.strip(" ,"))
    suffix = ""
    if match := _SUFFIX.search(name):
        suffix = match.group(1) + match.group(2)
        name = name[: match.start()]
    family = family_name(name)
    given = name[: -len(family)].strip() if name.endswith(family) else name.replace(family, "")
    return Name(family=family, given=" ".join(given.split()), suffix=suffix)


def _bibtex_name(name: str) -> str:
    parts = split_name(name)
    if parts.literal:
        return "{" + latex_escape(parts.literal) + "}"
    pieces = [latex_escape(p) for p in (parts.family, parts.suffix, parts.given) if p]
    return ", ".join(pieces)


# -- formats


def _key(paper: Paper) -> str:
    return paper.citation_key or citation_key(
        paper.authors, paper.year, paper.title, paper.abstract
    )


def _note(paper: Paper) -> str | None:
    if paper.title or not paper.label:
        return None
    return f"{DERIVED_NOTE}: {paper.label}" if paper.label_derived else paper.label


def _keywords(paper: Paper) -> list[str]:
    return [part.strip() for part in (paper.area or "").split(AREA_SEPARATOR) if part.strip()]


def _arxiv_id(paper: Paper) -> str | None:
    ext = paper.external_id or ""
    return ext.removeprefix("arXiv:") if ext.startswith("arXiv:") else None


def _pmid(paper: Paper) -> str | None:
    ext = paper.external_id or ""
    return ext.removeprefix("PMID:") if ext.startswith("PMID:") else None


def _verbatim(text: str) -> str:
    return text.replace("{", "%7B").replace("}", "%7D")


def bibtex_entry(paper: Paper, abstract: bool = True) -> str:
    """Return one `@misc` BibTeX entry; absent metadata is absent, not made up.

    Args:
        paper: the paper.
        abstract: with its abstract (a library export); without, an entry to cite it by.

    Returns:
        The entry text, ending with a newline.
    """
    fields: list[tuple[str, str]] = []
    if paper.authors:
        names = [_bibtex_name(a) for a in paper.authors]
        fields.append(
            ("author", " and ".join(names + (["others"] if paper.authors_truncated else [])))
        )
    if paper.title:
        fields.append(("title", _protect_title(paper.title)))
    if paper.year is not None:
        fields.append(("year", str(paper.year)))
    # DOI and URL stay verbatim (biblatex and the url package read them raw); only BibTeX's
    # own braces would break the entry, and they are percent-encoded.
    if paper.doi:
        fields.append(("doi", _verbatim(paper.doi)))
    if paper.url:
        fields.append(("url", _verbatim(paper.url)))
    if arxiv := _arxiv_id(paper):
        fields += [("eprint", arxiv), ("archiveprefix", "arXiv")]
    if pmid := _pmid(paper):
        fields.append(("pmid", pmid))  # JabRef's and Better BibTeX's field
    if keywords := _keywords(paper):
        # One keyword per area part; a part with its own commas is braced so it stays whole.
        escaped = [latex_escape(k) for k in keywords]
        fields.append(("keywords", ", ".join(f"{{{k}}}" if "," in k else k for k in escaped)))
    if note := _note(paper):
        fields.append(("note", latex_escape(note)))
    if paper.abstract and abstract:  # a title-only record has none: no empty field for it
        fields.append(("abstract", latex_escape(paper.abstract)))
    body = ",\n".join(f"  {name:<9} = {{{value}}}" for name, value in fields)
    return f"@misc{{{_key(paper)},\n{body}\n}}\n"


def to_bibtex(papers: Sequence[Paper], abstracts: bool = True) -> str:
    """Return a .bib file of the papers, one entry each, in the given order (`abstracts`:
    with each paper's abstract)."""
    return "\n".join(bibtex_entry(p, abstracts) for p in papers)


def _ris_name(name: str) -> str:
    parts = split_name(name)
    if parts.literal:
        return parts.literal
    return ", ".join(p for p in (parts.family, parts.given, parts.suffix) if p)


def ris_record(paper: Paper, abstract: bool = True) -> list[tuple[str, str]]:
    """Return the (tag, value) lines of one RIS record, from `TY` to `ER` (`abstract`: with
    the `AB` line)."""
    lines = [("TY", "GEN"), ("ID", _key(paper))]
    lines += [("AU", _ris_name(a)) for a in paper.authors]
    if paper.title:
        lines.append(("TI", paper.title))
    if paper.year is not None:
        lines.append(("PY", str(paper.year)))
    lines += [("KW", k) for k in _keywords(paper)]
    if paper.doi:
        lines.append(("DO", paper.doi))
    if paper.external_id:  # "PMID:26751583", read back as it is written
        lines.append(("AN", paper.external_id))
    if paper.url:
        lines.append(("UR", paper.url))
    if paper.authors_truncated:
        lines.append(("N1", TRUNCATED_NOTE))
    if note := _note(paper):
        lines.append(("N1", note))
    if paper.abstract and abstract:
        lines.append(("AB", paper.abstract))
    lines.append(("ER", ""))
    return lines


def to_ris(papers: Sequence[Paper], abstracts: bool = True) -> str:
    """Return a RIS file of the papers (`TAG  - value` lines, a blank line between records;
    `abstracts`: with each abstract)."""
    records = [
        "\n".join(f"{tag}  - {value}" for tag, value in ris_record(p, abstracts)) for p in papers
    ]
    return "\n\n".join(records) + "\n" if records else ""


def csl_item(paper: Paper, abstract: bool = True) -> dict[str, Any]:
    """Return one CSL-JSON item: `id` is the citation key, `type` is "article" (`abstract`:
    with the abstract)."""
    item: dict[str, Any] = {"id": _key(paper), "type": "article"}
    authors = []
    for name in paper.authors:
        parts = split_name(name)
        if parts.literal:
            authors.append({"literal": parts.literal})
        else:
            person = {"family": parts.family, "given": parts.given, "suffix": parts.suffix}
            authors.append({k: v for k, v in person.items() if v})
    if authors:
        item["author"] = authors
    if paper.title:
        item["title"] = paper.title
    if paper.year is not None:
        item["issued"] = {"date-parts": [[paper.year]]}
    if paper.doi:
        item["DOI"] = paper.doi
    if paper.url:
        item["URL"] = paper.url
    if pmid := _pmid(paper):
        item["PMID"] = pmid
    if _arxiv_id(paper):  # a preprint's archive id, as Zotero writes it
        item["number"] = paper.external_id
    if keywords := _keywords(paper):
        # CSL has one `keyword` string; a keyword with a comma of its own is kept whole by
        # separating them all with semicolons instead, as the CSL-JSON reader splits them.
        item["keyword"] = ("; " if any("," in k for k in keywords) else ", ").join(keywords)
    notes = [n for n in (_note(paper),) if n]
    if paper.authors_truncated:
        notes.append(TRUNCATED_NOTE)
    if notes:
        item["note"] = "\n".join(notes)
    if paper.abstract and abstract:
        item["abstract"] = paper.abstract
    return item


def to_csl_json(papers: Sequence[Paper], abstracts: bool = True) -> str:
    """Return a CSL-JSON array of the papers (what Zotero, Pandoc and citeproc read;
    `abstracts`: with each abstract)."""
    items = [csl_item(p, abstracts) for p in papers]
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def markdown_item(paper: Paper) -> str:
    """Return one reference as a Markdown list item led by its Pandoc key `[@key]`."""
    shown = list(paper.authors[:6])
    authors = ", ".join(shown) + (
        " et al." if paper.authors_truncated or len(paper.authors) > 6 else ""
    )
    # "et al." already ends with its full stop
    parts = [f"- [@{_key(paper)}]", _md(authors or "Anonymous").removesuffix(".") + "."]
    if paper.title:
        parts.append(f"*{_md(paper.title)}*.")
    elif paper.label:
        parts.append(f"{_md(paper.label)} (derived label; the source gives no title).")
    if paper.year is not None:
        parts.append(f"{paper.year}.")
    if paper.area:
        parts.append(_md(paper.area) + ".")
    if paper.doi:
        parts.append(f"doi:{_md(paper.doi)}.")
    if paper.url:
        parts.append(f"<{paper.url}>")
    return " ".join(parts)


def to_markdown(papers: Sequence[Paper]) -> str:
    """Return a Markdown reference list, one item per paper, in the given order."""
    return "".join(markdown_item(p) + "\n" for p in papers)


RENDERERS: dict[str, Callable[[Sequence[Paper]], str]] = {
    "bibtex": to_bibtex,
    "ris": to_ris,
    "csljson": to_csl_json,
    "markdown": to_markdown,
}


def render(papers: Sequence[Paper], fmt: str) -> str:
    """Return the papers as a reference list in `fmt`.

    Args:
        papers: the papers, in the order to list them.
        fmt: "bibtex", "ris", "csljson" or "markdown".

    Returns:
        The text of the reference list.

    Raises:
        ConfigError: `fmt` is not one of those formats.
    """
    if fmt not in RENDERERS:
        raise ConfigError(f"Unknown reference format {fmt!r}: use one of {', '.join(RENDERERS)}.")
    return RENDERERS[fmt](papers)
