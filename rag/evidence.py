"""Evidence selection: the sentences of each retrieved paper that best match a question."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rag.embedding import Embedder
from rag.records import Hit
from rag.text import split_sentences


@dataclass(frozen=True)
class Evidence:
    """The sentences of one paper chosen for the prompt, in abstract order."""

    n: int  # the source number in the prompt, 1-based
    hit: Hit
    sentences: tuple[str, ...]
    scores: tuple[float, ...]  # cosine of each chosen sentence to the question

    @property
    def best_sentence(self) -> str:
        return self.sentences[int(np.argmax(self.scores))]

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


def select_evidence(
    embedder: Embedder, question: str, hits: list[Hit], per_paper: int = 2
) -> list[Evidence]:
    """Return, for each hit, its `per_paper` sentences closest to `question`."""
    if not hits:
        return []
    per_hit = [split_sentences(h.paper.abstract) or [h.paper.abstract] for h in hits]
    flat = [s for sentences in per_hit for s in sentences]
    vectors = embedder.embed([question, *flat])
    sims = vectors[1:] @ vectors[0]
    chosen, offset = [], 0
    for n, (hit, sentences) in enumerate(zip(hits, per_hit, strict=True), start=1):
        scores = sims[offset : offset + len(sentences)]
        offset += len(sentences)
        keep = sorted(np.argsort(-scores)[:per_paper])
        chosen.append(
            Evidence(
                n=n,
                hit=hit,
                sentences=tuple(sentences[i] for i in keep),
                scores=tuple(float(scores[i]) for i in keep),
            )
        )
    return chosen
