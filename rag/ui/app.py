"""The Gradio chat UI's app: a thin face over `rag.api` that formats answers and their sources.

    rag serve                      # or: python ui.py

Nothing here retrieves or answers. `build_app` lays out the page (`rag.ui.layout`) and wires each
tab to its handlers: the chat (`rag.ui.chat`, which renders with `rag.ui.render`), the tabs'
contents (`rag.ui.tabs`); the look and the page script are in `rag.ui.assets`.
"""

from __future__ import annotations

import ipaddress
import os
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

# Gradio reads this when it is imported: without it, it sends analytics to outside hosts.
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"

import gradio as gr

from rag import api
from rag.answer.language import language_probability
from rag.answer.rendering import Answer
from rag.errors import ConfigError
from rag.settings import Settings, load_settings
from rag.ui import tabs
from rag.ui.assets import CSS, JS
from rag.ui.chat import History, chat
from rag.ui.layout import (
    BUSY_PLACEHOLDER,
    QUESTION_PLACEHOLDER,
    AskTab,
    CiteTab,
    LibraryTab,
    SidebarParts,
    area_choices,
    ask_tab,
    cite_tab,
    example_text,
    intro,
    library_tab,
    sidebar,
)
from rag.ui.render import (
    render_answer,
    render_card,
    render_cards,
    render_error,
    render_panel,
    render_turn,
)

if TYPE_CHECKING:
    from rag.index.paper_index import Index

__all__ = [
    "CurrentIndex",
    "area_choices",
    "build_app",
    "chat",
    "intro",
    "launch_options",
    "main",
    "render_answer",
    "render_card",
    "render_cards",
    "render_error",
    "render_panel",
    "render_turn",
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

# Handlers that only update the page are not part of the API (gradio_client sees /ask and
# /cite_draft); every handler that reads or writes the index waits in one line, so an upload
# never runs while an answer is being generated from the same Chroma folder.
_PRIVATE: dict[str, Any] = {"api_visibility": "private"}
_SERIAL: dict[str, Any] = {"concurrency_id": "index"}


# -- what the page shows about the index


class CurrentIndex:
    """The index a request uses, reopened first when another process has written to it.

    Args:
        settings: where the index is (used when `index` is None, through `api.open_index`).
        index: an index opened by the caller (tests, `tests.ui_server`).
    """

    def __init__(self, settings: Settings, index: Index | None = None) -> None:
        self._settings = settings
        self._index = index
        self._lock = threading.Lock()

    def __call__(self) -> Index:
        if self._index is None:
            return api.open_index(self._settings)  # reopens on another process's write
        with self._lock:
            if self._index.changed_elsewhere():
                self._index.reopen()
        return self._index


# -- the wiring: one function per tab, its handlers over the current index


def _wire_ask(ask: AskTab, side: SidebarParts, current: CurrentIndex, settings: Settings) -> None:
    turns = gr.State([])

    def answer(
        message: str,
        history: History | None,
        area: str | None,
        author: str | None,
        top_k: float | None,
        retriever: str | None,
        backend: str | None,
        kept: list[Answer] | None,
    ) -> Iterator[tuple[History, str, list[Answer]]]:
        # A chat handed in empty is a new one (an API caller's): no earlier answers or cards.
        done = list(kept or []) if history else []
        earlier = list(done)
        for shown in chat(
            message,
            history,
            area,
            author,
            top_k,
            retriever,
            backend,
            index=current(),
            settings=settings,
            on_answer=done.append,
            earlier=earlier,
        ):
            yield (*shown, done)

    def exports(kept: list[Answer] | None) -> tuple[Any, Any, str]:
        heading = intro(current())  # an answer is a good moment to notice another's write
        if not kept:
            off = gr.DownloadButton(value=None, interactive=False)
            return off, gr.DownloadButton(value=None, interactive=False), heading
        md = tabs.write_download(tabs.conversation_markdown(kept), "conversation.md")
        bib = tabs.write_download(tabs.conversation_bibtex(kept), "conversation.bib")
        on = gr.DownloadButton(value=md, interactive=True)
        return on, gr.DownloadButton(value=bib, interactive=True), heading

    def take(message: str) -> tuple[str, Any]:
        # Keep the question, then empty the box and take no second one until this is done.
        return message, gr.Textbox(value="", interactive=False, placeholder=BUSY_PLACEHOLDER)

    def take_example(evt: gr.SelectData) -> tuple[str, Any]:
        return take(example_text(evt))

    def free() -> Any:
        return gr.Textbox(interactive=True, placeholder=QUESTION_PLACEHOLDER)

    question = gr.State("")
    rest = [ask.chatbot, side.area, side.author, side.top_k, side.retriever, side.backend, turns]
    outputs = [ask.chatbot, ask.cards, turns]
    after = [ask.export_md, ask.export_bib, ask.intro]
    # The page: the box is disabled before the answer starts (one step after the other, so
    # a fast answer can never finish before the box is locked), and freed when it is done.
    for started in (
        ask.msg.submit(take, ask.msg, [question, ask.msg], queue=False, **_PRIVATE),
        ask.chatbot.example_select(take_example, None, [question, ask.msg], queue=False,
                                   **_PRIVATE),
    ):  # fmt: skip
        started.then(answer, [question, *rest], outputs, **_SERIAL, **_PRIVATE).then(
            free, None, ask.msg, queue=False, **_PRIVATE
        ).then(exports, turns, after, queue=False, **_PRIVATE)
    # The API (gradio_client's /ask: question, history, sidebar values): the same handler.
    gr.Button(visible=False).click(answer, [ask.msg, *rest], outputs, api_name="ask", **_SERIAL)
    ask.chatbot.clear(lambda: (render_panel([]), []), None, [ask.cards, turns], **_PRIVATE).then(
        exports, turns, after, queue=False, **_PRIVATE
    )


def _wire_cite(cite: CiteTab, current: CurrentIndex) -> None:
    def run(draft: str, style: str) -> tuple[str, str, str | None, dict[str, Any] | None]:
        # A plain path (not a component update), so gradio_client callers get the file.
        text, shown, bib, cited = tabs.cite_draft_view(draft, style, index=current())
        kept = {"draft": draft, "cited": cited, "accepted": []} if cited is not None else None
        return text, shown, bib, kept

    def accept(position: str, kept: dict[str, Any] | None) -> Any:
        if not kept or not (position or "").strip().isdigit():
            return gr.skip(), gr.skip(), gr.skip(), kept
        accepted = [*kept["accepted"], int(position)]
        text, shown, bib = tabs.accept_near_miss(kept["draft"], kept["cited"], accepted)
        return text, shown, bib, {**kept, "accepted": accepted}

    def offer(bib: str | None) -> Any:
        # Nothing to download before a run that cited something.
        return gr.DownloadButton(interactive=bool(bib))

    outputs = [cite.cited_text, cite.suggestions, cite.bib, cite.result]
    cite.button.click(
        run, [cite.draft, cite.style], outputs, api_name="cite_draft", **_SERIAL
    ).then(offer, cite.bib, cite.bib, queue=False, **_PRIVATE)
    cite.accept.click(
        accept, [cite.accept_position, cite.result], outputs, **_SERIAL, **_PRIVATE
    ).then(offer, cite.bib, cite.bib, queue=False, **_PRIVATE)


def _wire_library(
    lib: LibraryTab, side: SidebarParts, heading: gr.Markdown, current: CurrentIndex
) -> None:
    def library(query: str = "") -> tuple[str, Any]:
        idx = current()
        found = tabs.library_search(query, index=idx)
        stats = api.stats(index=idx)
        line = tabs.search_line(query, len(found), stats["papers"])
        text = tabs.render_stats(stats) + (f"\n\n{line}" if line else "")
        return text, tabs.library_table(found)

    def changed(result: str, query: str) -> Any:
        idx = current()
        areas = gr.Dropdown(choices=area_choices(idx))
        return (result, *library(query), areas, intro(idx))

    def upload(
        files: list[str] | None,
        query: str,
        progress: gr.Progress = gr.Progress(),  # noqa: B008 - Gradio finds its bar by this default
    ) -> Any:
        def step(done: int, total: int, name: str) -> None:
            progress(done / total, desc=f"Adding {name}")

        result = tabs.ingest_uploads(files or [], index=current(), on_file=step)
        return (*changed(result, query), None)  # an empty box: the next upload is its own

    def remove(key: str, query: str) -> Any:
        return changed(tabs.remove_paper(key, index=current()), query)

    shown = [lib.stats, lib.table]
    touched = [*shown, side.area, heading]
    lib.query.change(library, lib.query, shown, queue=False, **_PRIVATE)
    lib.files.upload(
        upload, [lib.files, lib.query], [lib.ingested, *touched, lib.files], **_SERIAL, **_PRIVATE
    )
    lib.remove.click(
        remove, [lib.remove_key, lib.query], [lib.removed, *touched], **_SERIAL, **_PRIVATE
    )


def build_app(settings: Settings, index: Index | None = None) -> gr.Blocks:
    """Return the app over `index` (default: the index the settings point at).

    Raises:
        IndexNotFoundError: no index was given and there is none at settings.index_dir.
    """
    current = CurrentIndex(settings, index)
    first = current()
    with gr.Blocks(title="Literature Q&A", analytics_enabled=False, fill_height=True) as app:
        side = sidebar(settings, first)
        with gr.Tabs():
            ask = ask_tab(first)
            cite = cite_tab()
            lib = library_tab()
        _wire_ask(ask, side, current, settings)
        _wire_cite(cite, current)
        _wire_library(lib, side, ask.intro, current)
        # The search settings apply to questions only: they are hidden on the other tabs.
        for tab, visible in ((ask.tab, True), (cite.tab, False), (lib.tab, False)):
            tab.select(
                lambda shown=visible: gr.Sidebar(visible=shown), None, side.panel,
                queue=False, **_PRIVATE,
            )  # fmt: skip

        def page() -> Any:
            # What a (re)loaded page shows is what the index holds now, not at start-up.
            idx = current()
            table = tabs.library_table(api.list_papers(index=idx))
            areas = gr.Dropdown(choices=area_choices(idx))
            return intro(idx), areas, tabs.render_stats(api.stats(index=idx)), table

        # Not queued: the page is never kept waiting behind an answer being generated.
        outputs = [ask.intro, side.area, lib.stats, lib.table]
        app.load(page, None, outputs, queue=False, **_PRIVATE)
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
    ).set(
        # Secondary text (the intro, hints, "Searched for", the cards' metadata): the default
        # slate-400 is 2.6:1 on white, under WCAG AA's 4.5:1; slate-600 is 7.6:1.
        body_text_color_subdued="*neutral_600",
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
        "max_file_size": f"{tabs.MAX_UPLOAD_MB}mb",
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
    language_probability("warm-up")  # and the language model an abstaining answer asks
    # quiet: Gradio's banner suggests share=True, which this offline app never uses.
    print(f"Serving the chat on http://{settings.host}:{settings.port} (Ctrl+C to stop)")
    app.launch(quiet=True, **options)
