"""The Python API: the same operations the CLI and the UI use, over an index opened once."""

from __future__ import annotations

import numbers
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.backends.base import Backend
from rag.backends.registry import get_backend
from rag.errors import ConfigError
from rag.index.embedding import Embedder
from rag.index.paper_index import Index
from rag.index.retrieve import Filters
from rag.index.retrieve import search as _search
from rag.index.store import embedded_index_exists
from rag.records import Hit, IngestReport, Paper
from rag.settings import Settings, load_settings

if TYPE_CHECKING:
    from rag.answer.rendering import Answer
    from rag.cite.claims import CitedDraft, ClaimSupport

_OPEN: dict[tuple[str | None, ...], Index] = {}
_BACKENDS: dict[tuple[str, ...], Backend] = {}
_LOCK = threading.Lock()


def open_index(
    settings: Settings | None = None, *, create: bool = False, embedder: Embedder | None = None
) -> Index:
    """Return the index the settings point at, opened once per process.

    Raises:
        IndexNotFoundError: there is no index there and `create` is false.
        IndexMismatchError: it was built with another embedding model.
    """
    settings = settings or load_settings()
    key = (
        str(Path(settings.index_dir).resolve()),
        settings.chroma_url or "",
        settings.chroma_tenant,
        settings.chroma_database,
        settings.chroma_token_header,
        settings.chroma_token.get_secret_value() if settings.chroma_token else "",
        settings.collection,
        settings.embedding_model,
        settings.passage_vectors,  # how this Index's ingests make passage vectors
        settings.query_encoder,
        str(settings.onnx_dir or ""),
        str(id(embedder)) if embedder else "",
    )
    with _LOCK:
        index = _OPEN.get(key)
        if index is None:
            index = Index(settings, embedder, create=create)
            _OPEN[key] = index
        elif index.changed_elsewhere():
            index.reopen()
        return index


def backend_for(settings: Settings, name: str | None = None) -> Backend | None:
    """Return the configured answer backend (None means the extractive answer)."""
    name = name or settings.backend
    if name == "extractive":
        return None
    key = (name, settings.model_dump_json())
    with _LOCK:
        if key not in _BACKENDS:
            _BACKENDS[key] = get_backend(name, settings)
        return _BACKENDS[key]


def ingest(
    paths: Sequence[str | Path],
    *,
    settings: Settings | None = None,
    index: Index | None = None,
    fmt: str | None = None,
    progress: bool = False,
    title_only: bool | None = None,
) -> IngestReport:
    """Add the papers in files or folders to the index (created when missing).

    The files are read first: when nothing in them can be read and there is no index yet,
    none is created (and no model is loaded) just to report that. Entries without an
    abstract are kept as title-only records when `title_only` (default: the setting).
    """
    from rag.ingest.pipeline import read_files, store_files

    settings = settings or (index.settings if index is not None else load_settings())
    keep = settings.title_only if title_only is None else title_only
    files = read_files(paths, fmt, title_only=keep)
    if index is None:
        missing = not settings.chroma_url and not embedded_index_exists(Path(settings.index_dir))
        if not files.papers and missing:
            return files.report()
        index = open_index(settings, create=True)
    return store_files(files, index, progress=progress)


def search(
    query: str,
    *,
    settings: Settings | None = None,
    index: Index | None = None,
    k: int = 10,
    retriever: str | None = None,
    filters: Filters | None = None,
) -> list[Hit]:
    """Return the best papers for `query`, best first (see `rag.index.retrieve.search`)."""
    _at_least_one("k", k)
    index = index or open_index(settings)
    return _search(
        index, query, k=k, retriever=retriever or index.settings.retriever, filters=filters
    )


def ask_stream(
    question: str,
    *,
    settings: Settings | None = None,
    index: Index | None = None,
    backend: Backend | str | None = "default",
    filters: Filters | None = None,
    top_k: int | None = None,
    retriever: str | None = None,
    history: Sequence[Any] | None = None,
) -> Iterator[str | Answer]:
    """Yield the checked answer text piece by piece, then the `Answer`.

    `backend` is a Backend, a backend name, None (extractive), or "default" (from settings).
    `history` is the conversation so far ((question, Answer) pairs or chat messages): a
    follow-up question is rewritten into a standalone one before retrieval.
    """
    from rag.answer.pipeline import answer_stream  # not imported by `search`: about 0.1 s cold
    from rag.answer.record_questions import BIBTEX, entry_format, record_fields

    if top_k is not None:
        _at_least_one("top_k", top_k)
    index = index or open_index(settings)
    settings = settings or index.settings
    if isinstance(backend, str):
        backend = backend_for(settings, None if backend == "default" else backend)
    stream = answer_stream(
        index,
        question,
        settings=settings,
        backend=backend,
        filters=filters,
        top_k=top_k,
        retriever=retriever,
        history=history,
    )
    if BIBTEX not in record_fields(question):
        return stream
    return _with_entries(stream, entry_format(question))


# How an answer's entries are fenced, by format: the chat shows such a block as it is to be
# copied (rag/ui/render.py).
ENTRY_FENCES = {"bibtex": "bibtex", "ris": "ris", "csljson": "json"}


def _with_entries(stream: Iterator[str | Answer], fmt: str) -> Iterator[str | Answer]:
    """`stream`, with the entries of the papers a record answer cites after its text, in `fmt`
    ("give me the bibtex for the first one", "RIS please"): what `rag list --format FMT`
    writes, without the abstracts."""
    from dataclasses import replace

    from rag.answer.rendering import Answer
    from rag.cite.export import to_bibtex, to_csl_json, to_ris

    write = {"bibtex": to_bibtex, "ris": to_ris, "csljson": to_csl_json}[fmt]

    for event in stream:
        if not isinstance(event, Answer):
            yield event
            continue
        records = all(s.get("reason") == "record" for s in event.sentences if s.get("shown"))
        if event.abstained or not event.citations or not records:
            yield event
            continue
        # An entry to cite the paper by, short enough to read in a chat: no abstract.
        papers = [c.hit.paper for c in sorted(event.citations, key=lambda c: c.n)]
        entries = write(papers, abstracts=False)
        block = f"\n\n```{ENTRY_FENCES[fmt]}\n{entries}```"
        yield block
        yield replace(event, answer=event.answer + block)


def ask(question: str, **kwargs: object) -> Answer:
    """Return the checked `Answer` to `question` (same arguments as `ask_stream`)."""
    from rag.answer.rendering import Answer

    for event in ask_stream(question, **kwargs):  # type: ignore[arg-type]
        if isinstance(event, Answer):
            return event
    raise AssertionError("ask_stream ended without an Answer")


def list_papers(*, settings: Settings | None = None, index: Index | None = None) -> list[Paper]:
    """Return every paper in the index, ordered by citation key."""
    index = index or open_index(settings)
    return sorted(index.papers.values(), key=lambda p: (p.citation_key, p.id))


def cite(
    claim: str,
    *,
    settings: Settings | None = None,
    index: Index | None = None,
    k: int = 5,
    filters: Filters | None = None,
) -> ClaimSupport:
    """Return the papers that support `claim`, and those that contradict it, with sentences."""
    from rag.cite.claims import cite as _cite
    from rag.stance.choose import judge_for

    _at_least_one("k", k)
    index = index or open_index(settings)
    settings = settings or index.settings
    judge = judge_for(settings.stance, settings)
    return _cite(index, claim, k=k, filters=filters, judge=judge)


def cite_draft(
    draft: str,
    *,
    settings: Settings | None = None,
    index: Index | None = None,
    style: str = "latex",
    filters: Filters | None = None,
) -> CitedDraft:
    """Suggest citations for each sentence of `draft` and insert `\\cite{}` or `[@key]`."""
    from rag.cite.claims import cite_draft as _cite_draft
    from rag.stance.choose import judge_for

    index = index or open_index(settings)
    settings = settings or index.settings
    judge = judge_for(settings.stance, settings)
    return _cite_draft(index, draft, style=style, filters=filters, judge=judge)


def get_paper(
    key_or_id: str, *, settings: Settings | None = None, index: Index | None = None
) -> Paper:
    """Return the paper with this citation key or id (PaperNotFoundError otherwise)."""
    from rag.cite.claims import find_paper

    return find_paper(index or open_index(settings), key_or_id)


def similar(
    key_or_id: str, *, settings: Settings | None = None, index: Index | None = None, k: int = 5
) -> list[Hit]:
    """Return the papers most like the one with this key or id ("more like this")."""
    from rag.cite.claims import find_paper
    from rag.cite.similar import similar as _similar

    _at_least_one("k", k)
    index = index or open_index(settings)
    return _similar(index, find_paper(index, key_or_id), k=k)


def export(papers: Sequence[Paper], fmt: str) -> str:
    """Return a reference list: fmt is bibtex, ris, csljson or markdown."""
    from rag.cite.export import render

    return render(papers, fmt)


def remove(
    keys_or_ids: Sequence[str], *, settings: Settings | None = None, index: Index | None = None
) -> list[Paper]:
    """Remove papers by citation key or id from Chroma and BM25 both; return them.

    Raises:
        PaperNotFoundError: a key or id is not in the index (then nothing is removed).
    """
    from rag.cite.claims import find_paper
    from rag.ingest.pipeline import remove as _remove

    index = index or open_index(settings)
    papers = [find_paper(index, k) for k in keys_or_ids]
    _remove(index, [p.id for p in papers])
    return papers


def stats(*, settings: Settings | None = None, index: Index | None = None) -> dict[str, int]:
    """Return counts for the index: papers, passages (chunks) and research areas."""
    index = index or open_index(settings)
    papers = index.papers.values()
    return {
        "papers": len(papers),
        "chunks": index.store.chunk_count(),
        "areas": len({p.area for p in papers if p.area}),
    }


def _at_least_one(name: str, value: int) -> None:
    """Raise ConfigError unless `value` (how many papers) is a whole number of 1 or more: a
    negative `k` listed 37 papers and 0 none, without a word (a new user's re-trial)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ConfigError(f"{name} must be a whole number of 1 or more, not {value!r}.")
