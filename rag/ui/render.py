"""How a chat turn and its sources look: plain functions of the library's records.

The answer text with its `[n]` markers linked to the source cards, the kind of each turn
(answer, abstention, fallback, error, still being made) marked so the page can tell them
apart, and the source panel: each answer's cards in a section of their own, so that every
answer's links stay live (the page script shows the section a clicked link points into).
Every piece of paper or answer text is HTML-escaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

from rag import api, prompts
from rag.answer.rendering import Answer, quoted_sentences
from rag.errors import RagError
from rag.ingest.roles import stored_roles
from rag.records import Hit, Paper

_MARKER = re.compile(r"\[(\d+)\]")
_LINK = re.compile(r'<a class="cite" href="#t(\d+)-source-(\d+)">\[\d+\]</a>')
# The panel keeps the cards of this many latest answers; older answers' numbers turn plain.
# Gradio sends the whole panel once per question (when its answer starts), and a card is about
# 4 kB (abstract, BibTeX): 10 cited answers of the seeds made 89 kB, so 20 keep it near 200 kB
# where a long session would grow it without bound.
KEPT_TURNS = 20
# Markdown and KaTeX would otherwise reinterpret these characters in answer text. "<" and ">"
# are not among them: `html.escape` makes them entities, and a backslash before an entity is
# Markdown's escaped "&": a question's "p < 0.05" showed as "p &lt; 0.05".
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]#|~$])")
# Shown at once after Enter, until the first checked sentence replaces it.
PENDING = "Searching the papers and writing the answer…"


def _md_escape(text: str, lines: bool = False) -> str:
    """Return `text` shown literally by the chat's Markdown renderer (and never as HTML).

    With `lines`, line breaks are kept (a "which papers" answer is one "- " line per paper);
    otherwise they become spaces.
    """
    escaped = html.escape(_MARKDOWN_SPECIAL.sub(r"\\\1", text), quote=False)
    return escaped if lines else escaped.replace("\n", " ")


def source_id(turn: int, n: int) -> str:
    """Return the id of card [n] of the answer to question `turn` (0 the first of the chat)."""
    return f"t{turn}-source-{n}"


# The entries an answer gives ("give me the bibtex for it", "RIS please": `rag.api.ask_stream`),
# fenced by format (`rag.api.ENTRY_FENCES`).
_ENTRY_BLOCK = re.compile(rf"\n*```({'|'.join(api.ENTRY_FENCES.values())})\n(.*?)```", re.DOTALL)


def _verbatim_html(text: str) -> str:
    """`text` escaped for HTML that the chat's Markdown reads too: its special characters as
    character references, so that "MAI \\& Loubes" shows as typed, not as "MAI &amp;amp; Loubes"
    (Markdown took the backslash as an escape, and the "&" of "&amp;" as text), and its line
    breaks too: the blank line between two entries ended the block, and the second entry
    was shown as a paragraph."""
    return "".join(
        f"&#{ord(ch)};" if ch == "\n" or _MARKDOWN_SPECIAL.fullmatch(ch) else html.escape(ch, False)
        for ch in text
    )


def render_answer(text: str, *, turn: int = 0) -> str:
    """Return the chat message for answer `text`: escaped, `[n]` linked to its source card,
    a BibTeX entry shown as it is to be copied.

    Args:
        text: the answer with its `[n]` markers.
        turn: the question it answers (0 the first of the chat), whose cards the links open.
    """
    block = _ENTRY_BLOCK.search(text)
    if block is not None:
        html_text = _verbatim_html(block.group(2))
        entry = f'<pre class="entry {block.group(1)}"><code>{html_text}</code></pre>'
        before, after = text[: block.start()], text[block.end() :]
        return render_answer(before, turn=turn) + entry + render_answer(after, turn=turn)
    parts, pos = [], 0
    for match in _MARKER.finditer(text):
        n = match.group(1)
        parts.append(_md_escape(text[pos : match.start()], lines=True))
        parts.append(f'<a class="cite" href="#{source_id(turn, int(n))}">[{n}]</a>')
        pos = match.end()
    parts.append(_md_escape(text[pos:], lines=True))
    return "".join(parts)


def first_kept(turns: int) -> int:
    """Return the first of `turns` answers whose cards the panel keeps (`KEPT_TURNS`)."""
    return max(0, turns - KEPT_TURNS)


def unlink_outside(message: dict[str, Any], kept: range) -> dict[str, Any]:
    """Return a chat message with its `[n]` links made plain text, but for the answers whose
    cards the panel holds (`kept`: their turns).

    An answer older than the panel's last `KEPT_TURNS`, or one whose `Answer` the chat was not
    given, has no cards on the page: its links would lead nowhere, or to another answer's.
    """

    def unlinked(link: re.Match[str]) -> str:
        # Escaped, as the answer's other text: Markdown would read "[1]" as a link label.
        return link.group(0) if int(link.group(1)) in kept else rf"\[{link.group(2)}\]"

    def plain(text: str) -> str:
        return _LINK.sub(unlinked, text)

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


# The library's messages name the command line's way out ("loosen it, or run `rag list` to see
# the areas and authors there are."); a reader of the page has the Library tab for it.
_COMMANDS_ON_THE_PAGE = (
    (re.compile(r"\brun `rag list`"), "open the Library tab"),
    (re.compile(r"`rag list`"), "the Library tab"),
    (re.compile(r"\b(?:run|use) `rag ingest[^`]*`"), "add papers in the Library tab"),
    (re.compile(r"\bwith `rag ingest[^`]*`"), "in the Library tab"),
)


def on_the_page(message: str) -> str:
    """`message` with the commands it names as the page's way to do the same."""
    for command, instead in _COMMANDS_ON_THE_PAGE:
        message = command.sub(instead, message)
    return message


def render_error(error: RagError) -> str:
    """Return the chat message for an error the library raised: its one-line message, with
    what it says to run on the command line said as the page does it (`on_the_page`)."""
    return f"{_label('error', 'Error')} {_md_escape(on_the_page(str(error)))}"


def render_pending() -> str:
    """Return the message shown at once after a question, until its first sentence arrives."""
    return f'<span class="turn-pending">{PENDING}</span>'


def is_fallback(answer: Answer) -> bool:
    """True when a model was asked but its answer was replaced by the quoted evidence."""
    # A composer's note ("None of the papers listed earlier is about this; ...") may head the
    # quotes: it is not the model's, so it does not make the answer the model's.
    shown = [s for s in answer.sentences if s.get("shown") and s.get("reason") != "note"]
    quoted = all(s.get("reason") == "quoted" for s in shown)
    return answer.notice is not None and answer.backend != "extractive" and quoted


def _opening_note(answer: Answer) -> str | None:
    """The composer's note an answer opens with, when more follows it (else None): shown as its
    own paragraph, not run into the first quoted sentence."""
    shown = [s for s in answer.sentences if s.get("shown")]
    text = str(shown[0].get("text", "")) if shown and shown[0].get("reason") == "note" else ""
    rest = answer.answer[len(text) :].strip() if answer.answer.startswith(text) else ""
    return text if text and rest else None


def render_turn(answer: Answer, *, turn: int = 0) -> str:
    """Return the final chat message for `answer` to question `turn`, marked by its kind.

    A follow-up that was rewritten first says what was searched; an abstention, a fallback
    (the model's answer failed the check, or the model failed) and any other notice each carry
    a label, so none of them reads like a plain answer.
    """
    parts = []
    if answer.standalone:
        parts.append(
            f'<span class="searched">Searched for: “{_md_escape(answer.standalone)}”</span>'
        )
    if answer.notice and not answer.abstained:
        # Before the answer's text, so that a reader knows what it is before reading it
        # ("Fallback" came below the quoted sentences it is about: a new user at 1280 px).
        kind, text = ("fallback", "Fallback") if is_fallback(answer) else ("note", "Note")
        parts.append(
            f'{_label(kind, text)} <span class="turn-notice">{_md_escape(answer.notice)}</span>'
        )
    if answer.abstained:
        said = {
            prompts.NO_OTHER: "No other paper",
            prompts.NONE_IN_SET_NOR_ELSEWHERE: "None of them",
            prompts.NONE_IN_SET_NOR_ELSEWHERE_ONE: "Not that paper",
        }.get(answer.answer, "No paper on this")
        parts.append(f"{_label('abstained', said)} {render_answer(answer.answer, turn=turn)}")
    elif answer.answer == prompts.ENGLISH_ONLY:  # a Chinese question: no search was made
        parts.append(f"{_label('note', 'English only')} {render_answer(answer.answer, turn=turn)}")
    elif note := _opening_note(answer):  # "None of the papers listed earlier ...": apart
        # "... so what follows is only the nearest": marked as a note is, not plain text that
        # reads like the answer (a new user at both widths missed it).
        label = f"{_label('note', 'Only the nearest')} " if prompts.NEAREST_HEDGE in note else ""
        parts.append(label + render_answer(note, turn=turn))
        parts.append(render_answer(answer.answer[len(note) :].lstrip(), turn=turn))
    else:
        parts.append(render_answer(answer.answer, turn=turn))
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


def _highlight(paper: Paper, evidence: Sequence[str]) -> str:
    """Return the escaped abstract with each `evidence` sentence wrapped in <mark>, its role
    (finding, aim, method, background) tagged before it. The first of `evidence` (the answer's
    first sentence from this paper) is `<mark class="first">`, which the page scrolls the card
    to: a phone's card showed the method sentence, higher in the abstract, where the answer
    quoted the finding first (a new user). A card with one mark needs no class."""
    abstract = paper.abstract
    marks: list[tuple[int, int, str]] = []  # where each sentence stands, and its tag
    apart: list[str] = []  # those not verbatim in the abstract
    first = None  # where the first of `evidence` starts in the abstract, when it is in it
    for i, sentence in enumerate(evidence):
        words = sentence.split()
        found = re.search(r"\s+".join(map(re.escape, words)), abstract) if words else None
        if found is None:
            apart += [sentence] if words else []
        elif not any(found.start() < end and start < found.end() for start, end, _ in marks):
            marks.append((found.start(), found.end(), _role_tag(paper, sentence)))
            first = found.start() if i == 0 else first
    first = first if len(marks) + len(apart) > 1 else None  # a lone mark is the one found
    parts, pos = [], 0
    for start, end, tag in sorted(marks):
        parts.append(html.escape(abstract[pos:start]))
        opening = '<mark class="first">' if start == first else "<mark>"
        parts.append(f"{tag}{opening}{html.escape(abstract[start:end])}</mark>")
        pos = end
    parts.append(html.escape(abstract[pos:]))
    # A sentence that is not verbatim in the abstract is shown above it, still marked.
    above = "".join(
        f"{_role_tag(paper, text)}<mark>{html.escape(text)}</mark><br>" for text in apart
    )
    return above + "".join(parts)


def render_card(
    hit: Hit,
    *,
    n: int | None = None,
    evidence: Sequence[str] = (),
    turn: int = 0,
) -> str:
    """Return one source card: number, label, authors, area, key, relevance, abstract.

    Args:
        hit: the paper as retrieved, with its relevance.
        n: the citation number in the answer (None for a nearest paper of an abstention).
        evidence: the sentences of its abstract that the answer quoted, each highlighted
            (`quoted_sentences`).
        turn: the question whose answer cites it (0 the first of the chat): ids stay unique.
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
    card_id = source_id(turn, n) if n is not None else f"t{turn}-nearest-{hit.rank}"
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
        # a cosine a hair below 0 read as a fault ("relevance -0.01"): shown as none
        f'<span class="relevance">relevance {max(0.0, hit.relevance):.2f}</span></div>'
        f"{abstract}{_bibtex_control(paper)}</article>"
    )


def _bibtex_control(paper: Paper) -> str:
    """Return the card's BibTeX on demand, with a Copy button (handled by the page's JS)."""
    bib = html.escape(api.export([paper], "bibtex").strip())
    return (
        '<details class="card-bib"><summary>BibTeX</summary>'
        f'<button type="button" class="copy-bib">Copy</button><pre>{bib}</pre></details>'
    )


def _cites(answer: Answer) -> bool:
    """True when `answer` links to cards of its own (an abstention's nearest papers are not)."""
    return not answer.abstained and bool(answer.citations)


def render_cards(answer: Answer, *, turn: int = 0, shown: bool = True) -> str:
    """Return the source panel's section for one answer: cited papers, or the nearest ones on
    abstaining, headed by its question.

    Args:
        answer: the answer.
        turn: the question it answers (0 the first of the chat), as its links name it.
        shown: False for an earlier answer's section, which the page script shows when one of
            that answer's links is clicked.
    """
    opening = f'<section class="sources" data-turn="{turn}"{"" if shown else " hidden"}>'
    if answer.abstained and not answer.nearest:
        body = '<div class="sources-empty">No paper searched came near this question.</div>'
    elif answer.abstained:
        cards = "".join(render_card(hit, turn=turn) for hit in answer.nearest)
        body = _headed("Nearest papers, none close enough to answer", answer, cards)
    elif not _cites(answer):  # no topic to look up, or a language the models cannot read
        body = '<div class="sources-empty">This answer cites no paper.</div>'
    else:
        cards = "".join(
            render_card(c.hit, n=c.n, evidence=quoted_sentences(answer, c), turn=turn)
            for c in answer.citations
        )
        body = _headed("Sources", answer, cards)
    return f"{opening}{body}</section>"


def _headed(title: str, answer: Answer, cards: str) -> str:
    """Return `cards` under `title` and the question they are for."""
    question = f'<p class="sources-for">for “{html.escape(answer.question)}”</p>'
    return f"<h3>{title}</h3>{question}{cards}"


# Where the cards of the answer being made will appear. It stays in the panel, before them, so
# that they arrive as an addition (Gradio then sends only them); CSS hides it once they follow.
_WAITING = (
    '<section class="sources sources-waiting">'
    '<div class="sources-empty">The papers an answer cites will appear here.</div></section>'
)


def render_panel(answers: Sequence[Answer], *, waiting: bool = False) -> str:
    """Return the source panel of a chat: the latest answer's section shown, and hidden, the
    sections of the earlier answers whose `[n]` links point into them (of the last
    `KEPT_TURNS` answers).

    Args:
        answers: the chat's answers, oldest first; answer k's links name turn k.
        waiting: the next answer is being made: the place of its cards is shown.
    """
    latest = None if waiting or not answers else len(answers) - 1
    first = first_kept(len(answers) + (latest is None))
    if latest is not None and not _cites(answers[latest]) and not answers[latest].abstained:
        # "thanks!", "hello": a reply that cites nothing leaves the cards the reader was on
        # (they were replaced by "This answer cites no paper.": a new user's trial, stop 58)
        latest = next((k for k in range(latest - 1, first - 1, -1) if _cites(answers[k])), latest)
    parts = [
        render_cards(answer, turn=k, shown=False)
        for k, answer in enumerate(answers)
        if first <= k != latest and _cites(answer)
    ]
    parts.append(_WAITING)
    if latest is not None:
        parts.append(render_cards(answers[latest], turn=latest))
    return "".join(parts)
