"""The headings of structured abstracts: "BACKGROUND:", "Results:", "CONCLUSIONS".

Structured abstracts (PubMed, RIS/nbib exports, many journals) carry their authors' section
labels. The label is the best evidence of a sentence's role (`rag.ingest.roles` uses it before its
model) and is never part of a sentence shown to a reader: `abstract_sentences` splits an abstract
into its sentences with the headings removed, each with the role its heading names.
"""

from __future__ import annotations

# Headings are set off by typographic dashes and quotes, which are what these patterns match.
# ruff: noqa: RUF001
import re

from rag.text import split_sentences

# The five roles of an abstract's sentences, in the order its sections come.
ROLES = ("background", "objective", "method", "result", "conclusion")

# Heading -> role. None: a real heading whose section mixes roles or has none of the five
# ("METHODS AND RESULTS", "FUNDING", "TRIAL REGISTRATION"); the heading is still removed and the
# classifier decides each sentence of that section.
_HEADINGS: dict[str, str | None] = {}
for _role, _names in {
    "background": "background|introduction|context|rationale|motivation|importance|"
    "purpose of review|significance of the study",
    "objective": "objective|objectives|aim|aims|purpose|purposes|goal|goals|study objective|"
    "study objectives|aim of the study|aims of the study|objective of the study|hypothesis|"
    "research question|study aim|study aims|aims and objectives",
    "method": "method|methods|methodology|materials and methods|material and methods|"
    "materials & methods|methods and materials|patients and methods|subjects and methods|"
    "participants and methods|design|study design|design and setting|design and methods|"
    "study design and methods|research design and methods|experimental design|setting|settings|"
    "design, setting and participants|design, setting, and participants|setting and patients|"
    "setting and participants|participants|patients|subjects|population|intervention|"
    "interventions|main outcome measure|main outcome measures|main outcomes and measures|"
    "main outcome measurements|outcome measures|main outcome|measurements|measures|"
    "data sources|data source|study selection|data extraction|data sources and study selection|"
    "study selection and data extraction|data extraction and synthesis|selection criteria|"
    "search strategy|search methods|data collection and analysis|review methods|exposure|"
    "exposures|evidence acquisition|approach|procedure|procedures|new method|samples|"
    "methods of study selection|study population",
    "result": "results|result|findings|main results|key results|recent findings|"
    "measurements and main results|measurement and main results|data synthesis|"
    "evidence synthesis|observations",
    "conclusion": "conclusion|conclusions|interpretation|conclusions and relevance|"
    "conclusions/significance|conclusions and significance|discussion|significance|"
    "implications|clinical implications|clinical relevance|main conclusions|"
    "conclusions and implications|expert opinion|summary and conclusions",
    "": "methods and results|methods and findings|methodology/principal findings|"
    "methodology and principal findings|principal findings|approach and results|"
    "background and aims|background & aims|background/aims|background and purpose|"
    "background and objectives|background/objectives|background and aim|background and study aims|"
    "results and conclusions|results and conclusion|unlabelled|summary|abstract|funding|"
    "trial registration|clinical trial registration|availability|availability and implementation|"
    "limitations|key points|areas covered|supplementary information|contact|registration|"
    "lay summary|significance statement|key messages",
}.items():
    for _name in _names.split("|"):
        _HEADINGS[_name] = _role or None

_PHRASES = sorted(_HEADINGS, key=len, reverse=True)  # longest first: "METHODS AND RESULTS"
_PHRASE_RE = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in _PHRASES)
# A heading starts the text or a line, or follows the end of a sentence, maybe after Markdown's
# heading marks ("### Methods and results", as abstracts scraped from HTML keep them); then its
# separator.
_HEADING = re.compile(
    rf"(?:^|(?<=[.!?)\]\"”’:;])\s+|\n\s*)(?P<mark>#{{1,6}}[ \t]*)?(?P<h>{_PHRASE_RE})"
    r"(?P<sep>\s*:\s*|\.\s+|\s*[—–]\s*|\s+-\s+|\s*\n\s*|\s+)"
    r"(?=\S)",
    re.IGNORECASE,
)


def _is_title(heading: str) -> bool:
    """Title case, its small words aside: "Conclusions and Relevance", "Design, Setting, and
    Participants"."""
    words = re.findall(r"[^\W\d_]+", heading)
    return all(w in _SMALL or (w[0].isupper() and (len(w) == 1 or w[1:].islower())) for w in words)


_SMALL = frozenset({"and", "of", "or", "the", "for", "in", "to", "with"})


def _is_caps(heading: str) -> bool:
    letters = [c for c in heading if c.isalpha()]
    return bool(letters) and all(c.isupper() for c in letters)


def section_headings(abstract: str) -> list[tuple[str | None, str]]:
    """Like `section_labels`, but each section with its heading as written (lower-cased).

    The training script reads mixed headings ("methods and results") from here, to train
    such a section's sentences on the roles the heading allows.
    """
    return _sections(abstract, _kept_headings(abstract))


def section_labels(abstract: str) -> list[tuple[str | None, str]]:
    """Split a structured abstract at its own section headings, the headings removed.

    A heading counts when it is a known section name at the start of the text, of a line or
    of a sentence, and either ends in a colon or a line break ("Results:", "METHODS:"), or
    is written in capitals ("RESULTS The ..."), or ends in a period or dash while the
    abstract has at least one other heading, or is run into a sentence opening with a capital
    while the abstract has at least one other such ("Importance Despite ... Results A total
    ..."). So prose such as "Results show that ..." or "Methods for X are ..." is never cut,
    and a capitals heading with no colon needs a second heading unless it opens the abstract
    ("OBJECTIVE To determine ...").

    Args:
        abstract: the abstract text as the source gave it.

    Returns:
        (role, text) segments in order; role is one of `ROLES`, or None for a text with no
        heading (the whole abstract when it has none, or what comes before the first) and for
        a section whose heading names no single role ("METHODS AND RESULTS", "FUNDING").
    """
    return [
        (None if name is None else _HEADINGS[name], body)
        for name, body in _sections(abstract, _kept_headings(abstract))
    ]


def _kept_headings(abstract: str) -> list[re.Match[str]]:
    """The heading matches that `section_labels` cuts at (its rules are in its docstring)."""
    found: list[re.Match[str]] = []
    for match in _HEADING.finditer(abstract):
        head, sep = match.group("h"), match.group("sep")
        if not (head[0].isupper() and (_is_title(head) or _is_caps(head) or head[1:].islower())):
            continue
        found.append(match)
    strong = [
        m
        for m in found
        if ":" in m.group("sep") or "\n" in m.group("sep") or _is_caps(m.group("h")) or m["mark"]
    ]
    # "Importance Despite ... Conclusions and Relevance Among women ...": headings in title case
    # run into a sentence that opens with a capital, as PubMed text loses its line breaks.
    run_in = [m for m in found if _runs_in(abstract, m)]
    if not _in_order(run_in):  # "Results A and B agree. Methods C and D differ." is prose
        run_in = []
    kept: list[re.Match[str]] = []
    for match in found:
        sep, caps = match.group("sep"), _is_caps(match.group("h"))
        if ":" in sep or "\n" in sep or match["mark"]:
            kept.append(match)
        elif not sep.strip():
            at_start = not abstract[: match.start("h")].strip()
            capitals = caps and (len(strong) >= 2 or at_start)
            if capitals or (match in run_in and len(run_in) >= 2):
                kept.append(match)
        elif len(strong) + sum(1 for m in found if m.group("sep").strip() in ".—–-") >= 2:
            kept.append(match)  # "Background. ..." or "RESULTS - ..." among other headings
    return kept


def _runs_in(abstract: str, match: re.Match[str]) -> bool:
    """Whether a heading in title case, set off by a space alone, is followed by a capital or a
    digit ("Results A total of 750 women"), which prose ("Results show that") is not."""
    head, after = match.group("h"), abstract[match.end() : match.end() + 1]
    return (
        not match.group("sep").strip()
        and not _is_caps(head)
        and (after.isupper() or after.isdigit())
    )


def _in_order(headings: list[re.Match[str]]) -> bool:
    """Whether the headings' roles never go back in an abstract's order (background, objective,
    method, result, conclusion), as the sections of a structured abstract do."""
    roles = [_HEADINGS[" ".join(m.group("h").lower().split())] for m in headings]
    ranks = [ROLES.index(r) for r in roles if r]
    return ranks == sorted(ranks)


def _sections(abstract: str, kept: list[re.Match[str]]) -> list[tuple[str | None, str]]:
    """(heading name lower-cased or None, body) for the headings kept by `section_labels`."""
    if not kept:
        return [(None, abstract)]
    segments: list[tuple[str | None, str]] = []
    head_text = abstract[: _start(kept[0])].strip()
    if head_text:
        segments.append((None, head_text))
    for i, match in enumerate(kept):
        end = _start(kept[i + 1]) if i + 1 < len(kept) else len(abstract)
        body = abstract[match.end() : end].strip()
        if body:
            segments.append((" ".join(match.group("h").lower().split()), body))
    return segments


def _start(heading: re.Match[str]) -> int:
    """Where a kept heading begins, its Markdown marks included."""
    return heading.start("mark") if heading["mark"] else heading.start("h")


def abstract_sentences(abstract: str) -> list[tuple[str, str | None]]:
    """Return the sentences of `abstract` without its headings, each with its heading's role.

    The role is None for a sentence under no heading, or under one that names no single role
    ("METHODS AND RESULTS"). An abstract without headings gives `split_sentences` as it is.
    """
    out: list[tuple[str, str | None]] = []
    for role, text in section_labels(abstract):
        out += [(s, role) for s in split_sentences(text)]
    return out
