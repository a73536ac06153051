"""Which sentence of an abstract answers a question: its role, wanted by what is asked.

The sentence most like a question is usually the one that asks it (the paper's aim), so ranking
by similarity alone answers "Does X improve Y?" with "We examined whether X improves Y". Each
abstract sentence has a role (`rag.ingest.roles`); a question wants, by default, what the papers
found (result, conclusion): an effect, an outcome, a comparison, a yes/no question, a claim.
Two kinds of question want something else:

- what a thing is or how it works ("What is ZS-SVD?", "What do they propose?", "How does
  deleting a client work?"): the objective and method sentences;
- why it was done ("Why ...?", "What goes wrong with ...?"): the background.

`ROLE_WEIGHTS` is added to a candidate sentence's cosine with the question; it only orders the
sentences that pass the question-relevance check, never lets one through. Beside the role it
weighs the share of the question's terms a sentence holds, where the sentence sits, and whether
it is the first to name what the question names: "What is CiteGuard?" wants "we propose
CiteGuard, a verifier that ...", not a later sentence about how CiteGuard is run, though every
such sentence names it and some are closer to the question. The weights were
fitted by `bench/answers/finding_first.py fit` on the seed role questions' fitting part and the
SciFact training claims' tune part, and judged on the held-out parts
(`bench/results/finding_first.md`).

A fragment ("To determine whether X.", left when a structured abstract's heading is removed) is
never an answer sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from enum import StrEnum

import numpy as np


class Want(StrEnum):
    """What a question wants from an abstract."""

    FINDING = "finding"
    DEFINITION = "definition"
    MOTIVATION = "motivation"


_MOTIVATION = re.compile(
    r"^\s*(?:so\s+)?why\b|\bmotivat\w*|\b(?:goes|go|went|going)\s+wrong\b"
    r"|\bwhat\s+(?:\w+\s+)?(?:problems?|challenges?|limitations?|gaps?|shortcomings?|drawbacks?)\b"
    r"|\b(?:problems?|limitations?)\s+(?:of|with)\b",
    re.IGNORECASE,
)
_ASKED = re.compile(
    r"\?\s*$|^\s*(?:so\s+|and\s+)?(?:what|which|how|why|who|when|where|whats|tell|explain|"
    r"describe|summari[sz]e|list)\b",
    re.IGNORECASE,
)
# A finding asked about a method ("How does X perform?", "What is the effect of ...") stays a
# finding question.
_ASKS_FINDING = re.compile(
    r"\b(?:perform\w*|compar\w*|affect\w*|effect\w*|impact\w*|scale[sd]?|improv\w*|help\w*|"
    r"beat\w*|outperform\w*|fare\w*|accura\w*|faster|slower|better|worse|robust\w*|known|"
    r"found|find|findings?|results?|happen\w*|gains?|cost\w*|sav(?:e|es|ed|ing))\b",
    re.IGNORECASE,
)
_DEFINITION = re.compile(
    r"^\s*(?:so\s+)?(?:what|who)(?:'s|\s+is|\s+are|\s+was|\s+were)\s+(?:an?\s+|the\s+)?\S+"
    r"(?:\s+\S+){0,3}\s*\??\s*$"  # "What is ZS-SVD?", "What are Certified Circuits?"
    r"|\bpropos\w*|\bintroduc\w*|\bwhat\s+(?:does|do|did)\b.+\bdo\s*\??\s*$"
    r"|^\s*how\s+(?:does|do|is|are|can|could)\b.+\b(?:work|works|built|constructed|computed|"
    r"trained|implemented|defined|designed|done|achieved|handled)\b"
    r"|\b(?:which|what)\s+(?:\w+\s+)?(?:methods?|approach(?:es)?|techniques?|algorithms?|"
    r"frameworks?|architectures?|mechanisms?|ideas?|components?|steps?)\b"
    r"|\bwhat\s+(?:do|does|did)\s+.+\b(?:share|use|combine|consist|contain|compute|learn)\b",
    re.IGNORECASE,
)

# Fitted (see the module docstring): added to the cosine of a sentence of that role; "terms"
# weighs the share of the question's own terms the sentence holds, "position" its relative
# position in the abstract (0 first, 1 last), "first" whether it is the first to name what the
# question names (`first_naming`).
ROLE_WEIGHTS: dict[Want, dict[str, float]] = {
    Want.FINDING: {
        "result": 0.12,
        "conclusion": 0.12,
        "method": -0.12,
        "objective": -0.3,
        "background": -0.3,
        "terms": 0.9,
    },
    Want.DEFINITION: {
        "objective": 0.39,
        "method": 0.18,
        "background": -0.12,
        "terms": 0.1,
        "first": 0.36,
    },
    Want.MOTIVATION: {"background": 0.12, "objective": 0.06},
}

_FRAGMENT = re.compile(
    # "To determine whether X." stands alone; "To test X, we ..." or ", Chen et al. ..." does not.
    r"^(?:to|in\s+order\s+to)\s+[a-z]+\b"
    r"(?![^.;]*,\s*(?:we|the|this|these|it|they|our|an?|here|(?-i:[A-Z])[\w-]*)\b)",
    re.IGNORECASE,
)
_MIN_WORDS = 4
# What a fragment loses in rank: it comes after every sentence, yet a paper of fragments keeps one.
FRAGMENT_MALUS = 2.0


def wanted(question: str) -> Want:
    """Return what `question` wants from an abstract (see the module docstring).

    A statement ("Statins reduce stroke.", a claim to cite) wants the finding that bears on it.
    """
    if not _ASKED.search(question):
        return Want.FINDING
    if _MOTIVATION.search(question):
        return Want.MOTIVATION
    if _DEFINITION.search(question) and not _ASKS_FINDING.search(question):
        return Want.DEFINITION
    return Want.FINDING


def relative_position(i: int, n: int) -> float:
    """Where sentence `i` of `n` sits in its abstract: 0 the first, 1 the last."""
    return i / (n - 1) if n > 1 else 0.0


def role_weight(
    want: Want,
    role: str,
    term_share: float = 0.0,
    position: float = 0.0,
    first: bool = False,
) -> float:
    """Return what a sentence of `role` adds to its rank for a question that wants `want`.

    Args:
        want: what the question wants.
        role: the sentence's role.
        term_share: the share of the question's terms the sentence holds.
        position: the sentence's `relative_position` in its abstract (findings come late).
        first: whether it is the abstract's first sentence to hold its largest share of the
            question's terms (a thing is introduced where it is first named).
    """
    weights = ROLE_WEIGHTS[want]
    return (
        weights.get(role, 0.0)
        + weights.get("terms", 0.0) * term_share
        + weights.get("position", 0.0) * position
        + weights.get("first", 0.0) * first
    )


def first_naming(shares: Sequence[float]) -> int:
    """Index of the first sentence holding the largest share of the question's terms (-1: none
    holds any)."""
    top = max(shares, default=0.0)
    return next(i for i, x in enumerate(shares) if x == top) if top > 0 else -1


def is_fragment(sentence: str) -> bool:
    """Return whether `sentence` is no sentence: "To determine whether X.", "Cohort study."."""
    return len(sentence.split()) < _MIN_WORDS or bool(_FRAGMENT.match(sentence.strip()))


def rank_bonuses(want: Want, pairs: Iterable[tuple[str, str]]) -> np.ndarray:
    """Return what each (sentence, role) of one paper adds to its cosine when the paper's
    sentences are ranked for a question or claim that wants `want`: its role's weight, less
    `FRAGMENT_MALUS` for a fragment."""
    pairs = list(pairs)
    return np.array(
        [
            role_weight(want, role, position=relative_position(i, len(pairs)))
            - FRAGMENT_MALUS * is_fragment(s)
            for i, (s, role) in enumerate(pairs)
        ]
    )
