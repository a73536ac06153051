"""How a chat turn and its sources look: plain functions of the library's records.

The answer text with its `[n]` markers linked to the source cards, the kind of each turn
(answer, abstention, fallback, error, still being made) marked so the page can tell them
apart, and the source cards. Every piece of paper or answer text is HTML-escaped.
"""

from __future__ import annotations

import html
import re
from typing import Any

from rag import api, prompts
from rag.answer.pipeline import Answer
from rag.errors import RagError
from rag.ingest.roles import stored_roles
from rag.records import Hit, Paper

_MARKER = re.compile(r"\[(\d+)\]")
_LINK = re.compile(r'<a class="cite" href="#source-(\d+)">\[\d+\]</a>')
# Markdown and KaTeX would otherwise reinterpret these characters in answer text.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|~$])")
# Shown at once after Enter, until the first checked sentence replaces it.
PENDING = "Searching the papers and writing the answer…"


def _md_escape(text: str, lines: bool = False) -> str:
    """Return `text` shown literally by the chat's Markdown renderer (and never as HTML).

    With `lines`, line breaks are kept (a "which papers" answer is one "- " line per paper);
    otherwise they become spaces.
    """
    escaped = html.escape(_MARKDOWN_SPECIAL.sub(r"\\\1", text), quote=False)
    return escaped if lines else escaped.replace("\n", " ")


def render_answer(text: str) -> str:
    """Return the chat message for answer `text`: escaped, `[n]` linked to its source card."""
    parts, pos = [], 0
    for match in _MARKER.finditer(text):
        n = match.group(1)
        parts.append(_md_escape(text[pos : match.start()], lines=True))
        parts.append(f'<a class="cite" href="#source-{n}">[{n}]</a>')
        pos = match.end()
    parts.append(_md_escape(text[pos:], lines=True))
    return "".join(parts)


def _unlink(message: dict[str, Any]) -> dict[str, Any]:
    """Return an earlier chat message with its `[n]` links made plain text.

    The source cards always belong to the latest answer, so an older answer's `[1]` would
    otherwise jump to a card about another paper.
    """

    def plain(text: str) -> str:
        return _LINK.sub(r"\\[\1\\]", text)

    content = message.get("content")
    if isinstance(content, str):
        return {**message, "content": plain(content)}
    if isinstance(content, list):  # what Gradio passes back: [{"type": "text", "text": ...}]
        parts = [
            {**part, "text": plain(part["text"])}
            if isinstance(part, dict) and isinstance(part.get("text"), str)
            else part
            for part in content
        ]
        return {**message, "content": parts}
    return message


def _label(kind: str, text: str) -> str:
    """Return the badge that marks a turn's kind; the page styles the whole message by it."""
    return f'<span class="turn-label turn-{kind}">{text}</span>'


def render_error(error: RagError) -> str:
    """Return the chat message for an error the library raised: its one-line message."""
    return f"{_label('error', 'Error')} {_md_escape(str(error))}"


def render_pending() -> str:
    """Return the message shown at once after a question, until its first sentence arrives."""
    return f'<span class="turn-pending">{PENDING}</span>'


def is_fallback(answer: Answer) -> bool:
    """True when a model was asked but its answer was replaced by the quoted evidence."""
    quoted = all(s.get("reason") == "quoted" for s in answer.sentences if s.get("shown"))
    return answer.notice is not None and answer.backend != "extractive" and quoted


def render_turn(answer: Answer) -> str:
    """Return the final chat message for `answer`, marked by its kind.

    A follow-up that was rewritten first says what was searched; an abstention, a fallback
    (the model's answer failed the check, or the model failed) and any other notice each carry
    a label, so none of them reads like a plain answer.
    """
    parts = []
    if answer.standalone:
        parts.append(
            f'<span class="searched">Searched for: “{_md_escape(answer.standalone)}”</span>'
        )
    if answer.abstained:
        said = {
            prompts.NO_OTHER: "No other paper",
            prompts.NONE_IN_SET_NOR_ELSEWHERE: "None of them",
        }.get(answer.answer, "No paper on this")
        parts.append(f"{_label('abstained', said)} {render_answer(answer.answer)}")
    else:
        parts.append(render_answer(answer.answer))
    if answer.notice and not answer.abstained:
        kind, text = ("fallback", "Fallback") if is_fallback(answer) else ("note", "Note")
        parts.append(f"{_label(kind, text)} {_md_escape(answer.notice)}")
    return "\n\n".join(parts)


def _authors(paper: Paper) -> str:
    names = ", ".join(paper.authors) or "Unknown authors"
    return f"{names} et al." if paper.authors_truncated else names


# What a reader is told of the highlighted sentence's role (rag/ingest/roles.py).
_ROLE_TAGS = {
    "result": "finding",
    "conclusion": "finding",
    "objective": "aim",
    "method": "method",
    "background": "background",
}


def _role_tag(paper: Paper, evidence: str) -> str:
    """Return the tag naming the role of `evidence` in `paper`'s abstract ("" when unknown)."""
    roles = dict(stored_roles(paper.abstract, paper.sentence_roles))
    tag = _ROLE_TAGS.get(roles.get(evidence, ""))
    return (
        f'<span class="role-tag" title="the role of this sentence in the abstract">{tag}</span>'
        if tag
        else ""
    )


def _highlight(paper: Paper, evidence: str | None) -> str:
    """Return the escaped abstract with the `evidence` sentence wrapped in <mark>, its role
    (finding, aim, method, background) tagged before it."""
    abstract = paper.abstract
    if evidence:
        tag = _role_tag(paper, evidence)
        words = evidence.split()
        found = re.search(r"\s+".join(map(re.escape, words)), abstract) if words else None
        if found:
            return (
                html.escape(abstract[: found.start()])
                + f"{tag}<mark>{html.escape(found.group(0))}</mark>"
                + html.escape(abstract[found.end() :])
            )
        # The sentence is not verbatim in the abstract: show it above it, still marked.
        return f"{tag}<mark>{html.escape(evidence)}</mark><br>{html.escape(abstract)}"
    return html.escape(abstract)


def render_card(hit: Hit, *, n: int | None = None, evidence: str | None = None) -> str:
    """Return one source card: number, label, authors, area, key, relevance, abstract.

    Args:
        hit: the paper as retrieved, with its relevance.
        n: the citation number in the answer (None for a nearest paper of an abstention).
        evidence: the sentence that supports the answer, highlighted in the abstract.
    """
    paper = hit.paper
    name = paper.title or paper.label or paper.citation_key or paper.id
    derived = (
        ' <span class="derived" title="The source has no title; this label is derived from '
        'the authors and the abstract.">derived label</span>'
        if not paper.title and paper.label_derived
        else ""
    )
    area = html.escape(paper.area) if paper.area else '<span class="unknown">area unknown</span>'
    badge = f'<span class="badge">[{n}]</span> ' if n is not None else ""
    card_id = f"source-{n}" if n is not None else f"nearest-{hit.rank}"
    abstract = f'<p class="card-abstract">{_highlight(paper, evidence)}</p>'
    if n is None:  # a nearest paper of an abstention: compact, its abstract on demand
        abstract = f"<details><summary>Abstract</summary>{abstract}</details>"
    return (
        f'<article class="source-card" id="{card_id}">'
        f'<div class="card-head">{badge}<span class="card-title">{html.escape(name)}</span>'
        f"{derived}</div>"
        f'<div class="card-authors">{html.escape(_authors(paper))}</div>'
        f'<div class="card-meta"><span>{area}</span>'
        f"<code>{html.escape(paper.citation_key)}</code>"
        f'<span class="relevance">relevance {hit.relevance:.2f}</span></div>'
        f"{abstract}{_bibtex_control(paper)}</article>"
    )


def _bibtex_control(paper: Paper) -> str:
    """Return the card's BibTeX on demand, with a Copy button (handled by the page's JS)."""
    bib = html.escape(api.export([paper], "bibtex").strip())
    return (
        '<details class="card-bib"><summary>BibTeX</summary>'
        f'<button type="button" class="copy-bib">Copy</button><pre>{bib}</pre></details>'
    )


def render_cards(answer: Answer | None) -> str:
    """Return the source panel for an answer: cited papers, or the nearest ones on abstaining."""
    if answer is None:
        return '<div class="sources-empty">The papers an answer cites will appear here.</div>'
    if answer.abstained:
        if not answer.nearest:
            return '<div class="sources-empty">The index has no papers to show.</div>'
        cards = "".join(render_card(hit) for hit in answer.nearest)
        title = "Nearest papers, none close enough to answer"
    elif not answer.citations:  # no topic to look up, or a language the models cannot read
        return '<div class="sources-empty">This answer cites no paper.</div>'
    else:
        cards = "".join(render_card(c.hit, n=c.n, evidence=c.evidence) for c in answer.citations)
        title = "Sources"
    question = f'<p class="sources-for">for “{html.escape(answer.question)}”</p>'
    return f'<section class="sources"><h3>{title}</h3>{question}{cards}</section>'
