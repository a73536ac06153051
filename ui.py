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
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

# Gradio reads this when it is imported: without it, it sends analytics to outside hosts.
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"

import gradio as gr

from rag import api
from rag.answer import Answer
from rag.errors import ConfigError, RagError
from rag.records import Hit, Paper
from rag.retrieve import Filters
from rag.settings import Settings, load_settings

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
# One answer at a time: the local model is a single llama.cpp context (not thread-safe) on a
# machine with few cores; queued users see their position instead of a slowed-down answer.
CONCURRENCY = 1
QUEUE_SIZE = 32

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
        f"{abstract}</article>"
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
    """Return the chat app over `index` (default: the index the settings point at).

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
    ) -> Iterator[tuple[History, str]]:
        yield from chat(
            message, history, area, author, top_k, retriever, backend,
            index=current(), settings=settings,
        )  # fmt: skip

    with gr.Blocks(title="Literature Q&A", analytics_enabled=False, fill_height=True) as app:
        with gr.Sidebar(open=True, width=300):
            gr.Markdown("### Search settings\nApplied to the next question.")
            area = gr.Dropdown(_area_choices(first), value=ALL_AREAS, label="Research area")
            author = gr.Textbox("", label="Author", placeholder="e.g. Wei Ju")
            top_k = gr.Slider(1, 10, value=min(settings.top_k, 10), step=1, label="Papers to use")
            retriever = gr.Radio(RETRIEVERS, value=settings.retriever, label="Retriever")
            backend = gr.Radio(BACKENDS, value=settings.backend, label="Answer backend")
            gr.Markdown(
                "*extractive* quotes the best sentences; *local* runs the bundled model; "
                "*openai* calls the configured endpoint.",
                elem_classes="hint",
            )
        gr.Markdown(
            f"## Literature Q&A\nAsk about the {count} indexed paper abstracts. Every answer "
            "sentence cites the paper it comes from; click a number to see the source.",
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
        cards = gr.HTML(render_cards(None), elem_id="sources")
        inputs = [msg, chatbot, area, author, top_k, retriever, backend]

        msg.submit(ask, inputs, [chatbot, cards], api_name="ask")
        # A second listener on the same submit empties the box; the question was already read.
        msg.submit(
            lambda: "", None, msg, queue=False, api_visibility="private", show_progress="hidden"
        )
        chatbot.example_select(
            _example_text, None, msg, queue=False, api_visibility="private"
        ).then(ask, inputs, [chatbot, cards], api_visibility="private").then(
            lambda: "", None, msg, queue=False, api_visibility="private"
        )
        chatbot.clear(lambda: render_cards(None), None, cards, api_visibility="private")
        app.load(
            lambda: gr.Dropdown(choices=_area_choices(current())),
            None,
            area,
            queue=False,  # not behind an answer being generated
            api_visibility="private",
        )
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
    # quiet: Gradio's banner suggests share=True, which this offline app never uses.
    print(f"Serving the chat on http://{settings.host}:{settings.port} (Ctrl+C to stop)")
    app.launch(quiet=True, **options)


CSS = """
#intro h2 { margin-bottom: 0.2rem; }
#intro p { color: var(--body-text-color-subdued); margin-top: 0; }
#chat a.cite {
  color: var(--color-accent); font-weight: 600; text-decoration: none; padding: 0 1px;
}
#chat button.example {
  border: 1px solid var(--border-color-primary); border-radius: 10px;
  background: var(--background-fill-secondary);
}
#chat button.example:hover { border-color: var(--color-accent); }
#chat a.cite:hover { text-decoration: underline; }
.hint p { font-size: 0.85rem; color: var(--body-text-color-subdued); }
.sources h3 { font-size: 1rem; margin: 0.5rem 0 0; }
.sources-for { color: var(--body-text-color-subdued); font-size: 0.85rem; margin: 0 0 0.75rem; }
.sources-empty { color: var(--body-text-color-subdued); font-size: 0.9rem; padding: 0.5rem 0; }
.source-card {
  border: 1px solid var(--border-color-primary); border-radius: 10px;
  background: var(--block-background-fill); padding: 0.9rem 1.1rem; margin-bottom: 0.75rem;
  scroll-margin-top: 1rem; transition: box-shadow 0.3s;
}
.source-card.flash { box-shadow: 0 0 0 3px var(--color-accent-soft, #c7d2fe); }
.card-head { font-weight: 600; font-size: 1rem; margin-bottom: 0.25rem; }
.card-head .badge { color: var(--color-accent); margin-right: 0.25rem; }
.card-head .derived {
  font-weight: 400; font-size: 0.75rem; color: var(--body-text-color-subdued);
  border: 1px solid var(--border-color-primary); border-radius: 4px; padding: 0 4px;
  margin-left: 0.4rem; vertical-align: middle;
}
.card-authors { font-size: 0.9rem; margin-bottom: 0.25rem; }
.card-meta {
  display: flex; flex-wrap: wrap; gap: 0.35rem 1rem; font-size: 0.8rem;
  color: var(--body-text-color-subdued); margin-bottom: 0.5rem;
}
.card-meta .unknown { font-style: italic; }
.source-card summary { cursor: pointer; font-size: 0.85rem; color: var(--color-accent); }
.source-card details[open] summary { margin-bottom: 0.4rem; }
.card-abstract { font-size: 0.9rem; line-height: 1.55; margin: 0; }
.card-abstract mark { background: #fde68a; color: #1f2937; padding: 0 2px; border-radius: 3px; }
"""

# A click on an answer's [n] scrolls its card into view (and briefly outlines it) instead of
# letting the chat's link handling open the fragment in a new tab.
JS = """
() => {
  document.addEventListener("click", (event) => {
    const link = event.target.closest ? event.target.closest("a[href*='#source-']") : null;
    if (!link) return;
    const id = decodeURIComponent(new URL(link.href, location.href).hash.slice(1));
    const card = document.getElementById(id);
    if (!card) return;
    event.preventDefault();
    event.stopPropagation();
    card.scrollIntoView({ behavior: "smooth", block: "center" });
    card.classList.remove("flash");
    void card.offsetWidth;
    card.classList.add("flash");
    setTimeout(() => card.classList.remove("flash"), 1500);
  }, true);
}
"""
