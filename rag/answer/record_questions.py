"""Questions about a paper's record, not its content: who wrote it, when, where to read it.

"who wrote it?" after an answer on ICGNN was answered with ICGNN's method sentence, and "when
was it published?" with the same one: an abstract rarely says who wrote it or when, while the
paper's record does. Such a question gets, for each paper it is about, the record's line: the
paper's name, title, all its authors, year and link, as the source gave them, cited; a field
the question asks for that the record lacks is named as missing, never guessed.

Which questions: one that asks who wrote or published the paper, when it came out or in which
year, or for its DOI, link or PDF (not its code: "code link?" asks whether the code is out,
`rag.ingest.wanted.asks_if_out`), or for its BibTeX entry ("give me the bibtex for the first
one", "how do I cite it?": the entry follows the record's line, `rag.api.ask_stream`); or a
message whose only words are the fields' names ("authors?", "year and doi?", "bibtex?").
"what do the authors find?" asks about content, not the record.
"""

from __future__ import annotations

import re

from rag.ingest.naming import speaker
from rag.ingest.wanted import asks_if_out
from rag.records import Paper
from rag.text import CHAT_WORDS, CONTENT_WORD, STOPWORDS

AUTHORS, YEAR, LINK = "authors", "year", "link"
# The other reference formats the Export tab writes, as a request names them ("RIS please",
# "as CSL-JSON"): what asks for the entries (`_ASKS`) and which format (`entry_format`).
_RIS = r"\b(?-i:RIS)\b|\.ris\b"
_CSL = r"\bcsl(?:[- ]?json)?\b"
# A request for the paper's BibTeX entry ("give me the bibtex for the first one", "how do I
# cite it?"): the record's line, and the entry below it (`rag.api.ask_stream`).
BIBTEX = "bibtex"
_ASKS = {
    AUTHORS: re.compile(
        r"\bwho\s+(?:wrote|writes|authored|is\s+behind|are\s+behind|are\s+the\s+authors"
        # "who proposed TreePO?", "who came up with ICGNN?": the people whose paper it is
        r"|(?:first\s+)?(?:proposed|introduced|developed|created|invented|designed|came\s+up\s+with)"
        r"(?!\s+the\s+(?!paper\b|method\b|approach\b|framework\b|model\b)\w+)"
        r"|is\s+the\s+author|published\b(?!\s+the\s+(?!paper\b)\w+))\b"
        r"|\b(?:names?\s+of|list(?:\s+of)?)\s+(?:the\s+|its\s+|their\s+)?authors\b(?!['\u2019])"
        r"|\bwritten\s+by\s+whom\b",
        re.IGNORECASE,
    ),
    YEAR: re.compile(
        r"\bwhen\s+(?:was|were|did)\s+(?:it|this|that|they|these|those|the\s+paper|(?-i:[A-Z][\w-]*))"
        r"\s+(?:\w+\s+)?(?:published|written|released|out|appear(?:ed)?|come\s+out)\b"
        r"|\b(?:what|which)\s+year\s+(?:was|were|did|is|are)\s+(?:it|this|that|they|the\s+paper"
        r"|(?-i:[A-Z][\w-]*))"
        r"\s+(?:published|written|released|out|from|come\s+out)\b"
        r"|\b(?:publication|release)\s+(?:year|date)\b"
        r"|\band\s+when\s*(?:[?.!]|$)"
        r"|\bhow\s+(?:recent|old)\s+(?:is|are)\s+(?:it|they|this|that|these|those)\b"
        # "which of them is the most recent?", "which one is newer?" (a new user got three
        # method sentences and no word that the records hold no year; stop 59)
        r"|\bwhich\b(?:\s+[\w-]+){0,4}?\s+(?:is|are|was|were|came\s+out)\s+(?:the\s+)?"
        r"(?:most\s+recent|newest|latest|oldest|earliest|newer|older|more\s+recent)\b",
        re.IGNORECASE,
    ),
    LINK: re.compile(
        r"\b(?:the|its|their|a|any)\s+(?:doi|url|pdf|link)\b(?!\s+(?:files?|documents?)\b)"
        r"|\bwhere\s+(?:can|do)\s+i\s+(?:find|read|get|download|access)\s+(?:it|this|that|them"
        r"|these|those|the\s+(?:paper|papers|article|pdf|full\s+text))\b",
        re.IGNORECASE,
    ),
    BIBTEX: re.compile(
        r"\bbib(?:la)?tex\b|\.bib\b|\bbib\s+entr(?:y|ies)\b"
        rf"|{_RIS}|{_CSL}"
        r"|\bhow\s+(?:do|should|can|would|to)\s+(?:i\s+|we\s+)?cite\b"
        r"|\bcite\s+(?:it|this|that|them|these|those)\b"
        r"|\b(?:the|a|its|their)\s+citations?\s+(?:for|of|to)\b"
        # "export the references", "export them": as a BibTeX entry (a new user, stop 59)
        r"|\bexport\s+(?:(?:the|all|of|these|those|their|its|both|my)\s+){0,3}(?:references?|"
        r"citations?|bibliography|papers?|them|these|those|it|both|all)\b",
        re.IGNORECASE,
    ),
}
# A message made of these words alone asks for the fields they name: "authors?", "year and
# DOI?"; "source?", "reference?" for the whole record.
_FIELD_WORDS = {
    "author": (AUTHORS,), "authors": (AUTHORS,), "year": (YEAR,), "date": (YEAR,),
    "doi": (LINK,), "url": (LINK,), "link": (LINK,), "pdf": (LINK,),
} | dict.fromkeys(
    "source sources reference references ref refs".split(),  # noqa: SIM905
    (AUTHORS, YEAR, LINK),
) | dict.fromkeys(
    "citation citations cite bibtex biblatex bib ris csl csljson csl-json".split(),  # noqa: SIM905
    (AUTHORS, YEAR, LINK, BIBTEX),
)  # fmt: skip
_FILLER = frozenset(
    ("and", "the", "its", "their", "what", "about", "please", "whats", "s", "me", "us")
)
_IGNORED = _FILLER | STOPWORDS | frozenset(CHAT_WORDS.split())  # beside the fields' names


def record_fields(question: str) -> tuple[str, ...]:
    """Return the record fields `question` asks for (authors, year, link, bibtex), in that
    order; () when it asks about something else."""
    if asks_if_out(question):
        return ()
    asked = {field for field, pattern in _ASKS.items() if pattern.search(question)}
    if names_only_fields(question):
        words = {w.lower() for w in CONTENT_WORD.findall(question)}
        asked |= {field for w in words if w in _FIELD_WORDS for field in _FIELD_WORDS[w]}
    if BIBTEX in asked:  # the entry holds them all
        asked |= {AUTHORS, YEAR, LINK}
    return tuple(f for f in (AUTHORS, YEAR, LINK, BIBTEX) if f in asked)


# "what did the authors show?": the authors are who says it, not what is asked for (a new
# user got the author list; stop 58).
_SAYING = re.compile(
    # "the authors of show?": "what do the authors of ICGNN show?" without the name it names
    r"\b(?:authors?|sources?|references?)\s+(?:of\s+)?(?:\w+ly\s+)?(?:show|find|found|report|claim|"
    r"conclude|propose|argue|demonstrate|say|said|suggest|prove|observe)\w*",
    re.IGNORECASE,
)


def names_only_fields(question: str) -> bool:
    """Whether `question`'s words are the fields' names alone ("authors?", "year and DOI?"):
    it asks about the papers just shown, as "who wrote it?" does; not when the field names
    who says something ("what did the authors show?", `_SAYING`)."""
    if _SAYING.search(question):
        return False
    words = [w.lower() for w in CONTENT_WORD.findall(question)]
    return any(w in _FIELD_WORDS for w in words) and all(
        w in _FIELD_WORDS or w in _IGNORED for w in words
    )


def names_no_paper(question: str) -> bool:
    """Whether `question` asks for record fields of no paper it names ("who wrote it?", "when
    was it published?" as a chat's first message): its words are the asking and fillers only,
    while "when was ConPress published?" names one."""
    words = [w.lower() for w in CONTENT_WORD.findall(question)]
    return all(w in _FIELD_WORDS or w in _IGNORED or w in _ASKING_WORDS for w in words)


def fields_asked_of_named(question: str, rest: str) -> tuple[str, ...]:
    """The record fields `question` asks of the papers it names, `rest` being the question
    without their names: those `record_fields` reads ("bibtex for IDFT", "when was ConPress
    published?"), or, when the rest's words are field names and fillers alone ("reference for",
    "authors", "source for the paper"), the fields they name; () when it asks anything else
    ("who wrote ICGNN and is it fast?", "what do the authors of ICGNN find?")."""
    if not names_no_paper(rest):
        return ()
    # "source for the paper": the field names alone once "the paper" is left out
    fields_only = " ".join(w for w in CONTENT_WORD.findall(rest) if w.lower() not in _THE_PAPER)
    return record_fields(question) or record_fields(fields_only)


_THE_PAPER = frozenset("paper papers article articles work".split())  # noqa: SIM905


# The words of `_ASKS`, beside the paper asked about.
_ASKING_WORDS = frozenset(
    """who wrote writes written authored whom behind when year date publication release
    published released out appear appeared come came recent old where can find read get
    download access paper article full text give bibtex biblatex bib entry entries cite
    citation citations how export both latex format ris csl csljson csl-json json zotero endnote
    mendeley import""".split()  # noqa: SIM905
)


# Which reference format a request for the papers' entries names (`entry_format`).
_FORMATS = (
    ("ris", re.compile(rf"{_RIS}|\bris\s+(?:please|format|file)|\bendnote\b", re.IGNORECASE)),
    ("csljson", re.compile(_CSL, re.IGNORECASE)),
)


def entry_format(question: str) -> str:
    """The reference format a request for entries names: "ris" ("RIS please", "for
    EndNote"), "csljson" ("as CSL-JSON"), else "bibtex", as the Export tab writes them."""
    return next((fmt for fmt, pattern in _FORMATS if pattern.search(question)), "bibtex")


def record_line(paper: Paper, fields: tuple[str, ...]) -> str:
    """The line of `paper`'s record: "Ju et al. (ICGNN): “Title” by A, B and C (2024),
    https://doi.org/...". What `fields` asks for and the record lacks is named first."""
    who, _ = speaker(paper)
    parts = [f"“{paper.title}”"] if paper.title else []
    if paper.authors:
        names = ", ".join(paper.authors[:-1])
        if paper.authors_truncated:  # the source listed only the first ones
            listed = f"{', '.join(paper.authors)} et al."
        else:
            listed = f"{names} and {paper.authors[-1]}" if names else paper.authors[0]
        parts.append(f"by {listed}")
    if paper.year:
        parts.append(f"({paper.year})")
    link = f"https://doi.org/{paper.doi}" if paper.doi else paper.url
    text = " ".join(parts)
    if link:
        text = f"{text}, {link}" if text else link
    missing = [
        what
        for field, what in ((AUTHORS, "no authors"), (YEAR, "no year"), (LINK, "no DOI or link"))
        if field in fields
        and not (paper.authors if field == AUTHORS else paper.year if field == YEAR else link)
    ]
    if missing:  # what was asked and is not there comes first
        lacks = f"its record gives {' and '.join(missing)}"
        text = f"{lacks}; {text}" if text else lacks
    return f"{who or paper.label or 'The paper'}: {text}"


# A plural as what a request for records is of ("BibTeX for them", "export these", "cite all of
# those papers").
_THEM = re.compile(r"\b(?:them|these|those)\b", re.IGNORECASE)


def records_of_them(question: str) -> bool:
    """Whether `question` asks for the records (an entry, a citation, an export) of "them",
    "these" or "those": papers, whatever else "them" may mean ("how could we address them?")."""
    return bool(_THEM.search(question)) and bool(record_fields(question))
