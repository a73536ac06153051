"""The citation check: every sentence shown is supported by a retrieved paper it cites.

A generated sentence's `[n]` markers are read; markers to papers that were not retrieved are
dropped; each remaining citation is kept only when the cited abstract supports the sentence
(the best cosine similarity between the sentence and a sentence of that abstract reaches the
threshold). A sentence with no marker is attributed to the retrieved paper that supports it
best, when one does. A sentence left with no supporting citation is not shown as supported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from rag.embedding import Embedder
from rag.evidence import Evidence
from rag.text import split_sentences

MARKER = re.compile(r"\s*\[(\d+(?:\s*[,;]\s*\d+)*)\]")


@dataclass(frozen=True)
class CheckedSentence:
    """One answer sentence after the check; `sources` are prompt source numbers."""

    text: str  # without markers
    sources: tuple[int, ...]
    support: float  # best support among the kept sources (or among all, when none is kept)
    supported: bool
    attributed: bool = False  # the check added the citation: the model wrote none
    evidence: tuple[str, ...] = ()  # per kept source, its abstract sentence that supports most


def strip_markers(sentence: str) -> tuple[str, list[int]]:
    """Return the sentence without `[n]` markers, and the numbers they held, in order."""
    numbers: list[int] = []
    for match in MARKER.finditer(sentence):
        numbers.extend(int(x) for x in re.split(r"\s*[,;]\s*", match.group(1)))
    text = MARKER.sub("", sentence).strip()
    text = re.sub(r"\s+([.,;:!?])", r"\1", text)
    return text, list(dict.fromkeys(numbers))


class CitationChecker:
    """Checks answer sentences against the abstracts of the papers put into the prompt."""

    def __init__(self, embedder: Embedder, evidence: list[Evidence], threshold: float) -> None:
        self.embedder = embedder
        self.threshold = threshold
        self._sentences: dict[int, list[str]] = {}
        self._sentence_vectors: dict[int, np.ndarray] = {}
        for ev in evidence:
            sentences = split_sentences(ev.hit.paper.abstract) or [ev.hit.paper.abstract]
            self._sentences[ev.n] = sentences
            self._sentence_vectors[ev.n] = embedder.embed(sentences)

    def support(self, text: str) -> dict[int, tuple[float, str]]:
        """Return, per source number, how well that paper supports `text`, and with what."""
        vector = self.embedder.embed([text])[0]
        result = {}
        for n, vectors in self._sentence_vectors.items():
            sims = vectors @ vector
            best = int(np.argmax(sims))
            result[n] = (float(sims[best]), self._sentences[n][best])
        return result

    def check(self, sentence: str) -> CheckedSentence:
        """Check one generated sentence (with its markers)."""
        text, numbers = strip_markers(sentence)
        if not text or not any(ch.isalnum() for ch in text):
            return CheckedSentence(text, (), 0.0, False)
        scored = self.support(text)
        support = {n: score for n, (score, _) in scored.items()}
        cited = [n for n in numbers if n in support]
        kept = tuple(n for n in cited if support[n] >= self.threshold)
        if kept:
            evidence = tuple(scored[n][1] for n in kept)
            return CheckedSentence(text, kept, max(support[n] for n in kept), True, False, evidence)
        if not numbers:
            best = max(support, key=lambda n: support[n])
            if support[best] >= self.threshold:
                return CheckedSentence(text, (best,), support[best], True, True, (scored[best][1],))
        best_cited = max((support[n] for n in cited), default=0.0)
        return CheckedSentence(text, tuple(cited), best_cited, False)
