"""Whether a message asks about the collection itself, or nothing at all, rather than papers.

"which topics does the collection cover?", "list every paper you have", "ty", "cool" and "good
morning" ask nothing of any paper; "results?" or "how?" after an answer ask
about the papers just shown, and "lasagna recipe" asks about a topic the collection lacks.
Searching the first kind says "the collection has no paper on this question", which is false,
or quotes a paper nobody asked about; it should get the collection overview
(rag/answer/overview.py). Which words a message holds does not tell them apart (a list of words
misses the next phrasing), so one calibrated judgement does: a logistic regression over the
message's MiniLM vector, fitted by `bench/answers/subjectless_followups.py --fit --write` on the
fitting parts of bench/data/subjectless_followups.jsonl (collection and chat messages against
follow-ups on an answer), generic_followups.jsonl and paper_questions.jsonl (held-out table:
bench/results/topicless.md).

It is asked only of messages that nothing else answers: a message with no search term, or one
whose search finds no paper to answer from. With an embedding model other than the bundled one
the weights cannot read the vector, and the answer is as it was without this judgement.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Any

from rag.answer.abstention import vector_logit
from rag.index.paper_index import Index

WEIGHTS = Path(__file__).with_name("model") / "topicless.json"


@functools.cache
def weights() -> dict[str, Any]:
    """The fitted weights and bar (bench/answers/subjectless_followups.py --fit --write)."""
    return dict(json.loads(WEIGHTS.read_text(encoding="utf-8")))


def probability(index: Index, message: str) -> float | None:
    """Return the fitted probability that `message` asks about the collection or nothing (None:
    the index's embedding model is not the one the weights read)."""
    fitted = weights()
    logit = vector_logit(index, message, fitted["coef"], fitted["intercept"])
    return None if logit is None else 1.0 / (1.0 + math.exp(-logit))


def asks_no_paper(index: Index, message: str) -> bool | None:
    """Return whether `message` asks about the collection itself, or nothing, not about papers
    (None: the weights cannot read this index's vectors)."""
    p = probability(index, message)
    return None if p is None else p >= float(weights()["bar"])
