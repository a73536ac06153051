"""How papers are named: author family names, method names, display labels, citation keys."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from rag.ingest.boilerplate import without_notices
from rag.records import Paper
from rag.text import clean_markup, fold, split_sentences

# How records carry what a source did not say, the same when written out and read back in.
AREA_SEPARATOR = " · "  # how the seed pages write "Field · Subfield"
DERIVED_NOTE = "Derived label, not the title"
TRUNCATED_NOTE = "The source lists more authors than these."

_PARTICLES = {
    "van", "von", "de", "der", "den", "da", "di", "du", "la", "le", "del", "della", "dos",
    "ten", "ter", "des", "do",
}  # fmt: skip
# Capitalised particles that are not also common pinyin syllables ("Da", "De", "Le" are).
_CAPITAL_PARTICLES = {"Van", "Von", "Der", "Den", "Del", "Della", "Dos", "Ten", "Ter"}
_SUFFIX = re.compile(r"(?:,\s*|\s+)(?:Jr|Sr|II|III|IV)\.?(?=\s*(?:,|$))", re.IGNORECASE)
_PARENTHESES = re.compile(r"\s*[(\uff08][^)\uff09]*[)\uff09]")  # also fullwidth
_COMPOUND_SURNAMES = {
    "欧阳", "司马", "诸葛", "上官", "东方", "皇甫", "尉迟", "公孙", "慕容", "令狐", "长孙",
    "宇文", "夏侯", "轩辕", "端木", "司徒", "司空", "独孤", "南宫", "西门", "澹台", "淳于",
    "钟离", "呼延", "赫连", "歐陽", "司馬", "諸葛", "東方", "長孫",
}  # fmt: skip
_ET_AL = re.compile(r"(?:\s*,)?\s*(?:等|et\s+al\.?)\s*$", re.IGNORECASE)
_TITLE_STOPWORDS = {
    "a", "an", "the", "on", "of", "towards", "toward", "via", "for", "and", "with", "in",
    "to", "from", "by", "at", "is", "are", "do", "does", "when", "what", "how", "why", "can",
}  # fmt: skip


def _is_cjk(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith(("CJK UNIFIED", "CJK COMPATIBILITY", "HANGUL"))


def family_name(name: str) -> str:
    """Return the family name of one author, as written.

    Latin-script names are read in Western order ("Xia Xuanzhi" → "Xuanzhi") with particles
    kept ("Ludwig van Beethoven" → "van Beethoven"); "Family, Given" uses the part before the
    comma; nicknames in parentheses and Jr./Sr./II-IV are dropped. A CJK name's family name
    is its first character, or two for compound surnames such as 欧阳.

    Args:
        name: one author name.

    Returns:
        The family name, or "" for an empty name.
    """
    name = _SUFFIX.sub("", _PARENTHESES.sub(" ", name)).strip(" ,")
    if "," in name:
        return " ".join(name.split(",", 1)[0].split())
    tokens = name.split()
    if not tokens:
        return ""
    if all(_is_cjk(ch) for ch in tokens[0]):
        first = tokens[0]
        return first[:2] if first[:2] in _COMPOUND_SURNAMES else first[:1]
    start = len(tokens) - 1
    while start > 1 and (
        tokens[start - 1] in _PARTICLES or tokens[start - 1] in _CAPITAL_PARTICLES
    ):
        start -= 1
    return " ".join(tokens[start:])


def shown_family_name(name: str) -> str:
    """Return `family_name` as a sentence or label shows it: capitalised when the source wrote
    the whole name in lower case ("wenlong deng" → "Deng"; particles stay: "van Beethoven")."""
    family = family_name(name)
    if name != name.lower() or not any(ch.isalpha() and ch.isascii() for ch in name):
        return family
    return " ".join(t if t in _PARTICLES else t[:1].upper() + t[1:] for t in family.split())


def display_name(name: str) -> str:
    """Return "Given Family" for "Family, Given" when `family_name` reads it back the same.

    So a paper exported to BibTeX and read back has the same authors, and the same id; a
    name whose family part would be misread in that order ("De La Cruz, Juan") stays as is.
    """
    name = " ".join(name.split())
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 2 and all(parts):
        family, given = parts
        flipped = f"{given} {family}"
    elif len(parts) == 3 and all(parts):
        family, suffix, given = parts
        flipped = f"{given} {family} {suffix}"
    else:
        return name
    return flipped if family_name(flipped) == family else name


def split_authors(text: str) -> tuple[list[str], bool]:
    """Split an author list written as one string.

    Names are separated by ";" when there is one (so "Berg, Jan; Smith, Ann" works), else
    by commas (also fullwidth and ideographic ones) and a final "and"/"&". A trailing "等"
    or "et al." marks a truncated list.

    Args:
        text: the authors, e.g. "A, B and C" or "A; B" or "张三, 李四 等".

    Returns:
        The names, and whether the list was truncated.
    """
    truncated = bool(_ET_AL.search(text))
    text = _ET_AL.sub("", text)
    if ";" in text:
        parts = text.split(";")
    else:
        parts = re.split(r"\s*[,\uff0c\u3001]\s*(?:and\s+|&\s*)?|\s+(?:and|&)\s+", text)
    return [" ".join(p.split()) for p in parts if p.strip()], truncated


def ascii_slug(text: str) -> str:
    """Return `text` as lower-case ASCII letters and digits only.

    Accents are dropped ("Yüksel" → "yuksel"). Text with no ASCII form at all, such as a
    CJK name, becomes "x" plus the first 6 hex digits of the SHA-1 of its NFC form: stable,
    short, and free of new dependencies (no pinyin).

    Args:
        text: a name or word.

    Returns:
        The slug; "" only when `text` is blank or punctuation.
    """
    slug = re.sub(r"[^a-z0-9]", "", fold(text))
    if slug or not any(ch.isalnum() for ch in text):
        return slug
    digest = hashlib.sha1(unicodedata.normalize("NFC", text.strip()).encode("utf-8"))
    return "x" + digest.hexdigest()[:6]


_TOKEN = r"[A-Za-z][A-Za-z0-9]*(?:[-.+][A-Za-z0-9]+)*"
_WORD = r"[A-Z][\w\-]*"
_LINK = r"(?:of|for|with|and|in|on|via|the|to|from|by|a)"
_PHRASE_ACRONYM = re.compile(rf"{_WORD}(?:\s+(?:{_WORD}|{_LINK})){{0,10}}\s*\(({_TOKEN})\)")
_FOLLOWER = r"(?=\s*(?:[,.:;(]|$)|\s+(?:that|which|to|for|as|is|in|on|with)\b)"
_NAMED_TOKEN = re.compile(rf"({_TOKEN}){_FOLLOWER}")
_APPOSITION = re.compile(rf"({_WORD}(?:\s+(?:{_LINK}\s+)?{_WORD}){{0,3}}),\s+(?:a|an|which|that)\b")
_VERB = re.compile(
    r"\b(?:we|this (?:paper|work))\s+(?:\w+ly\s+|also\s+|further\s+|then\s+)?"
    r"(?:propose|introduce|present|develop|design|devise)s?\s+(?:here\s+)?"
    r"(?:(?:a|an|the|our)\s+)?",
    re.IGNORECASE,
)
_NAMING = re.compile(r"\b(?:called|named|dubbed|termed|coined)\s+(?:as\s+)?", re.IGNORECASE)
_NOVEL = re.compile(rf"\b({_TOKEN}),\s+(?:a|an)\s+(?:novel|new)\b")


def _distinctive(token: str) -> bool:
    """True for names like ICGNN, LoRA, ZS-SVD, GPT-4: inner capitals, digits or hyphens."""
    return len(token) > 1 and bool(re.search(r"[A-Z0-9]", token[1:]) or "-" in token[1:])


def _name_at(text: str, *, allow_phrase: bool) -> str | None:
    """Read the method name that starts `text` (right after "we propose", "named", ...)."""
    if (match := _PHRASE_ACRONYM.match(text)) and _distinctive(match.group(1)):
        return match.group(1)
    if (match := _NAMED_TOKEN.match(text)) and _distinctive(match.group(1)):
        return match.group(1)
    if allow_phrase and (match := _APPOSITION.match(text)):
        return match.group(1)
    return None


def method_name(abstract: str) -> str | None:
    """Return the name of the method an abstract introduces, if it names one convincingly.

    "We propose X"/"we introduce X" wins over "a method called/named/dubbed/termed X",
    which wins over a name the authors define and then propose ("... (PoLar) ... we propose a
    lightweight PoLar prediction network"), which wins over "X, a novel ...". `Full Name
    (ACRONYM)` gives the acronym.

    Args:
        abstract: clean abstract text (see `rag.text.clean_markup`).

    Returns:
        The name, such as "ICGNN" or "ZS-SVD", or None.
    """
    for trigger, allow_phrase in ((_VERB, True), (_NAMING, False)):
        for match in trigger.finditer(abstract):
            if name := _name_at(abstract[match.end() :], allow_phrase=allow_phrase):
                return name
    defined = _own_defined_names(abstract)
    for match in _VERB.finditer(abstract):
        if name := _defined_in_object(abstract[match.end() :], defined):
            return name
    for match in _NOVEL.finditer(abstract):
        if _distinctive(match.group(1)):
            return match.group(1)
    return None


# Where what "we propose" names ends: "a lightweight PoLar prediction network, which ...";
# "a comparison of BP, FmAD and ZO" is of other methods.
_OBJECT_END = re.compile(r"[,.;:(]|(?:^|\s)(?:of|for|with|to|that|which|and|or|in|on|by)\b")


def _defined_in_object(text: str, defined: Sequence[str]) -> str | None:
    """Return a name the abstract defines in parentheses that the object of "we propose"
    (`text`, up to where its noun phrase ends) uses: "We reveal ... (PoLar) ... we propose a
    lightweight PoLar prediction network" names PoLar; None otherwise."""
    end = _OBJECT_END.search(text)
    words = re.findall(_TOKEN, text[: end.start() if end else len(text)])
    return next((w for w in words if w in defined), None)


_DEFINED = re.compile(rf"\(({_TOKEN})\)")
_OWN_VOICE = re.compile(r"\b(?:we|our)\b", re.IGNORECASE)


def _own_defined_names(abstract: str) -> list[str]:
    """The names `defined_names` gives that a sentence in the authors' voice defines ("We
    reveal ... (PoLar)"), not the field's ("While visual token reduction (VTR) strategies have
    been explored")."""
    return [n for s in split_sentences(abstract) if _OWN_VOICE.search(s) for n in defined_names(s)]


def defined_names(abstract: str) -> list[str]:
    """Return the distinctive names an abstract defines in parentheses, in order: "dynamic
    program-of-layers (PoLar)" gives "PoLar", "forward-mode AD (FmAD)" gives "FmAD"; not
    plain words or single capitals ("(i)", "(Fig)")."""
    names = [m.group(1) for m in _DEFINED.finditer(abstract) if _distinctive(m.group(1))]
    return list(dict.fromkeys(names))


# An author's macro for the method's own name, left in an abstract as arXiv abstracts sometimes
# carry one ("the performance gain of \\modelname on ..."): `\\modelname`, `\\method`,
# `\\ours`, `\\sysname`, `\\ourapproach`, ... with or without an empty group after it.
_NAME_MACRO = re.compile(
    r"\\[A-Za-z]*(?:name|method|model|ours|sys|system|approach|framework|algo)"
    r"(?![A-Za-z])(?:\{\})?"
)


def clean_abstract(raw: str, clean: Callable[[str], str] = clean_markup) -> str:
    """Return `raw` as plain text (`clean`: `rag.text.clean_markup`, or a parser's own), an
    author's macro for the method's name (`\\modelname`) read as the name the abstract
    introduces (`method_name`: "TreePO"); without one, the macro's word is left as `clean`
    leaves it ("modelname"). A publisher's copyright line or index terms at its end are cut
    (`rag.ingest.boilerplate`)."""
    cleaned = without_notices(clean(raw))
    if not _NAME_MACRO.search(raw):
        return cleaned
    name = method_name(cleaned)
    return without_notices(clean(_NAME_MACRO.sub(lambda _: name, raw))) if name else cleaned


def derive_label(authors: Sequence[str], abstract: str, truncated: bool) -> str:
    """Return a display label for a paper without a title, like "Ju et al. — ICGNN".

    Args:
        authors: the author names, in order.
        abstract: clean abstract text.
        truncated: whether the source cut the author list short.

    Returns:
        "A" for one author, "A & B" for two, "A et al." for more or a truncated list, plus
        " — METHOD" when `method_name` finds one. With no authors, the method name or the
        first words of the abstract.
    """
    method = method_name(abstract)
    families = [shown_family_name(a) for a in authors]
    if not families:
        words = abstract.split()
        return method or " ".join(words[:8]) + ("…" if len(words) > 8 else "")
    if len(families) == 1 and not truncated:
        label = families[0]
    elif len(families) == 2 and not truncated:
        label = f"{families[0]} & {families[1]}"
    else:
        label = f"{families[0]} et al."
    return f"{label} — {method}" if method else label


def author_phrase(authors: Sequence[str], truncated: bool) -> str:
    """Return how a sentence names the authors: "Ju", "Ju & Zhang" or "Ju et al." ("" if none)."""
    families = [f for f in (shown_family_name(a) for a in authors) if f]
    if not families:
        return ""
    if len(families) == 1 and not truncated:
        return families[0]
    if len(families) == 2 and not truncated:
        return f"{families[0]} & {families[1]}"
    return f"{families[0]} et al."


def speaker(paper: Paper) -> tuple[str, bool]:
    """Return who says what a paper's abstract says, and whether that name is plural.

    "Ju et al. (ICGNN)" for the seeds (authors plus the method the abstract introduces);
    the method alone when there are no authors.
    """
    who = author_phrase(paper.authors, paper.authors_truncated)
    method = method_name(paper.abstract)
    plural = " et al." in who or " & " in who
    if who and method:
        return f"{who} ({method})", plural
    return who or method or "", plural


def citation_key(authors: Sequence[str], year: int | None, title: str | None, abstract: str) -> str:
    """Return a Google-Scholar-style key: `ju2024icgnn`, or `ju_icgnn` without a year.

    The word is the first title word that is not a stop-word, else the first word of the
    method name; both ASCII-slugged. Keys are not unique by themselves: see `unique_keys`.

    Args:
        authors: the author names; the first one's family name starts the key.
        year: publication year, when known.
        title: the title, when known.
        abstract: clean abstract text, for the method name.

    Returns:
        The key, lower-case ASCII with at most one "_"; "anon" stands in for no authors.
    """
    family = ascii_slug(family_name(authors[0])) if authors else ""
    family = family or "anon"
    words = [w for w in re.findall(r"[^\W_]+", title or "") if w.casefold() not in _TITLE_STOPWORDS]
    method = method_name(abstract)
    if not words and method:
        words = method.split()
    word = ascii_slug(words[0]) if words else ""
    if year is not None:
        return f"{family}{year}{word}"
    return f"{family}_{word}" if word else family


def _letters(n: int) -> str:
    """Return the n-th suffix, 1-based: a, b, ..., z, aa, ab, ..."""
    out = ""
    while n:
        n, rem = divmod(n - 1, 26)
        out = chr(ord("a") + rem) + out
    return out


def unique_keys(keys: Sequence[str], taken: Iterable[str] = ()) -> list[str]:
    """Make keys unique, keeping their order.

    The first occurrence keeps its bare key; later ones get "b", "c", ... (then "aa", ...),
    skipping any suffixed key that is taken or that appears bare elsewhere in the input.

    Args:
        keys: candidate keys, in a deterministic order.
        taken: keys already in use (e.g. in the index), which none of the results may equal.

    Returns:
        Unique keys, one per input key; the same input gives the same output.
    """
    reserved = set(keys)
    used: set[str] = set(taken)
    out: list[str] = []
    for key in keys:
        candidate, n = key, 1
        while candidate in used or (candidate != key and candidate in reserved):
            n += 1
            candidate = f"{key}{_letters(n)}"
        used.add(candidate)
        out.append(candidate)
    return out


_KEY_FORBIDDEN = re.compile(r'[\s,{}()=\\"#%~\']')
MAX_KEY_LENGTH = 120


def usable_key(key: str | None) -> str | None:
    """Return a source's citation key when BibTeX and Pandoc can cite it as it is, else None.

    A key is usable when it is non-empty, at most `MAX_KEY_LENGTH` characters, holds a letter
    (so a reference manager's record number such as "12" is not taken for a key), and none
    of whitespace or the characters BibTeX gives a meaning to (``, { } ( ) = " # % ~ \\ '``).
    A URL-like id (Zotero's CSL-JSON `http://zotero.org/users/.../items/...`) is not a key.

    Args:
        key: the key as the source wrote it, or None.

    Returns:
        The key with surrounding space stripped, or None.
    """
    key = (key or "").strip()
    if not key or len(key) > MAX_KEY_LENGTH or _KEY_FORBIDDEN.search(key):
        return None
    if "://" in key or not any(ch.isalpha() for ch in key):
        return None
    return key


@dataclass(frozen=True)
class KeyedPapers:
    """Papers with their citation keys settled, and one message per key that had to change."""

    papers: list[Paper]
    clashes: list[str]


def settle_keys(papers: Sequence[Paper], taken: Iterable[str] = ()) -> KeyedPapers:
    """Give each paper a unique citation key, keeping the key its source gave where it can.

    A key from the source (BibTeX entry key, CSL-JSON id, RIS ID, ...) is kept; papers
    without one get a derived key (`citation_key`). Keys in `taken` stay with the papers
    that hold them. A clash is resolved the same way whatever order the papers were read
    in: source keys before derived ones, each group by paper id; the first keeps the bare
    key, later ones get "b", "c", ... and the change is reported.

    Args:
        papers: new papers; `citation_key` holds the source's key or "".
        taken: keys already in use (e.g. in the index).

    Returns:
        The papers in their input order with their keys set, and the clash messages.
    """
    taken = set(taken)
    given = [usable_key(p.citation_key) for p in papers]
    order = sorted(range(len(papers)), key=lambda i: (given[i] is None, papers[i].id))
    raw = [given[i] or _derived_key(papers[i]) for i in order]
    keys = dict(zip(order, unique_keys(raw, taken), strict=True))
    first: dict[str, int] = {}
    clashes = []
    for i, key in zip(order, raw, strict=True):
        if keys[i] == key:
            first.setdefault(key, i)
            continue
        if given[i] is None:
            continue  # a derived key was never the user's: no need to report its suffix
        holder = papers[first[key]].source if key in first else "a paper already in the index"
        clashes.append(
            f"{papers[i].source}: citation key '{key}' is already used by {holder}: "
            f"this paper is cited as '{keys[i]}' (change one of the keys in your library to "
            "choose)"
        )
    return KeyedPapers([p.with_(citation_key=keys[i]) for i, p in enumerate(papers)], clashes)


def _derived_key(paper: Paper) -> str:
    return citation_key(paper.authors, paper.year, paper.title, paper.abstract) or "anon"


def assign_keys(papers: Sequence[Paper], taken: Iterable[str] = ()) -> list[Paper]:
    """Return the papers with unique citation keys (see `settle_keys`), without the report."""
    return settle_keys(papers, taken).papers


@dataclass(frozen=True)
class KeyChanges:
    """New keys for stored papers whose source now gives another key, and why not for some."""

    keys: dict[str, str]  # paper id → the key its source gives
    changes: list[str]
    clashes: list[str]


def rekey_stored(pairs: Sequence[tuple[Paper, Paper]], in_use: Iterable[str]) -> KeyChanges:
    """Let a stored paper take the key its source now gives (a key renamed in Zotero, or a
    paper first read without a key and now from the user's .bib).

    Args:
        pairs: (stored paper, the same paper as just read), for papers already stored.
        in_use: every key held in the index and by the papers being added.

    Returns:
        The keys to store, by paper id (pairs taken in paper-id order), a message per
        change, and a message per wanted key another paper already holds (it is not taken).
    """
    used = set(in_use)
    keys: dict[str, str] = {}
    changes: list[str] = []
    clashes: list[str] = []
    for stored, read in sorted(pairs, key=lambda pair: pair[0].id):
        wanted = usable_key(read.citation_key)
        if not wanted or wanted == stored.citation_key:
            continue
        if wanted in used:
            clashes.append(
                f"{read.source}: citation key '{wanted}' is already used by another paper: "
                f"this paper stays '{stored.citation_key}'"
            )
            continue
        used.discard(stored.citation_key)
        used.add(wanted)
        keys[stored.id] = wanted
        changes.append(
            f"{read.source}: citation key '{stored.citation_key}' is now '{wanted}', "
            "as the source gives it"
        )
    return KeyChanges(keys, changes, clashes)
