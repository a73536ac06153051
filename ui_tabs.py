"""What the UI's tabs and download buttons show, as plain functions over `rag.api` results.

The "Cite my draft" tab, the "Library" tab (statistics, paper list, upload, removal) and the
conversation exports. `ui.build_app` wires them to components; tests call them directly.
Every piece of paper or user text is HTML-escaped before it reaches the page.
"""

from __future__ import annotations

import html
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rag import api
from rag.errors import RagError

if TYPE_CHECKING:
    from rag.answer import Answer
    from rag.claims import CitedDraft, DraftSentence
    from rag.index import Index
    from rag.records import Paper

UPLOAD_TYPES = [".txt", ".jsonl", ".json", ".csv", ".bib"]
MAX_UPLOAD_MB = 50
STYLES = [("LaTeX \\cite{key}", "latex"), ("Pandoc [@key]", "pandoc")]
LIBRARY_COLUMNS = ["Key", "Title", "Authors", "Area", "Year"]


def write_download(text: str, name: str) -> str:
    """Write `text` to a fresh temporary folder as `name`; return the path to offer it."""
    path = Path(tempfile.mkdtemp(prefix="rag-ui-")) / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# -- Cite my draft


def render_draft(cited: CitedDraft) -> str:
    """Return each sentence of a cited draft with its suggested papers, or why it has none."""
    parts = []
    for sentence in cited.sentences:
        text = f"<p>{html.escape(sentence.text)}</p>" + _contradictions(sentence)
        if sentence.supports:
            items = "".join(
                f"<li><code>{html.escape(s.paper.citation_key)}</code> "
                f"{html.escape(s.paper.title or s.paper.label)} "
                f'<span class="why">(score {s.score:.2f}: '
                f"“{html.escape(s.sentence)}”)</span></li>"
                for s in sentence.supports
            )
            parts.append(f'<div class="draft-sentence">{text}<ul>{items}</ul></div>')
            continue
        if sentence.already_cited:
            why = "Already cited in the draft; left as it is."
        elif sentence.nearest is not None:
            why = (
                "No paper supports this sentence well enough (nearest: "
                f"{html.escape(sentence.nearest.paper.citation_key)}, score "
                f"{sentence.nearest.score:.2f}, below {cited.min_score:.2f})."
            )
        else:
            why = "No paper in the index supports this sentence."
        parts.append(
            f'<div class="draft-sentence unsupported">{text}<p class="why">{why}</p></div>'
        )
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


def cite_draft_view(draft: str, style: str, *, index: Index) -> tuple[str, str, str | None]:
    """Return (draft with keys inserted, per-sentence suggestions, .bib path or None)."""
    if not (draft or "").strip():
        return "", '<p class="why">Paste a paragraph to get citation suggestions.</p>', None
    try:
        cited = api.cite_draft(draft, index=index, style=style or "latex")
    except RagError as exc:
        return "", f'<p class="bad"><b>Error:</b> {html.escape(str(exc))}</p>', None
    papers = cited.papers
    bib = write_download(api.export(papers, "bibtex"), "draft.bib") if papers else None
    return cited.text, render_draft(cited), bib


# -- Library


def render_stats(stats: dict[str, int]) -> str:
    """Return the index statistics line from `api.stats`: papers, areas, chunks."""
    return " · ".join(
        f"**{stats[name]}** {label}"
        for name, label in (("papers", "papers"), ("areas", "research areas"), ("chunks", "chunks"))
    )


def library_rows(papers: Sequence[Paper], query: str = "") -> list[list[object]]:
    """Return the table rows of the papers whose key, title, an author or area contain `query`."""
    needle = (query or "").strip().casefold()
    rows: list[list[object]] = []
    for p in papers:
        every = " ".join([p.citation_key, p.title or p.label, *p.authors, p.area or ""])
        if needle and needle not in every.casefold():
            continue
        # Three names keep the table narrow; the search above looked at all of them.
        authors = ", ".join(p.authors[:3]) + (
            " et al." if p.authors_truncated or len(p.authors) > 3 else ""
        )
        rows.append([p.citation_key, p.title or p.label, authors, p.area or "", p.year])
    return rows


def ingest_uploads(
    paths: Sequence[str],
    *,
    index: Index,
    max_mb: float = MAX_UPLOAD_MB,
    on_file: Callable[[int, int, str], None] | None = None,
) -> str:
    """Ingest each uploaded file on its own; return per-file results as HTML.

    Good files and records are added; each bad file or record is listed with its file name
    and line. A file above `max_mb` is refused with the limit named. `on_file(done, total,
    name)` is called before each file (the progress bar).
    """
    if not paths:
        return ""
    lines = []
    for done, raw in enumerate(paths):
        path = Path(raw)
        if on_file is not None:
            on_file(done, len(paths), path.name)
        name = html.escape(path.name)
        size_mb = path.stat().st_size / 1e6
        if path.suffix.lower() not in UPLOAD_TYPES:
            lines.append(
                f'<li class="bad">{name}: not added, only {", ".join(UPLOAD_TYPES)} files '
                "can be uploaded.</li>"
            )
            continue
        if size_mb > max_mb:
            lines.append(
                f'<li class="bad">{name}: not added, {size_mb:.0f} MB is over the {max_mb:g} MB '
                "limit per file; split it or use `rag ingest` on the command line.</li>"
            )
            continue
        try:
            report = api.ingest([path], index=index)
        except RagError as exc:
            lines.append(f'<li class="bad">{name}: not added, {html.escape(str(exc))}</li>')
            continue
        # The upload sits in a temporary folder: name the file as the user knows it.
        errors = [e.replace(str(path.resolve()), path.name) for e in report.errors]
        counts = f"{report.added} added, {report.unchanged + report.updated} already there"
        status = "bad" if errors else "good"
        detail = "".join(f"<li>{html.escape(e)}</li>" for e in errors)
        lines.append(
            f'<li class="{status}">{name}: {counts}'
            + (f", {len(errors)} skipped:<ul>{detail}</ul>" if errors else "")
            + "</li>"
        )
    return '<ul class="ingest-result">' + "".join(lines) + "</ul>"


def remove_paper(key: str, *, index: Index) -> str:
    """Remove the paper with citation key (or id) `key`; return what happened, as HTML."""
    key = (key or "").strip()
    if not key:
        return '<p class="bad">Type the citation key of the paper to remove.</p>'
    try:
        (paper,) = api.remove([key], index=index)
    except RagError as exc:
        return f'<p class="bad"><b>Error:</b> {html.escape(str(exc))}</p>'
    title = html.escape(paper.title or paper.label)
    return f'<p class="good">Removed {html.escape(paper.citation_key)} ({title}).</p>'


# -- conversation exports


def _cited(answer: Answer) -> list[Paper]:
    return [c.hit.paper for c in answer.citations]


def conversation_markdown(turns: Sequence[Answer]) -> str:
    """Return the conversation as Markdown: each question, its answer and its references."""
    out = ["# Literature Q&A conversation\n"]
    for number, answer in enumerate(turns, start=1):
        out.append(f"## {number}. {answer.question}\n\n{answer.answer}\n")
        if answer.notice:
            out.append(f"*{answer.notice}*\n")
        if answer.citations:
            refs = "".join(
                f"- [{c.n}] {api.export([c.hit.paper], 'markdown').removeprefix('- ')}"
                for c in answer.citations
            )
            out.append(f"**References**\n\n{refs}")
    return "\n".join(out)


def conversation_bibtex(turns: Sequence[Answer]) -> str:
    """Return the BibTeX of every paper cited in the conversation, once each, in cited order."""
    seen: dict[str, Paper] = {}
    for answer in turns:
        for paper in _cited(answer):
            seen.setdefault(paper.id, paper)
    return api.export(list(seen.values()), "bibtex")
