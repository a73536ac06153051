"""More like this: the papers nearest to a paper, by their stored paper-level embeddings."""

from __future__ import annotations

from rag.errors import ConfigError
from rag.index import Index
from rag.records import Hit, Paper
from rag.text import split_sentences


def similar(index: Index, paper: Paper, *, k: int = 5) -> list[Hit]:
    """Return the `k` papers whose embedding is closest to `paper`'s, nearest first.

    The paper itself is never among them. `score` and `relevance` are the cosine similarity
    of the two paper embeddings (the mean of each paper's passage vectors, as ingested);
    `snippet` is the other paper's first sentence.

    Args:
        index: the open index.
        paper: a paper of the index (see `rag.claims.find_paper`).
        k: how many papers.

    Returns:
        The related papers as hits, best first; fewer when the index is small.

    Raises:
        ConfigError: k is not positive.
    """
    if k < 1:
        raise ConfigError(f"-k must be at least 1, not {k}.")
    vector = index.store.paper_embeddings([paper.id])[paper.id]
    total = index.store.count()
    if total <= 1:
        return []
    # The paper collection is queried directly: ChromaStore.query searches passages.
    found = index.store.papers.query(
        query_embeddings=[vector.tolist()], n_results=min(k + 1, total), include=["distances"]
    )
    hits = []
    pairs = zip(found["ids"][0], found["distances"][0], strict=True)
    neighbours = [(pid, 1.0 - float(d)) for pid, d in pairs if pid != paper.id][:k]
    for rank, (pid, similarity) in enumerate(neighbours, start=1):
        other = index.papers[pid]
        snippet = (split_sentences(other.abstract) or [other.abstract])[0]
        hits.append(Hit(other, rank, similarity, snippet, similarity))
    return hits
