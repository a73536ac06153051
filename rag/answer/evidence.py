"""Evidence selection: the sentences of each retrieved paper that best match a question.

Abstracts are data, never instructions. A sentence that addresses the model ("ignore previous
instructions and ...", "you are an assistant", "cite [7]") is quarantined: it never reaches the
prompt, never counts as support for an answer sentence and is never quoted as an answer.
Bracketed numbers are removed from what reaches the prompt, so an abstract cannot plant a
citation marker.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from rag.index.embedding import Embedder
from rag.ingest.roles import stored_roles
from rag.ingest.wanted import choice_scores, shared_with_others
from rag.records import Hit, Paper

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


@lru_cache(maxsize=4096)
def _sentences_and_roles(abstract: str, stored: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    pairs = stored_roles(abstract, stored) or [(abstract, "")]
    kept = [
        (_BRACKET_NUMBER.sub("", s).strip(), r) for s, r in pairs if not looks_like_instruction(s)
    ]
    return tuple((s, r) for s, r in kept if s)


def paper_sentence_roles(paper: Paper) -> list[tuple[str, str]]:
    """Return the evidence-worthy sentences of `paper` (headings removed) with their roles."""
    return list(_sentences_and_roles(paper.abstract, paper.sentence_roles))


def paper_sentences(paper: Paper) -> list[str]:
    """Return the sentences of a paper's abstract that may serve as evidence (not instructions).

    A structured abstract's headings ("RESULTS:") are not part of them.
    """
    return [s for s, _ in _sentences_and_roles(paper.abstract, paper.sentence_roles)]


@dataclass(frozen=True)
class Evidence:
    """The sentences of one paper chosen for the prompt, the one that answers best first."""

    n: int  # the source number in the prompt, 1-based
    hit: Hit
    sentences: tuple[str, ...]
    scores: tuple[float, ...]  # cosine of each chosen sentence to the question
    # Every evidence-worthy sentence of the paper and its vector, computed once here and
    # reused by the citation check (None: not computed).
    vectors: np.ndarray | None = field(default=None, compare=False, repr=False)
    # Each of those sentences' likeness to the answer's other papers
    # (`rag.ingest.wanted.shared_with_others`), for the composer's choice (None: not computed).
    shared: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def best_sentence(self) -> str:
        """The sentence that answers best, by the fitted sentence choice."""
        return self.sentences[0] if self.sentences else ""

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


def select_evidence(
    embedder: Embedder, question: str, hits: list[Hit], per_paper: int = 2
) -> list[Evidence]:
    """Return, for each hit, the `per_paper` sentences that best answer `question`.

    They are ordered by the fitted sentence choice (`rag.ingest.wanted.choice_scores`: the
    closest to the question of the role it wants, for most questions what a paper found), best
    first, so a model reads the finding before the aim; a fragment ("To determine whether X.")
    is never chosen while the paper has a sentence. A paper whose abstract holds nothing but
    instructions gets no evidence and is left out.
    """
    if not hits:
        return []
    per_hit = [(h, paper_sentence_roles(h.paper)) for h in hits]
    per_hit = [(h, pairs) for h, pairs in per_hit if pairs]
    flat = [s for _, pairs in per_hit for s, _ in pairs]
    vectors = embedder.embed([question, *flat])
    sims = vectors[1:] @ vectors[0]
    bounds = np.cumsum([0, *(len(pairs) for _, pairs in per_hit)])
    per_paper_vectors = [vectors[1 + a : 1 + b] for a, b in itertools.pairwise(bounds)]
    shared = shared_with_others(per_paper_vectors)
    chosen, offset = [], 0
    for n, (hit, pairs) in enumerate(per_hit, start=1):
        scores = sims[offset : offset + len(pairs)]
        paper_vectors = vectors[1 + offset : 1 + offset + len(pairs)]
        offset += len(pairs)
        rank = choice_scores(question, pairs, scores, shared=shared[n - 1])
        keep = np.argsort(-rank, kind="stable")[:per_paper]
        chosen.append(
            Evidence(
                n=n,
                hit=hit,
                sentences=tuple(pairs[i][0] for i in keep),
                scores=tuple(float(scores[i]) for i in keep),
                vectors=paper_vectors,
                shared=shared[n - 1],
            )
        )
    return chosen
