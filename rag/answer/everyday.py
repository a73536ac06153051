"""Whether a message is everyday talk rather than about research ("whats 18 times 27").

After an answer, a message with words of its own but no pronoun may still ask about the papers
just shown ("main limitation?", `rag/answer/continuation.py`), and that judgement read "whats 18
times 27" and "how many hours of sleep does a 15-year-old need?" as such follow-ups: the answer
quoted the last paper under them. Whether a message is about research at all is one calibrated
judgement of its MiniLM vector: a logistic regression fitted by
`bench/answers/everyday_model.py --write` on the fitting parts of the labelled everyday messages
(bench/data/offtopic_messages.jsonl, everyday_common_words.jsonl) against the labelled research
questions and follow-ups, in and out of the collection; its bar lets through 99% of the fitting
research messages, cross-validated (held-out table: bench/results/everyday_model.md). With an
embedding model other than the bundled one the weights cannot read the vectors, and no message
is everyday.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rag.answer.vector_model import fitted_weights, vector_logit
from rag.index.paper_index import Index

WEIGHTS = Path(__file__).with_name("model") / "everyday.json"


def weights() -> dict[str, Any]:
    """Return the fitted weights and bar (bench/answers/everyday_model.py --write)."""
    return fitted_weights(WEIGHTS)


def is_everyday(index: Index, message: str) -> bool:
    """Return whether `message` is everyday talk, not about research (False when the weights
    cannot tell)."""
    fitted = weights()
    logit = vector_logit(index, message, fitted["coef"], fitted["intercept"])
    return logit is not None and logit > fitted["bar"]
