"""Offline literature Q&A over paper abstracts, with citations that are checked.

    >>> import rag
    >>> rag.ingest(["seeds/"])
    >>> hits = rag.search("noisy labels on graphs")
    >>> answer = rag.ask("Which papers deal with noisy labels on graphs?")
    >>> support = rag.cite("Label noise on graphs can be detected from the graph structure.")
    >>> bib = rag.export([s.paper for s in support.supports], "bibtex")

Heavy libraries load on first use, so importing `rag` is cheap.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "Answer",
    "EvalResult",
    "Filters",
    "Hit",
    "Paper",
    "RagError",
    "Settings",
    "ask",
    "ask_stream",
    "cite",
    "cite_draft",
    "evaluate",
    "export",
    "get_paper",
    "ingest",
    "list_papers",
    "load_settings",
    "open_index",
    "remove",
    "search",
    "similar",
    "stats",
]

_WHERE = {
    "Answer": "rag.answer",
    "EvalResult": "rag._evaluate",
    "evaluate": "rag._evaluate",
    "Filters": "rag.retrieve",
    "Hit": "rag.records",
    "Paper": "rag.records",
    "RagError": "rag.errors",
    "Settings": "rag.settings",
    "load_settings": "rag.settings",
}


def __getattr__(name: str) -> Any:
    import importlib

    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    if name in __all__:
        return getattr(importlib.import_module("rag.api"), name)
    raise AttributeError(f"module 'rag' has no attribute {name!r}")
