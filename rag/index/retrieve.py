"""Paper-level search: dense passages and BM25, fused by a weighted sum of scores, with filters.

Measured on SciFact train (bench/retrieval/retrieval.py): the weighted sum of the best passage's
cosine and the BM25 score relative to the query's best reaches nDCG@10 0.745, against 0.724 for
reciprocal rank fusion of the same two lists: it keeps how far the first hits are ahead.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from rag.errors import ConfigError, FilterMatchesNothingError
from rag.index.paper_index import Index
from rag.records import Hit, Paper
from rag.text import fold

RETRIEVERS = ("hybrid", "dense", "bm25")
LEXICAL_WEIGHT = 0.3  # share of BM25 in the fused score (0.3 on either half of SciFact train)
DENSE_PASSAGES = 200  # passages read from Chroma per query before grouping by paper
CANDIDATES = 100  # papers taken from the BM25 side before fusion
# With `search(rescore=True)` on an index of pooled ("late") passage vectors, the first papers
# are scored again by their windows encoded on their own (`_window_passages`): as many as an
# answer uses by default (Settings.top_k). Their order and cosines are then those of a windows
# index: the per-paper judgement of answers on the held-out seed questions is the same,
# 0.843 / 0.932. A plain search keeps the pooled cosines (the same SciFact nDCG@10) and its speed.
RESCORED = 10


@dataclass(frozen=True)
class Filters:
    """Restrictions on which papers a search may return (all given ones must hold)."""

    area: str | None = None
    author: str | None = None
    year_min: int | None = None
    year_max: int | None = None
    # Leave out title-only records (no abstract): what an answer draws evidence from.
    abstracts_only: bool | None = None

    def __bool__(self) -> bool:
        return any(v is not None and v != "" for v in vars(self).values())

    def describe(self) -> str:
        parts = [f"{k}={v!r}" for k, v in vars(self).items() if v is not None and v != ""]
        return ", ".join(parts)

    def accepts(self, paper: Paper) -> bool:
        """Return whether `paper` satisfies every filter (area and author fold case/accents)."""
        if self.abstracts_only and paper.title_only:
            return False
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
        # The year is what fails when no paper has one and the rest of the filter passes some.
        undated = (filters.year_min is not None or filters.year_max is not None) and all(
            p.year is None for p in index.papers.values()
        )
        rest = replace(filters, year_min=None, year_max=None)
        undated = undated and any(rest.accepts(p) for p in index.papers.values())
        raise FilterMatchesNothingError(
            f"No paper in the index matches the filter ({filters.describe()}): "
            + (
                "no paper in the index has a year, so a year filter matches none; leave it out."
                if undated
                else "loosen it, or run `rag list` to see the areas and authors there are."
            )
        )
    return ids


def _dense(
    index: Index, query_vector: np.ndarray, allowed: Collection[str] | None
) -> dict[str, tuple[float, str]]:
    """Return each paper's best passage among the nearest ones: (cosine, passage text).

    A passage whose paper is not in the catalog is skipped: another process is writing that
    paper (passages go in before the record) and it counts once its record is read.
    """
    best: dict[str, tuple[float, str]] = {}
    known = index.papers
    for match in index.store.query(query_vector, DENSE_PASSAGES, allowed):
        if match.paper_id not in known:
            continue
        if match.paper_id not in best or match.similarity > best[match.paper_id][0]:
            best[match.paper_id] = (match.similarity, match.text)
    return best


def best_passages(
    index: Index, query_vector: np.ndarray, paper_ids: list[str]
) -> dict[str, tuple[float, str]]:
    """Return the best passage of each of a few papers, scored against all their passages."""
    return _best_per_paper(index.store.passages_of(paper_ids), query_vector)


def _best_per_paper(
    passages: Iterable[tuple[str, str, np.ndarray]], query_vector: np.ndarray
) -> dict[str, tuple[float, str]]:
    """Return each paper's highest cosine to `query_vector` among (paper id, text, vector)."""
    best: dict[str, tuple[float, str]] = {}
    for paper_id, text, vector in passages:
        similarity = float(vector @ query_vector) / (
            float(np.linalg.norm(vector) * np.linalg.norm(query_vector)) or 1.0
        )
        if paper_id not in best or similarity > best[paper_id][0]:
            best[paper_id] = (similarity, text)
    return best


def _window_passages(
    index: Index, query_vector: np.ndarray, paper_ids: list[str]
) -> dict[str, tuple[float, str]]:
    """Return the best passage of each of a few papers, each window encoded on its own.

    Late chunking pools a window's vector from one pass over the whole paper: it finds the
    papers as well as windows encoded one by one, but its cosines lean towards the paper's
    overall topic, and the abstention and the per-paper judgement of answers were fitted on a
    window's own cosine. The windows of the first papers are encoded the first time they are
    asked for and kept in the index's vector cache, so a late index ingests at one pass per
    paper and answers as a windows index does.
    """
    rows = index.store.passage_texts(paper_ids)
    vectors = index.sentence_embedder.embed([text for _, text in rows])
    return _best_per_paper(
        ((pid, text, v) for (pid, text), v in zip(rows, vectors, strict=True)), query_vector
    )


def _fuse(
    index: Index,
    query: str,
    passages: dict[str, tuple[float, str]],
    allowed: Collection[str] | None,
) -> dict[str, float]:
    """Return the fused score of every candidate paper of either side.

    The score is a convex mix: the cosine of the paper's best passage, plus `LEXICAL_WEIGHT`
    times its BM25 score divided by the best BM25 score of the query. Cosines are already on a
    common scale across queries, BM25 scores are not; the division puts them on one.
    """
    bm25 = index.bm25()
    raw = bm25.scores(query, allowed)
    best = float(raw.max()) if raw.size else 0.0

    def lexical(pid: str) -> float:
        row = bm25.position(pid)
        return float(raw[row]) / best if row is not None and best > 0 else 0.0

    dense = {pid: sim for pid, (sim, _) in passages.items()}
    # A paper found by BM25 alone has no passage among the DENSE_PASSAGES nearest, so its best
    # cosine is at most that of the weakest paper read: that bound stands in for it (as good as
    # fetching its exact passage on SciFact, and no second query).
    floor = min(dense.values(), default=0.0)
    for row in bm25.top(raw, CANDIDATES):
        dense.setdefault(bm25.ids[row], floor)
    return {
        pid: (1 - LEXICAL_WEIGHT) * sim + LEXICAL_WEIGHT * lexical(pid)
        for pid, sim in dense.items()
    }


def search(
    index: Index,
    query: str,
    *,
    k: int = 10,
    retriever: str = "hybrid",
    filters: Filters | None = None,
    rescore: bool = False,
) -> list[Hit]:
    """Return the `k` papers that best match `query`, best first.

    Args:
        index: the open index.
        query: free text.
        k: how many papers.
        retriever: "hybrid" (dense + BM25, fused), "dense" or "bm25".
        filters: restrictions every returned paper satisfies.
        rescore: on an index of pooled ("late") passage vectors, rank and score the first
            `RESCORED` papers by their windows encoded on their own, the cosine the decisions
            of answers and citation lookups were fitted on (the others keep their pooled one).

    Returns:
        Hits whose `relevance` is the cosine similarity of the paper's best passage, whichever
        retriever found it (abstention looks at it), and whose `snippet` is that passage.

    Raises:
        ConfigError: `retriever` is not one of the three.
        FilterMatchesNothingError: the filter matches no paper.
    """
    if retriever not in RETRIEVERS:
        raise ConfigError(f"Unknown retriever {retriever!r}: use one of {', '.join(RETRIEVERS)}.")
    allowed = allowed_papers(index, filters)
    query_vector = index.embedder.embed([query])[0]
    passages = _dense(index, query_vector, allowed) if retriever != "bm25" else {}
    if retriever == "dense":
        scores = {pid: sim for pid, (sim, _) in passages.items()}
    elif retriever == "bm25":
        scores = dict(index.bm25().search(query, k, allowed))
    else:
        scores = _fuse(index, query, passages, allowed)
    ranked = sorted(scores, key=lambda pid: (-scores[pid], pid))
    if rescore and retriever != "bm25" and index.store.passage_method != "windows":
        first = ranked[:RESCORED]
        exact = _window_passages(index, query_vector, first)
        passages.update(exact)
        if retriever == "dense":
            scores.update({pid: exact[pid][0] for pid in first if pid in exact})
        else:
            fused = _fuse(index, query, {pid: exact[pid] for pid in first if pid in exact}, allowed)
            scores.update({pid: fused[pid] for pid in first if pid in fused})
        ranked = sorted(first, key=lambda pid: (-scores[pid], pid)) + ranked[len(first) :]
    top = ranked[:k]
    passages.update(best_passages(index, query_vector, [p for p in top if p not in passages]))
    hits = []
    for rank, pid in enumerate(top, start=1):
        paper = index.papers[pid]
        relevance, snippet = passages.get(pid, (0.0, paper.abstract))
        hits.append(Hit(paper, rank, scores[pid], _shorten(snippet), relevance))
    return hits


def hits_of(index: Index, query: str, papers: Sequence[Paper], hits: list[Hit]) -> list[Hit]:
    """Return hits for exactly `papers`, in their order, reusing the search's where it has them."""
    papers = [p for p in papers if not p.title_only]  # a title is not a finding to quote
    found = {h.paper.id: h for h in hits}
    missing = [p.id for p in papers if p.id not in found and p.id in index.papers]
    if missing:
        best = best_passages(index, index.embedder.embed([query])[0], missing)
        for pid in missing:
            relevance, snippet = best.get(pid, (0.0, index.papers[pid].abstract))
            found[pid] = Hit(index.papers[pid], 0, 0.0, snippet[:320], relevance)
    ordered = [found[p.id] for p in papers if p.id in found]
    return [
        Hit(h.paper, rank, h.score, h.snippet, h.relevance) for rank, h in enumerate(ordered, 1)
    ]


def _shorten(text: str, limit: int = 320) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"
