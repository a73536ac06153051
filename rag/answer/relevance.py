"""The question-relevance check: a shown sentence must be about the question, not only true.

The citation check asks "does the cited paper say this?"; this one asks "is this about what was
asked?". A sentence can pass the first and fail the second: asked about a multimodal method,
a tiny model may copy a supported sentence from a retrieved RL paper. The score is

    about = cosine(sentence, question) + TERM_WEIGHT x share of the question's terms in it

where the question's terms are its content-word stems without the words every question uses
("which", "papers", "deal", ...; `rag.ingest.wanted.question_terms`). A sentence is about the
question when `about` reaches the threshold and is within MARGIN of the best candidate sentence
(every sentence of the papers the answer draws on): a weak sentence next to much better ones is
not shown.

TERM_WEIGHT, MARGIN and the threshold (`Settings.min_question_relevance`) were calibrated by
`bench/answers/calibrate_composition.py` on labelled (question, sentence, about it?) pairs over the
seeds, with the questions split into a fitting half and a held-out half
(`bench/results/composition.md`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rag.index.embedding import Embedder
from rag.ingest.wanted import question_terms, term_share

TERM_WEIGHT = 2.0
MARGIN = 10.0  # calibrated: no margin below the best candidate helped


def about_score(cosine: float, share: float, weight: float = TERM_WEIGHT) -> float:
    """Combine the two parts of the score (see the module docstring)."""
    return cosine + weight * share


class RelevanceCheck:
    """Decides whether sentences are about one question, among a set of candidate sentences.

    Args:
        embedder: the embedding model (the same one as retrieval).
        question: the question as searched.
        candidates: every sentence the answer may draw on; the best of them sets the bar that
            `margin` is measured from.
        threshold: least `about` score a shown sentence needs.
        margin: how far below the best candidate's score a sentence may be.
        question_vector / candidate_vectors: embeddings already computed, if any.
        rarity: each term's IDF in the collection, for `rag.answer.compose.tie_sentence`.
    """

    def __init__(
        self,
        embedder: Embedder,
        question: str,
        candidates: Sequence[str],
        *,
        threshold: float,
        margin: float = MARGIN,
        weight: float = TERM_WEIGHT,
        question_vector: np.ndarray | None = None,
        candidate_vectors: np.ndarray | None = None,
        rarity: Mapping[str, float] | None = None,
    ) -> None:
        self.embedder = embedder
        self.question = question
        self.terms = question_terms(question)
        # How rare each term is in the collection (BM25's IDF; None: all alike): "transfer"
        # says more of what "transfer learning" asks than "learning" does.
        self.rarity = rarity
        self.threshold = threshold
        self.margin = margin
        self.weight = weight
        self.vector = (
            question_vector if question_vector is not None else embedder.embed([question])[0]
        )
        best = 0.0
        if candidates:
            vectors = (
                candidate_vectors
                if candidate_vectors is not None
                else embedder.embed(list(candidates))
            )
            cosines = vectors @ self.vector
            best = max(
                about_score(float(c), term_share(self.terms, s), weight)
                for c, s in zip(cosines, candidates, strict=True)
            )
        self.best = best

    def score(self, sentence: str, vector: np.ndarray | None = None) -> float:
        """Return the `about` score of `sentence` for this question."""
        if vector is None:
            vector = self.embedder.embed([sentence])[0]
        return about_score(
            float(vector @ self.vector), term_share(self.terms, sentence), self.weight
        )

    def passes(self, score: float) -> bool:
        """Return whether a sentence with this `about` score is about the question."""
        return score >= self.threshold and score >= self.best - self.margin

    def relevant(self, sentence: str, vector: np.ndarray | None = None) -> bool:
        """Return whether `sentence` is about the question."""
        return self.passes(self.score(sentence, vector))
