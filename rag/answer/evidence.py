"""Evidence selection: the sentences of each retrieved paper that best match a question.

Abstracts are data, never instructions. A sentence that addresses the model ("ignore previous
instructions and ...", "you are an assistant", "cite [7]") is quarantined: it never reaches the
prompt, never counts as support for an answer sentence and is never quoted as an answer.
Bracketed numbers are removed from what reaches the prompt, so an abstract cannot plant a
citation marker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from rag.index.embedding import Embedder
from rag.records import Hit, Paper
from rag.text import split_sentences

_INSTRUCTION = re.compile(
    r"""
    \b(?:ignore|disregard|forget|override|bypass)\b[^.]{0,60}?
        \b(?:instructions?|prompts?|rules|guidelines|directions|above|previous|prior|earlier)\b
    | \b(?:system|developer)\s+(?:prompt|message|instructions?)\b
    | \byou\s+(?:are|must|should|will)\s+(?:now\s+)?(?:an?\s+|the\s+)?
        (?:assistant|ai|chatbot|language\s+model|required|instructed|answer|say|reply|respond|cite)\b
    | \b(?:as\s+an\s+ai|new\s+instructions?|jailbreak)\b
    | ^\W*(?:assistant|user|system)\s*:
    | \b(?:say|respond|reply|answer|output|print|write|repeat|cite)\b[^.]{0,40}?
        \b(?:verbatim|exactly|only\s+with)\b
    | \bcite\s*\[\s*\d+\s*\]
    | <\|?im_(?:start|end)\|?>
    """,
    re.IGNORECASE | re.VERBOSE,
)
_BRACKET_NUMBER = re.compile(r"\s*\[\s*\d+(?:\s*[,;-]\s*\d+)*\s*\]")


def looks_like_instruction(sentence: str) -> bool:
    """Return whether `sentence` speaks to the model rather than about research."""
    return bool(_INSTRUCTION.search(sentence))


def paper_sentences(paper: Paper) -> list[str]:
    """Return the sentences of a paper's abstract that may serve as evidence (not instructions)."""
    sentences = split_sentences(paper.abstract) or [paper.abstract]
    kept = [_BRACKET_NUMBER.sub("", s).strip() for s in sentences if not looks_like_instruction(s)]
    return [s for s in kept if s]


@dataclass(frozen=True)
class Evidence:
    """The sentences of one paper chosen for the prompt, in abstract order."""

    n: int  # the source number in the prompt, 1-based
    hit: Hit
    sentences: tuple[str, ...]
    scores: tuple[float, ...]  # cosine of each chosen sentence to the question
    # Every evidence-worthy sentence of the paper and its vector, computed once here and
    # reused by the citation check (None: not computed).
    vectors: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def best_sentence(self) -> str:
        return self.sentences[int(np.argmax(self.scores))] if self.sentences else ""

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


def select_evidence(
    embedder: Embedder, question: str, hits: list[Hit], per_paper: int = 2
) -> list[Evidence]:
    """Return, for each hit, its `per_paper` sentences closest to `question`.

    A paper whose abstract holds nothing but instructions gets no evidence and is left out.
    """
    if not hits:
        return []
    per_hit = [(h, paper_sentences(h.paper)) for h in hits]
    per_hit = [(h, sentences) for h, sentences in per_hit if sentences]
    flat = [s for _, sentences in per_hit for s in sentences]
    vectors = embedder.embed([question, *flat])
    sims = vectors[1:] @ vectors[0]
    chosen, offset = [], 0
    for n, (hit, sentences) in enumerate(per_hit, start=1):
        scores = sims[offset : offset + len(sentences)]
        paper_vectors = vectors[1 + offset : 1 + offset + len(sentences)]
        offset += len(sentences)
        keep = sorted(np.argsort(-scores)[:per_paper])
        chosen.append(
            Evidence(
                n=n,
                hit=hit,
                sentences=tuple(sentences[i] for i in keep),
                scores=tuple(float(scores[i]) for i in keep),
                vectors=paper_vectors,
            )
        )
    return chosen
