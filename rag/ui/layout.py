"""The chat page's layout: the sidebar and the three tabs, each built by one function.

Each function creates its components inside the current `gr.Blocks` and returns them, so
`ui.build_app` can wire them to handlers; nothing here handles an event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import gradio as gr

from rag import api
from rag.backends.openai_compat import is_configured
from rag.settings import Settings
from rag.ui import tabs
from rag.ui.render import render_panel

if TYPE_CHECKING:
    from rag.index.paper_index import Index

ALL_AREAS = "All"
RETRIEVERS = ["hybrid", "dense", "bm25"]
BACKENDS = ["local", "openai", "extractive"]
EXAMPLES = [
    "Which papers deal with noisy labels on graphs?",
    "How can large language models be made to reason more reliably?",
    "Which papers study the fairness of machine learning models?",
]
QUESTION_PLACEHOLDER = "Ask about the papers…"
BUSY_PLACEHOLDER = "Writing the answer…"


def intro(index: Index) -> str:
    """Return the Ask tab's heading and the number of papers the index holds right now."""
    count = len(index.papers)
    papers = "paper abstract" if count == 1 else "paper abstracts"
    return (
        f"## Literature Q&A\nAsk about the {count} indexed {papers}. Every answer sentence "
        "cites the paper it comes from; click a number to see the source."
    )


def area_choices(index: Index) -> list[str]:
    """Return "All", each indexed area and each top-level area ("Deep Learning"), sorted."""
    areas: set[str] = set()
    for paper in api.list_papers(index=index):
        if paper.area:
            areas.add(paper.area)
            areas.add(paper.area.split("·")[0].strip())
    return [ALL_AREAS, *sorted(areas, key=str.casefold)]


def example_text(evt: gr.SelectData) -> str:
    return str(evt.value["text"])


def backend_choices(settings: Settings) -> list[str]:
    """The backends the page offers: `openai` only when it is configured (a key, or a local
    server's URL), since a reader of the page cannot set environment variables (it offered
    `openai` and answered "No API key for https://api.openai.com/v1/...", a new user), and
    whichever the settings choose."""
    return [
        b for b in BACKENDS if b != "openai" or is_configured(settings) or settings.backend == b
    ]


@dataclass(frozen=True)
class SidebarParts:
    panel: gr.Sidebar
    area: gr.Dropdown
    author: gr.Textbox
    top_k: gr.Slider
    retriever: gr.Radio
    backend: gr.Radio


def sidebar(settings: Settings, index: Index) -> SidebarParts:
    # Open on a desktop; the page script closes it under the phone breakpoint (rag.ui.assets).
    with gr.Sidebar(open=True, width=300, elem_id="settings") as panel:
        gr.Markdown("### Search settings\nApplied to the next question on the Ask tab.")
        area = gr.Dropdown(area_choices(index), value=ALL_AREAS, label="Research area",
                           elem_id="area")  # fmt: skip
        author = gr.Textbox("", label="Author", placeholder="e.g. Wei Ju")
        top_k = gr.Slider(1, 10, value=min(settings.top_k, 10), step=1, label="Papers to use")
        retriever = gr.Radio(RETRIEVERS, value=settings.retriever, label="Retriever")
        choices = backend_choices(settings)
        backend = gr.Radio(choices, value=settings.backend, label="Answer backend")
        gr.Markdown(
            "*extractive* quotes the best sentences; *local* runs the bundled model"
            + ("; *openai* calls the configured endpoint." if "openai" in choices else "."),
            elem_classes="hint",
        )
    return SidebarParts(panel, area, author, top_k, retriever, backend)


@dataclass(frozen=True)
class AskTab:
    tab: gr.Tab
    intro: gr.Markdown
    chatbot: gr.Chatbot
    msg: gr.Textbox
    export_md: gr.DownloadButton
    export_bib: gr.DownloadButton
    cards: gr.HTML


def ask_tab(index: Index) -> AskTab:
    with gr.Tab("Ask", id="ask") as tab:
        heading = gr.Markdown(intro(index), elem_id="intro")
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
            placeholder=QUESTION_PLACEHOLDER,
            show_label=False,
            submit_btn="Ask",
            autofocus=True,
            elem_id="question",
        )
        with gr.Row():
            export_md = gr.DownloadButton(
                "Export conversation (.md)", interactive=False, size="sm", elem_id="export-md"
            )
            export_bib = gr.DownloadButton(
                "Export bibliography (.bib)", interactive=False, size="sm", elem_id="export-bib"
            )
        cards = gr.HTML(render_panel([]), elem_id="sources")
    return AskTab(tab, heading, chatbot, msg, export_md, export_bib, cards)


@dataclass(frozen=True)
class CiteTab:
    tab: gr.Tab
    draft: gr.Textbox
    style: gr.Radio
    button: gr.Button
    cited_text: gr.Textbox
    bib: gr.DownloadButton
    suggestions: gr.HTML
    result: gr.State  # {"draft", "cited", "accepted"} of the last run, for near misses
    accept_position: gr.Textbox  # set by the page script from a "Cite it anyway" button
    accept: gr.Button


def cite_tab() -> CiteTab:
    with gr.Tab("Cite my draft", id="cite") as tab:
        gr.Markdown(
            "Paste a paragraph: each sentence gets the papers that support it. A near miss "
            "(best paper just under the bar) can be cited anyway, marked as below the bar."
        )
        draft = gr.Textbox(lines=6, label="Draft paragraph", elem_id="draft")
        style = gr.Radio(tabs.STYLES, value="latex", label="Citation style")
        button = gr.Button("Suggest citations", variant="primary", elem_id="cite-btn")
        cited_text = gr.Textbox(
            label="Draft with citations", lines=6, buttons=["copy"], elem_id="cited"
        )
        bib = gr.DownloadButton("Download .bib", size="sm", interactive=False, elem_id="draft-bib")
        suggestions = gr.HTML(elem_id="suggestions")
        # Rendered but never shown: the page script fills the box and clicks the button.
        accept_position = gr.Textbox(elem_id="accept-sentence", visible="hidden")
        accept = gr.Button("accept", elem_id="accept-near", visible="hidden")
        result = gr.State(None)
    return CiteTab(
        tab, draft, style, button, cited_text, bib, suggestions, result,
        accept_position, accept,
    )  # fmt: skip


@dataclass(frozen=True)
class LibraryTab:
    tab: gr.Tab
    stats: gr.Markdown
    query: gr.Textbox
    table: gr.Dataframe
    files: gr.File
    ingested: gr.HTML
    remove_key: gr.Textbox
    remove: gr.Button
    removed: gr.HTML


def library_tab() -> LibraryTab:
    with gr.Tab("Library", id="library") as tab:
        stats = gr.Markdown(elem_id="stats")
        query = gr.Textbox(
            label="Search papers",
            placeholder="words of the abstract, key, title, author, area",
            elem_id="library-search",
        )
        table = gr.Dataframe(
            headers=tabs.LIBRARY_COLUMNS, interactive=False, wrap=True, max_height=360,
            elem_id="papers",
        )  # fmt: skip
        gr.Markdown(
            f"{tabs.DERIVED_MARK}: the source has no title; the label is derived from the "
            "authors and the abstract.",
            elem_classes="hint",
        )
        files = gr.File(
            file_count="multiple", file_types=tabs.UPLOAD_TYPES,
            label=f"Add papers (≤ {tabs.MAX_UPLOAD_MB} MB per file)", elem_id="upload",
        )  # fmt: skip
        ingested = gr.HTML(elem_id="ingested")
        with gr.Row():
            remove_key = gr.Textbox(label="Remove a paper: citation key", scale=3)
            remove = gr.Button("Remove", variant="stop", scale=1, elem_id="remove-btn")
        removed = gr.HTML(elem_id="removed")
    return LibraryTab(tab, stats, query, table, files, ingested, remove_key, remove, removed)
