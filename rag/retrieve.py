"""Paper-level search: dense passages and BM25 fused by reciprocal rank, with filters."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from rag.errors import FilterMatchesNothingError
from rag.index import Index
from rag.records import Hit, Paper
from rag.text import fold

RRF_K = 60  # the usual constant of reciprocal rank fusion (Cormack et al., 2009)
DENSE_PASSAGES = 100  # passages read from Chroma per query before grouping by paper
CANDIDATES = 100  # papers taken from each side before fusion


@dataclass(frozen=True)
class Filters:
    """Restrictions on which papers a search may return (all given ones must hold)."""

    area: str | None = None
    author: str | None = None
    year_min: int | None = None
    year_max: int | None = None

    def __bool__(self) -> bool:
        return any(v is not None and v != "" for v in vars(self).values())

    def describe(self) -> str:
        parts = [f"{k}={v!r}" for k, v in vars(self).items() if v is not None and v != ""]
        return ", ".join(parts)

    def accepts(self, paper: Paper) -> bool:
        """Return whether `paper` satisfies every filter (area and author fold case/accents)."""
        if self.area and fold(self.area) not in fold(paper.area or ""):
            return False
        if self.author and not any(fold(self.author) in fold(a) for a in paper.authors):
            return False
        if self.year_min is not None and (paper.year is None or paper.year < self.year_min):
            return False
        return not (
            self.year_max is not None and (paper.year is None or paper.year > self.year_max)
        )


def allowed_papers(index: Index, filters: Filters | None) -> set[str] | None:
    """Return the ids a filter lets through (None: no filter).

    Raises:
        FilterMatchesNothingError: no paper in the index satisfies the filter.
    """
    if not filters:
        return None
    ids = {pid for pid, p in index.papers.items() if filters.accepts(p)}
    if not ids:
        raise FilterMatchesNothingError(
            f"No paper in the index matches the filter ({filters.describe()}): "
            "loosen it, or run `rag list` to see the areas and authors there are."
        )
    return ids


def _dense(
    index: Index, query_vector: np.ndarray, allowed: Collection[str] | None
) -> tuple[list[str], dict[str, tuple[float, str]]]:
    """Return paper ids by best passage, and each paper's (similarity, passage)."""
    best: dict[str, tuple[float, str]] = {}
    for match in index.store.query(query_vector, DENSE_PASSAGES, allowed):
        if match.paper_id not in best or match.similarity > best[match.paper_id][0]:
            best[match.paper_id] = (match.similarity, match.text)
    ranked = sorted(best, key=lambda pid: -best[pid][0])
    return ranked[:CANDIDATES], best


def _fuse(rankings: list[list[str]]) -> dict[str, float]:
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, pid in enumerate(ranking, start=1):
            scores[pid] = scores.get(pid, 0.0) + 1.0 / (RRF_K + rank)
    return scores


def search(
    index: Index,
    query: str,
    *,
    k: int = 10,
    retriever: str = "hybrid",
    filters: Filters | None = None,
) -> list[Hit]:
    """Return the `k` papers that best match `query`, best first.

    Args:
        index: the open index.
        query: free text.
        k: how many papers.
        retriever: "hybrid" (dense + BM25, fused), "dense" or "bm25".
        filters: restrictions every returned paper satisfies.

    Raises:
        FilterMatchesNothingError: the filter matches no paper.
    """
    allowed = allowed_papers(index, filters)
    query_vector = index.embedder.embed([query])[0]
    dense_ids, passages = _dense(index, query_vector, allowed) if retriever != "bm25" else ([], {})
    lexical = index.bm25().search(query, CANDIDATES, allowed) if retriever != "dense" else []
    if retriever == "dense":
        scores = {pid: passages[pid][0] for pid in dense_ids}
    elif retriever == "bm25":
        scores = dict(lexical)
    else:
        scores = _fuse([dense_ids, [pid for pid, _ in lexical]])
    top = sorted(scores, key=lambda pid: -scores[pid])[:k]
    # Relevance for abstention is always a cosine, whichever side found the paper.
    missing = [pid for pid in top if pid not in passages]
    paper_vectors = index.store.paper_embeddings(missing)
    hits = []
    for rank, pid in enumerate(top, start=1):
        paper = index.papers[pid]
        if pid in passages:
            relevance, snippet = passages[pid]
        else:
            relevance, snippet = float(paper_vectors[pid] @ query_vector), paper.abstract
        hits.append(Hit(paper, rank, scores[pid], _shorten(snippet), relevance))
    return hits


def _shorten(text: str, limit: int = 320) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"
