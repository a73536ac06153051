"""What the UI's tabs and download buttons show, as plain functions over `rag.api` results.

The "Cite my draft" tab (with near misses to accept), the "Library" tab (statistics, search,
paper table, upload, removal) and the conversation exports. `ui.build_app` wires them to
components; tests call them directly.
Every piece of paper or user text is HTML-escaped before it reaches the page.
"""

from __future__ import annotations

import html
import re
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag import api, prompts
from rag.answer import paper_choice
from rag.cite.claims import NEAR_MISS, accept_nearest
from rag.errors import RagError
from rag.ui.render import on_the_page

if TYPE_CHECKING:
    from rag.answer.rendering import Answer
    from rag.cite.claims import CitedDraft, DraftSentence, Support
    from rag.index.paper_index import Index
    from rag.records import Paper

UPLOAD_TYPES = [".txt", ".jsonl", ".json", ".csv", ".bib", ".ris", ".nbib"]
MAX_UPLOAD_MB = 50
STYLES = [("LaTeX \\cite{key}", "latex"), ("Pandoc [@key]", "pandoc")]
LIBRARY_COLUMNS = ["Key", "Title", "Authors", "Area", "Year"]
DERIVED_MARK = "(derived label)"  # the source has no title: as the source cards say
NO_ABSTRACT_MARK = "(no abstract)"  # a title-only record, as `rag list` marks it
TITLE_ONLY_BADGE = '<span class="badge title-only">title only</span>'
LIBRARY_RANKED = 200  # papers the library search ranks; other matches follow them by key
_WORD = re.compile(r"\w+")


def write_download(text: str, name: str) -> str:
    """Write `text` to a fresh temporary folder as `name`; return the path to offer it."""
    path = Path(tempfile.mkdtemp(prefix="rag-ui-")) / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# -- Cite my draft


def _support_item(
    support: Support, *, below: float | None = None, badges: Sequence[str] = ()
) -> str:
    """Return one suggested paper as a list item: key, name, score and its matching sentence.

    Args:
        support: the paper and how well it matches the sentence.
        below: the bar the score did not reach (None: it reached it); shown as a badge.
        badges: more labels (HTML, already escaped) shown after the key.
    """
    marks = list(badges)
    if support.paper.title_only:  # matched on its title: the source gave no abstract
        marks.insert(0, TITLE_ONLY_BADGE)
    if below is not None and support.score < below:
        marks.insert(0, f'<span class="below-bar">below the {below:.2f} bar</span>')
    return (
        f"<li><code>{html.escape(support.paper.citation_key)}</code> "
        f"{html.escape(support.paper.title or support.paper.label)} {' '.join(marks)}"
        f'<span class="why">(score {support.score:.2f}: '
        f"“{html.escape(support.sentence)}”)</span></li>"
    )


def _uncited(position: int, sentence: DraftSentence, min_score: float) -> str:
    """Return why a sentence got no citation, with its near miss to accept in one click."""
    nearest = sentence.nearest
    if sentence.already_cited:
        return '<p class="why">Already cited in the draft; left as it is.</p>'
    if nearest is None:
        return '<p class="why">No paper in the index supports this sentence.</p>'
    why = (
        "No paper supports this sentence well enough (nearest: "
        f"{html.escape(nearest.paper.citation_key)}, score {nearest.score:.2f}, below "
        f"{min_score:.2f})."
    )
    if nearest.score < NEAR_MISS:
        return f'<p class="why">{why}</p>'
    accept = (
        f'<button type="button" class="accept-near" data-sentence="{position}">'
        "Cite it anyway</button>"
    )
    return (
        f'<p class="why">{why}</p><ul class="near-miss">'
        f"{_support_item(nearest, below=min_score, badges=[accept])}</ul>"
    )


def render_draft(cited: CitedDraft) -> str:
    """Return each sentence of a cited draft with its suggested papers, or why it has none.

    A near miss (best paper under the bar but at least `NEAR_MISS`) comes with a "Cite it
    anyway" button whose `data-sentence` is the sentence's position (see `accept_near_miss`).
    """
    parts = []
    for position, sentence in enumerate(cited.sentences):
        text = f"<p>{html.escape(sentence.text)}</p>" + _contradictions(sentence)
        if sentence.supports:
            items = "".join(_support_item(s, below=cited.min_score) for s in sentence.supports)
            parts.append(f'<div class="draft-sentence">{text}<ul>{items}</ul></div>')
            continue
        parts.append(
            f'<div class="draft-sentence unsupported">{text}'
            f"{_uncited(position, sentence, cited.min_score)}</div>"
        )
    if cited.papers and not cited.stance_checked:  # a cited paper may refute its sentence
        parts.insert(0, f'<p class="why">{html.escape(prompts.UNCHECKED_DRAFT)}</p>')
    return '<section class="draft">' + "".join(parts) + "</section>"


def _contradictions(sentence: DraftSentence) -> str:
    """Return the "contradicts" badges of the papers judged to contradict a draft sentence."""
    return "".join(
        f'<p class="contradicts"><span class="badge">contradicts</span> '
        f"<code>{html.escape(s.paper.citation_key)}</code> "
        f"{html.escape(s.paper.title or s.paper.label)} "
        f'<span class="why">“{html.escape(s.sentence)}”</span></p>'
        for s in sentence.contradicts
    )


def draft_outputs(cited: CitedDraft) -> tuple[str, str, str | None]:
    """Return (draft with keys inserted, per-sentence suggestions, .bib path or None)."""
    papers = cited.papers
    bib = write_download(api.export(papers, "bibtex"), "draft.bib") if papers else None
    return cited.text, render_draft(cited), bib


def _error(exc: RagError) -> str:
    """Return a tab's error line: the library's message, its commands said as the page's."""
    return f'<p class="bad"><b>Error:</b> {html.escape(on_the_page(str(exc)))}</p>'


def cite_draft_view(
    draft: str, style: str, *, index: Index
) -> tuple[str, str, str | None, CitedDraft | None]:
    """Cite `draft`; return `draft_outputs` and the `CitedDraft` (None: nothing to cite)."""
    if not (draft or "").strip():
        return "", '<p class="why">Paste a paragraph to get citation suggestions.</p>', None, None
    try:
        cited = api.cite_draft(draft, index=index, style=style or "latex")
    except RagError as exc:
        return "", _error(exc), None, None
    return (*draft_outputs(cited), cited)


def accept_near_miss(
    draft: str, cited: CitedDraft, accepted: Sequence[int]
) -> tuple[str, str, str | None]:
    """Return `draft_outputs` with the near misses of the `accepted` sentences cited too."""
    return draft_outputs(accept_nearest(draft, cited, accepted))


# -- Library


def render_stats(stats: dict[str, int]) -> str:
    """Return the index statistics line from `api.stats`: papers, areas, chunks."""
    return " · ".join(
        f"**{stats[name]}** {label}"
        for name, label in (("papers", "papers"), ("areas", "research areas"), ("chunks", "chunks"))
    )


def search_line(query: str, found: int, total: int) -> str:
    """Return what a Library search found, to show above the table ("" without a search): an
    empty table with its headers alone read like a page still loading."""
    asked = " ".join((query or "").split())
    if not asked:
        return ""
    shown = html.escape(asked)
    if not found:
        return f"No paper matches “{shown}”; clear the search to see all {total}."
    return f"{found} of {total} papers match “{shown}”."


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _matches(paper: Paper, query: str, words: Sequence[str]) -> bool:
    """True when the query is in the key, name, an author or the area, or when every query
    word starts a word of the paper's name or abstract ("fair" finds "fairness")."""
    name = paper.title or paper.label
    names = " ".join([paper.citation_key, name, *paper.authors, paper.area or ""])
    if query in names.casefold():
        return True
    own = _words(f"{name} {paper.abstract}")
    return bool(words) and all(any(w.startswith(q) for w in own) for q in words)


def library_search(query: str, *, index: Index) -> list[Paper]:
    """Return the papers matching `query`, best first by the product's (hybrid) search.

    A paper matches when the query is in its key, name, authors or area, when every query word
    starts a word of its name or abstract, or when `ask` would answer from it (the per-paper
    judgement, `rag.answer.paper_choice`: "time series forecasting" finds the forecasting
    paper, which no abstract's words match all of). An empty query returns every paper, by key.
    """
    papers = api.list_papers(index=index)
    typed = " ".join((query or "").split())
    needle = typed.casefold()
    if not needle:
        return papers
    # as typed: a name's capitals tell the search and the judgement it is one
    hits = api.search(typed, index=index, k=min(len(papers), LIBRARY_RANKED)) if papers else []
    rank = {h.paper.id: n for n, h in enumerate(hits)}
    close = {h.paper.id for h in paper_choice.answered_from(index, typed, hits)}
    words = _words(needle)
    found = [p for p in papers if p.id in close or _matches(p, needle, words)]
    return sorted(found, key=lambda p: rank.get(p.id, len(rank)))  # stable: the rest by key


def library_table(papers: Sequence[Paper]) -> dict[str, list[Any]]:
    """Return the papers as a table value: columns that are empty for every paper are left out.

    A derived label (the source has no title) is marked as such in the Title column, and a
    title-only record (the source gave no abstract) as having no abstract.
    """
    rows = []
    for p in papers:
        # Three names keep the table narrow; the search looked at all of them.
        authors = ", ".join(p.authors[:3]) + (
            " et al." if p.authors_truncated or len(p.authors) > 3 else ""
        )
        name = p.title or (f"{p.label} {DERIVED_MARK}" if p.label_derived else p.label)
        if p.title_only:
            name = f"{name} {NO_ABSTRACT_MARK}"
        rows.append([p.citation_key, name, authors, p.area or "", p.year])
    keep = [
        i
        for i in range(len(LIBRARY_COLUMNS))
        if i < 2 or any(row[i] not in (None, "") for row in rows)
    ]
    return {
        "headers": [LIBRARY_COLUMNS[i] for i in keep],
        "data": [[row[i] for i in keep] for row in rows],
    }


def _ingest_one(path: Path, *, index: Index, max_mb: float) -> list[str]:
    """Return the result lines of one uploaded file: added (normal), skipped (warning)."""
    name = html.escape(path.name)
    if path.suffix.lower() not in UPLOAD_TYPES:
        return [
            f'<li class="bad">{name}: not added, only {", ".join(UPLOAD_TYPES)} files '
            "can be uploaded.</li>"
        ]
    size_mb = path.stat().st_size / 1e6
    if size_mb > max_mb:
        return [
            f'<li class="bad">{name}: not added, {size_mb:.0f} MB is over the {max_mb:g} MB '
            "limit per file; split it or use `rag ingest` on the command line.</li>"
        ]
    try:
        report = api.ingest([path], index=index)
    except RagError as exc:
        return [f'<li class="bad">{name}: not added, {html.escape(on_the_page(str(exc)))}</li>']
    # The upload sits in a temporary folder: name the file as the user knows it.
    errors = [e.replace(str(path.resolve()), path.name) for e in report.errors]
    lines = [
        f'<li class="added">{name}: {report.added} added, '
        f"{report.unchanged + report.updated} already there</li>"
    ]
    if errors:
        detail = "".join(f"<li>{html.escape(e)}</li>" for e in errors)
        lines.append(f'<li class="skipped">{name}: {len(errors)} skipped:<ul>{detail}</ul></li>')
    for note in report.notes:  # entries without an abstract, keys derived: one line each
        shown = note.replace(str(path.resolve()), path.name).replace(str(path), path.name)
        lines.append(f'<li class="note">{html.escape(shown)}</li>')
    return lines


def ingest_uploads(
    paths: Sequence[str],
    *,
    index: Index,
    max_mb: float = MAX_UPLOAD_MB,
    on_file: Callable[[int, int, str], None] | None = None,
) -> str:
    """Ingest each uploaded file on its own; return per-file results as HTML.

    What each file added is one line in the normal colour; what it skipped and why (file name
    and line) is a second line in the warning colour; a file refused whole (type, size,
    unreadable) is one line in the error colour. `on_file(done, total, name)` is called before
    each file (the progress bar).
    """
    if not paths:
        return ""
    lines = []
    for done, raw in enumerate(paths):
        path = Path(raw)
        if on_file is not None:
            on_file(done, len(paths), path.name)
        lines += _ingest_one(path, index=index, max_mb=max_mb)
    return '<ul class="ingest-result">' + "".join(lines) + "</ul>"


def remove_paper(key: str, *, index: Index) -> str:
    """Remove the paper with citation key (or id) `key`; return what happened, as HTML."""
    key = (key or "").strip()
    if not key:
        return '<p class="bad">Type the citation key of the paper to remove.</p>'
    try:
        (paper,) = api.remove([key], index=index)
    except RagError as exc:
        return _error(exc)
    title = html.escape(paper.title or paper.label)
    return f'<p class="good">Removed {html.escape(paper.citation_key)} ({title}).</p>'


# -- conversation exports


def _cited(answer: Answer) -> list[Paper]:
    return [c.hit.paper for c in answer.citations]


def conversation_markdown(turns: Sequence[Answer]) -> str:
    """Return the conversation as Markdown: each question, its answer and its references."""
    out = ["# Literature Q&A conversation\n"]
    for number, answer in enumerate(turns, start=1):
        out.append(f"## {number}. {answer.question}\n")
        if answer.notice:  # before the answer, as the chat shows it (`render_turn`)
            out.append(f"*{answer.notice}*\n")
        out.append(f"{answer.answer}\n")
        if answer.citations:
            refs = "".join(
                f"- [{c.n}] {api.export([c.hit.paper], 'markdown').removeprefix('- ')}"
                for c in answer.citations
            )
            out.append(f"**References**\n\n{refs}")
        elif answer.abstained and answer.nearest:
            # The answer says they are "listed below": the chat shows them as cards.
            near = api.export([hit.paper for hit in answer.nearest], "markdown")
            out.append(f"**Nearest papers**, none close enough to answer\n\n{near}")
    return "\n".join(out)


def conversation_bibtex(turns: Sequence[Answer]) -> str:
    """Return the BibTeX of every paper cited in the conversation, once each, in cited order."""
    seen: dict[str, Paper] = {}
    for answer in turns:
        for paper in _cited(answer):
            seen.setdefault(paper.id, paper)
    return api.export(list(seen.values()), "bibtex")
