"""Whether a message is everyday talk that no paper comes near ("whats 18 times 27").

Searched, "whats 18 times 27" quoted ten papers on inference time ("times"), and after an answer
it was asked of that answer's paper as a follow-up ("whats 18 times 27 (CPO)?"). Two judgements
together tell such talk apart:

- its MiniLM vector reads as everyday talk rather than research: a logistic regression fitted by
  `bench/answers/everyday_model.py --write` on the fitting parts of the labelled everyday
  messages (bench/data/offtopic_messages.jsonl, everyday_common_words.jsonl) against the
  labelled research questions and follow-ups, SciFact's biomedical claims and phrases from
  CSAbstruct's abstracts, its bar letting through 99% of the fitting research messages,
  cross-validated. Health and other sciences are on neither side: over a biomedical collection
  they are research.
- no paper comes near it: the best passage cosine of its own search is below the floor that
  95% of the fitting everyday messages stay under. The collection decides what is research:
  "best treatment for lower back pain" is everyday over the seeds, not over papers on it, and
  "what's the best way to cluster my data?" comes near BASIL.

Held-out table: bench/results/everyday_model.md. With an embedding model other than the bundled
one the weights cannot read the vectors, and no message is everyday talk.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rag.answer.vector_model import fitted_weights, vector_logit
from rag.index.paper_index import Index
from rag.records import Hit

WEIGHTS = Path(__file__).with_name("model") / "everyday.json"


def weights() -> dict[str, Any]:
    """Return the fitted weights, bar and floor (bench/answers/everyday_model.py --write)."""
    return fitted_weights(WEIGHTS)


def reads_everyday(index: Index, message: str) -> bool:
    """Return whether `message`'s vector reads as everyday talk (False when the weights cannot
    tell)."""
    fitted = weights()
    logit = vector_logit(index, message, fitted["coef"], fitted["intercept"])
    return logit is not None and logit > fitted["bar"]


def everyday_talk(index: Index, message: str, hits: Sequence[Hit]) -> bool:
    """Return whether `message` is everyday talk that none of its search's `hits` comes near."""
    near = max((h.relevance for h in hits), default=0.0)
    return near < weights()["floor"] and reads_everyday(index, message)
