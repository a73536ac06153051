"""Whether a question's word names what it is about, or only the asker's situation or request.

A question word that no paper holds counts against answering it (`rag/answer/abstention.py`):
rightly for "sourdough" or "hallucination", wrongly for "for my thesis I need work on federated
learning", which was told the collection had no paper on it because no abstract says "thesis" or
"need". A list of such words misses the next one ("dissertation", "seminar", "my supervisor"),
so one calibrated judgement reads each such word's MiniLM vectors (`readings`): a logistic
regression fitted by `bench/answers/topic_words.py --write` on the fitting part (767) of 1,149
labelled words (held-out table: bench/results/topic_words.md). Its bar keeps 99% of the fitting
topic words, cross-validated, so a word is left out only when the judgement is fairly sure it
names no topic. Names and acronyms as typed ("EHR", "PhD", "ConPress") are never asked about;
with an embedding model other than the bundled one the weights cannot read the vectors, and
every word counts as before.
"""

from __future__ import annotations

import math
import weakref
from pathlib import Path
from typing import Any

from rag.answer.vector_model import fitted_weights, vectors_logit
from rag.index.paper_index import Index

WEIGHTS = Path(__file__).with_name("model") / "topic_words.json"


def readings(word: str) -> list[str]:
    """Return the texts whose vectors, end to end, the judgement reads: the word alone, and in a
    frame that asks for it as a topic (10-fold cross-validated accuracy on the fitting words:
    0.902, against 0.890 for the word alone)."""
    return [word, f"research on {word}"]


def weights() -> dict[str, Any]:
    """Return the fitted weights and bar (bench/answers/topic_words.py --write)."""
    return fitted_weights(WEIGHTS)


# Judged words' probabilities, per embedder (an index opened with another embedder judges
# afresh); None where the weights cannot read its vectors.
_judged: weakref.WeakKeyDictionary[Any, dict[str, float | None]] = weakref.WeakKeyDictionary()


def _probability(index: Index, word: str) -> float | None:
    judged = _judged.setdefault(index.embedder, {})
    low = word.lower()
    if low not in judged:
        fitted = weights()
        logit = vectors_logit(index, readings(low), fitted["coef"], fitted["intercept"])
        judged[low] = None if logit is None else 1.0 / (1.0 + math.exp(-logit))
    return judged[low]


def names_topic(index: Index, word: str) -> bool:
    """Return whether `word` may name a question's topic (True when the weights cannot tell)."""
    p = _probability(index, word)
    return p is None or p >= weights()["bar"]


def may_frame(index: Index, word: str) -> bool:
    """Return whether `word`, no paper's, before "on"/"about" may be the asker's frame ("a
    survey on X", "a tutorial about X") rather than the topic ("the seasons on Earth"): below
    the bar that keeps 90% of the fitting topic words (False when the weights cannot tell)."""
    p = _probability(index, word)
    return p is not None and p < weights()["framed_bar"]
