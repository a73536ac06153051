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

import importlib
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
    "Answer": "rag.answer.rendering",
    "EvalResult": "rag.evaluation",
    "evaluate": "rag.evaluation",
    "Filters": "rag.index.retrieve",
    "Hit": "rag.records",
    "Paper": "rag.records",
    "RagError": "rag.errors",
    "Settings": "rag.settings",
    "load_settings": "rag.settings",
}

# `rag.ingest` and `rag.cite` name both a function of the API and a stage package. Python sets
# a package's attribute to its subpackage when that is first imported, which would hide the
# function; so the two packages (docstrings only, nothing to load) are imported here, once, and
# their attributes dropped: later imports of `rag.ingest.*` find them in `sys.modules` and leave
# the attribute alone, and `__getattr__` below gives the function.
for _stage in ("ingest", "cite"):
    importlib.import_module(f"rag.{_stage}")
    del globals()[_stage]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    if name in __all__:
        return getattr(importlib.import_module("rag.api"), name)
    raise AttributeError(f"module 'rag' has no attribute {name!r}")
