"""The Gradio chat UI: a thin face over `rag.api` that formats answers and their sources.

    rag serve                      # or: python -c "import ui; ui.main()"

Nothing here retrieves or answers: `chat` calls `rag.api.ask_stream` and renders what it yields.
Every piece of paper or answer text is HTML-escaped before it reaches the page.
"""

from __future__ import annotations

import html
import ipaddress
import os
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

# Gradio reads this when it is imported: without it, it sends analytics to outside hosts.
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"

import gradio as gr

import ui_tabs
from rag import api
from rag.answer import Answer
from rag.errors import ConfigError, RagError
from rag.records import Hit, Paper
from rag.retrieve import Filters
from rag.settings import Settings, load_settings
from ui_assets import CSS, JS

if TYPE_CHECKING:
    from rag.index import Index

ALL_AREAS = "All"
RETRIEVERS = ["hybrid", "dense", "bm25"]
BACKENDS = ["local", "openai", "extractive"]
EXAMPLES = [
    "Which papers deal with noisy labels on graphs?",
    "How can large language models be made to reason more reliably?",
    "Which papers study the fairness of machine learning models?",
]
# Gradio queue (app.queue): answers, draft citations, uploads and removals wait in one line
# ("index") and run one at a time. The work is CPU-bound on our 2 cores: 20 simultaneous
# extractive chats ended no sooner with 2 or 4 at a time (1.0-1.4 s either way), the local model
# serialises on its own lock anyway, and a queued user sees their position instead of a slowed
# answer. Raise it for a remote OpenAI-compatible endpoint, where answers wait on the network.
CONCURRENCY = 1
# Waiting requests beyond this are refused ("Queue is full"): room for 20 users at once twice
# over, while the last one waits under a minute at the local model's 0.7 s per answer.
QUEUE_SIZE = 64

_MARKER = re.compile(r"\[(\d+)\]")
_LINK = re.compile(r'<a class="cite" href="#source-(\d+)">\[\d+\]</a>')
# Markdown and KaTeX would otherwise reinterpret these characters in answer text.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|~$])")

History = list[dict[str, Any]]


# -- rendering (plain functions of the library's records, tested directly)


def _md_escape(text: str) -> str:
    """Return `text` shown literally by the chat's Markdown renderer (and never as HTML)."""
    return html.escape(_MARKDOWN_SPECIAL.sub(r"\\\1", text), quote=False).replace("\n", " ")


def render_answer(text: str, notice: str | None = None) -> str:
    """Return the chat message for answer `text`: escaped, `[n]` linked to its source card."""
    parts, pos = [], 0
    for match in _MARKER.finditer(text):
        n = match.group(1)
        parts.append(_md_escape(text[pos : match.start()]))
        parts.append(f'<a class="cite" href="#source-{n}">[{n}]</a>')
        pos = match.end()
    parts.append(_md_escape(text[pos:]))
    body = "".join(parts)
    return f"{body}\n\n*{_md_escape(notice)}*" if notice else body


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


def render_error(error: RagError) -> str:
    """Return the chat message for an error the library raised: its one-line message."""
    return f"**Error:** {_md_escape(str(error))}"


def _authors(paper: Paper) -> str:
    names = ", ".join(paper.authors) or "Unknown authors"
    return f"{names} et al." if paper.authors_truncated else names


def _highlight(abstract: str, evidence: str | None) -> str:
    """Return the escaped abstract with the `evidence` sentence wrapped in <mark>."""
    if evidence:
        words = evidence.split()
        found = re.search(r"\s+".join(map(re.escape, words)), abstract) if words else None
        if found:
            return (
                html.escape(abstract[: found.start()])
                + f"<mark>{html.escape(found.group(0))}</mark>"
                + html.escape(abstract[found.end() :])
            )
        # The sentence is not verbatim in the abstract: show it above it, still marked.
        return f"<mark>{html.escape(evidence)}</mark><br>{html.escape(abstract)}"
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
    abstract = f'<p class="card-abstract">{_highlight(paper.abstract, evidence)}</p>'
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
    else:
        cards = "".join(render_card(c.hit, n=c.n, evidence=c.evidence) for c in answer.citations)
        title = "Sources"
    question = f'<p class="sources-for">for “{html.escape(answer.question)}”</p>'
    return f'<section class="sources"><h3>{title}</h3>{question}{cards}</section>'


# -- the chat handler


def _filters(area: str | None, author: str | None) -> Filters | None:
    filters = Filters(
        area=None if not area or area == ALL_AREAS else area,
        author=(author or "").strip() or None,
    )
    return filters or None


def chat(
    message: str,
    history: History | None,
    area: str | None = ALL_AREAS,
    author: str | None = "",
    top_k: float | None = None,
    retriever: str | None = None,
    backend: str | None = None,
    *,
    index: Index,
    settings: Settings,
    on_answer: Callable[[Answer], None] | None = None,
) -> Iterator[tuple[History, str]]:
    """Answer `message`, yielding the chat history and the source cards as the answer streams.

    Args:
        message: the question typed by the user.
        history: the chat so far (messages format); it is returned with the new turn added.
        area: research area filter ("All" or empty: none).
        author: author filter (substring, case-insensitive; empty: none).
        top_k: number of papers to use (default settings.top_k).
        retriever: hybrid, dense or bm25 (default from settings).
        backend: local, openai or extractive (default from settings).
        index: the open index.
        settings: thresholds and backend configuration.
        on_answer: called with the final `Answer` (the app keeps them for the exports).

    Yields:
        (history, cards_html): the assistant message grows piece by piece; the cards come
        with the final answer. A `RagError` becomes its one-line message in the chat.
    """
    history = [_unlink(m) for m in history or []]
    question = (message or "").strip()
    if not question:
        yield history, render_cards(None)
        return
    history.append({"role": "user", "content": _md_escape(question)})
    yield history, render_cards(None)
    text, final = "", None
    try:
        for event in api.ask_stream(
            question,
            settings=settings,
            index=index,
            backend=backend or "default",
            filters=_filters(area, author),
            top_k=int(top_k) if top_k else None,
            retriever=retriever or None,
            history=history[:-1],  # earlier turns: a follow-up is made standalone
        ):
            if isinstance(event, Answer):
                final = event
                continue
            text += event
            reply = {"role": "assistant", "content": render_answer(text)}
            yield [*history, reply], render_cards(None)
    except RagError as exc:
        yield [*history, {"role": "assistant", "content": render_error(exc)}], render_cards(None)
        return
    if final is None:  # not in ask_stream's contract; keep what was streamed
        return
    if on_answer is not None:
        on_answer(final)
    reply = {"role": "assistant", "content": render_answer(final.answer, final.notice)}
    yield [*history, reply], render_cards(final)


# -- the app


def _area_choices(index: Index) -> list[str]:
    """Return "All", each indexed area and each top-level area ("Deep Learning"), sorted."""
    areas: set[str] = set()
    for paper in api.list_papers(index=index):
        if paper.area:
            areas.add(paper.area)
            areas.add(paper.area.split("·")[0].strip())
    return [ALL_AREAS, *sorted(areas, key=str.casefold)]


def _example_text(evt: gr.SelectData) -> str:
    return str(evt.value["text"])


def build_app(settings: Settings, index: Index | None = None) -> gr.Blocks:
    """Return the app over `index` (default: the index the settings point at).

    Raises:
        IndexNotFoundError: no index was given and there is none at settings.index_dir.
    """
    # Reopening through rag.api per request picks up papers another process ingested.
    current = (lambda: index) if index is not None else (lambda: api.open_index(settings))
    first = current()
    count = len(api.list_papers(index=first))

    def ask(
        message: str,
        history: History | None,
        area: str | None,
        author: str | None,
        top_k: float | None,
        retriever: str | None,
        backend: str | None,
        turns: list[Answer] | None,
    ) -> Iterator[tuple[History, str, list[Answer]]]:
        done = list(turns or [])
        for shown in chat(
            message, history, area, author, top_k, retriever, backend,
            index=current(), settings=settings, on_answer=done.append,
        ):  # fmt: skip
            yield (*shown, done)

    def exports(turns: list[Answer] | None) -> tuple[Any, Any]:
        if not turns:
            return gr.DownloadButton(value=None, interactive=False), gr.DownloadButton(
                value=None, interactive=False
            )
        md = ui_tabs.write_download(ui_tabs.conversation_markdown(turns), "conversation.md")
        bib = ui_tabs.write_download(ui_tabs.conversation_bibtex(turns), "conversation.bib")
        return gr.DownloadButton(value=md, interactive=True), gr.DownloadButton(
            value=bib, interactive=True
        )

    def library(query: str = "") -> tuple[str, list[list[object]]]:
        idx = current()
        papers = api.list_papers(index=idx)
        return ui_tabs.render_stats(api.stats(index=idx)), ui_tabs.library_rows(papers, query)

    def upload(
        files: list[str] | None,
        query: str,
        progress: gr.Progress = gr.Progress(),  # noqa: B008 - Gradio finds its bar by this default
    ) -> Any:
        def step(done: int, total: int, name: str) -> None:
            progress(done / total, desc=f"Adding {name}")

        result = ui_tabs.ingest_uploads(files or [], index=current(), on_file=step)
        return (result, *library(query), gr.Dropdown(choices=_area_choices(current())))

    def remove(key: str, query: str) -> Any:
        result = ui_tabs.remove_paper(key, index=current())
        return (result, *library(query), gr.Dropdown(choices=_area_choices(current())))

    def cite(draft: str, style: str) -> tuple[str, str, str | None]:
        # A plain path (not a component update), so gradio_client callers get the file.
        return ui_tabs.cite_draft_view(draft, style, index=current())

    private: dict[str, Any] = {"api_visibility": "private"}
    # Every handler that reads or writes the index waits in one line: an upload never runs
    # while an answer is being generated from the same Chroma folder.
    serial: dict[str, Any] = {"concurrency_id": "index"}
    with gr.Blocks(title="Literature Q&A", analytics_enabled=False, fill_height=True) as app:
        with gr.Sidebar(open=True, width=300):
            gr.Markdown("### Search settings\nApplied to the next question.")
            area = gr.Dropdown(_area_choices(first), value=ALL_AREAS, label="Research area",
                               elem_id="area")  # fmt: skip
            author = gr.Textbox("", label="Author", placeholder="e.g. Wei Ju")
            top_k = gr.Slider(1, 10, value=min(settings.top_k, 10), step=1, label="Papers to use")
            retriever = gr.Radio(RETRIEVERS, value=settings.retriever, label="Retriever")
            backend = gr.Radio(BACKENDS, value=settings.backend, label="Answer backend")
            gr.Markdown(
                "*extractive* quotes the best sentences; *local* runs the bundled model; "
                "*openai* calls the configured endpoint.",
                elem_classes="hint",
            )
        turns = gr.State([])
        with gr.Tabs():
            with gr.Tab("Ask", id="ask"):
                gr.Markdown(
                    f"## Literature Q&A\nAsk about the {count} indexed paper abstracts. Every "
                    "answer sentence cites the paper it comes from; click a number to see the "
                    "source.",
                    elem_id="intro",
                )
                chatbot = gr.Chatbot(
                    label="Answer",
                    show_label=False,
                    height=440,
                    latex_delimiters=[],
                    examples=[{"text": q} for q in EXAMPLES],
                    placeholder="**Ask a question about the papers**, or start with an example:",
                    buttons=[],  # copying would copy the [n] links' HTML, not readable text
                    feedback_options=None,
                    elem_id="chat",
                )
                msg = gr.Textbox(
                    placeholder="Ask a question about the papers…",
                    show_label=False,
                    submit_btn="Ask",
                    autofocus=True,
                    elem_id="question",
                )
                with gr.Row():
                    export_md = gr.DownloadButton(
                        "Export conversation (.md)", interactive=False, size="sm",
                        elem_id="export-md",
                    )  # fmt: skip
                    export_bib = gr.DownloadButton(
                        "Export bibliography (.bib)", interactive=False, size="sm",
                        elem_id="export-bib",
                    )  # fmt: skip
                cards = gr.HTML(render_cards(None), elem_id="sources")
            with gr.Tab("Cite my draft", id="cite"):
                gr.Markdown("Paste a paragraph: each sentence gets the papers that support it.")
                draft = gr.Textbox(lines=6, label="Draft paragraph", elem_id="draft")
                style = gr.Radio(ui_tabs.STYLES, value="latex", label="Citation style")
                cite_btn = gr.Button("Suggest citations", variant="primary")
                cited_text = gr.Textbox(
                    label="Draft with citations", lines=6, buttons=["copy"], elem_id="cited"
                )
                draft_bib = gr.DownloadButton("Download .bib", size="sm", elem_id="draft-bib")
                suggestions = gr.HTML(elem_id="suggestions")
            with gr.Tab("Library", id="library"):
                stats = gr.Markdown(elem_id="stats")
                query = gr.Textbox(label="Search papers", placeholder="key, title, author, area")
                table = gr.Dataframe(
                    headers=ui_tabs.LIBRARY_COLUMNS, interactive=False, wrap=True,
                    max_height=360, column_widths=["16%", "28%", "26%", "22%", "8%"],
                    elem_id="papers",
                )  # fmt: skip
                files = gr.File(
                    file_count="multiple", file_types=ui_tabs.UPLOAD_TYPES,
                    label=f"Add papers (≤ {ui_tabs.MAX_UPLOAD_MB} MB per file)",
                    elem_id="upload",
                )  # fmt: skip
                ingested = gr.HTML(elem_id="ingested")
                with gr.Row():
                    remove_key = gr.Textbox(label="Remove a paper: citation key", scale=3)
                    remove_btn = gr.Button("Remove", variant="stop", scale=1)
                removed = gr.HTML(elem_id="removed")

        inputs = [msg, chatbot, area, author, top_k, retriever, backend, turns]
        outputs = [chatbot, cards, turns]
        msg.submit(ask, inputs, outputs, api_name="ask", **serial).then(
            exports, turns, [export_md, export_bib], queue=False, **private
        )
        # A second listener on the same submit empties the box; the question was already read.
        msg.submit(lambda: "", None, msg, queue=False, show_progress="hidden", **private)
        chatbot.example_select(_example_text, None, msg, queue=False, **private).then(
            ask, inputs, outputs, **serial, **private
        ).then(lambda: "", None, msg, queue=False, **private).then(
            exports, turns, [export_md, export_bib], queue=False, **private
        )
        chatbot.clear(lambda: (render_cards(None), []), None, [cards, turns], **private).then(
            exports, turns, [export_md, export_bib], queue=False, **private
        )
        cite_btn.click(
            cite, [draft, style], [cited_text, suggestions, draft_bib], api_name="cite_draft",
            **serial,
        )  # fmt: skip
        shown = [stats, table]
        query.change(library, query, shown, queue=False, **private)
        files.upload(upload, [files, query], [ingested, *shown, area], **serial, **private)
        remove_btn.click(remove, [remove_key, query], [removed, *shown, area], **serial, **private)
        app.load(
            lambda: gr.Dropdown(choices=_area_choices(current())),
            None,
            area,
            queue=False,  # not behind an answer being generated
            **private,
        )
        app.load(library, None, shown, queue=False, **private)
    app.queue(default_concurrency_limit=CONCURRENCY, max_size=QUEUE_SIZE)
    return app


# -- launching


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def launch_options(settings: Settings) -> dict[str, Any]:
    """Return the `launch()` arguments for `settings`: address, auth, look.

    Raises:
        ConfigError: a non-loopback host without `auth`, or `auth` not of the form user:pass.
    """
    auth = None
    if settings.auth:
        user, _, password = settings.auth.partition(":")
        if not user or not password:
            raise ConfigError("--auth must be user:password (both parts non-empty).")
        auth = (user, password)
    elif not _is_loopback(settings.host):
        raise ConfigError(
            f"Serving on {settings.host} exposes the index beyond this machine: --auth "
            "user:password is required off loopback (or bind 127.0.0.1)."
        )
    theme = gr.themes.Default(
        primary_hue="indigo",
        neutral_hue="slate",
        # Local fonts only: the default theme fetches Google Fonts, and this app is offline.
        font=["ui-sans-serif", "system-ui", "Segoe UI", "Helvetica", "Arial", "sans-serif"],
        font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "monospace"],
    )
    return {
        "server_name": settings.host,
        "server_port": settings.port,
        "share": False,
        "auth": auth,
        "theme": theme,
        "css": CSS,
        "js": JS,
        "footer_links": ["api", "settings"],
        # Gradio refuses bigger uploads before they reach the app; the tab names the limit.
        "max_file_size": f"{ui_tabs.MAX_UPLOAD_MB}mb",
    }


def main(settings: Settings | None = None) -> None:
    """Serve the chat UI until interrupted.

    Raises:
        ConfigError: bad host/auth combination.
        IndexNotFoundError: there is no index yet (run `rag ingest seeds/`).
    """
    settings = settings or load_settings()
    options = launch_options(settings)  # fail on bad auth before loading anything
    app = build_app(settings)
    api.open_index(settings).embedder.embed(["warm-up"])  # load the model now, not on a question
    # quiet: Gradio's banner suggests share=True, which this offline app never uses.
    print(f"Serving the chat on http://{settings.host}:{settings.port} (Ctrl+C to stop)")
    app.launch(quiet=True, **options)
