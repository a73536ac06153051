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

It is asked of messages that nothing else answers: a message with no search term, or one whose
search finds no paper to answer from. A message whose words do find papers is asked too, by a
second judgement over the first one's logit and what its search found (`overview_probability`):
"full paper list?", "what are your capabilities" and "show me everything you have" were
answered from the papers holding "full", "capabilities" and "everything", because one paper's
incidental word covers a one-word question. With an embedding model other than the bundled one
the weights cannot read the vector, and the answer is as it was without this judgement.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from rag.answer.abstention import (
    Decision,
    documents_holding,
    logistic,
    question_terms,
)
from rag.answer.references import asks_for_more, refers_back, refers_by_pronoun
from rag.answer.vector_model import fitted_weights, vector_logit
from rag.index.paper_index import Index
from rag.ingest.wanted import is_question
from rag.text import CHAT_WORDS, CONTENT_WORD

# What the second judgement reads of a message that was searched (`overview_probability`).
SEARCHED_FEATURES = ("logit", "cosine", "answerable", "names", "refers", "terms")

WEIGHTS = Path(__file__).with_name("model") / "topicless.json"
# "love it", "got it, thanks" after an answer point back by a pronoun, yet are small talk
# (`small_talk`): the judgement's probability at which such a message is read so, the
# lowest above every fitting follow-up that could be small talk ("hm, could you explain it like
# I'm new to this": 0.615; `bench/answers/pronoun_chat.py`, bench/results/pronoun_chat.md).
PRONOUN_CHAT_BAR = 0.65


def weights() -> dict[str, Any]:
    """The fitted weights and bar (bench/answers/subjectless_followups.py --fit --write)."""
    return fitted_weights(WEIGHTS)


def probability(index: Index, message: str) -> float | None:
    """Return the fitted probability that `message` asks about the collection or nothing (None:
    the index's embedding model is not the one the weights read)."""
    logit = message_logit(index, message)
    return None if logit is None else 1.0 / (1.0 + math.exp(-logit))


def message_logit(index: Index, message: str) -> float | None:
    """Return the fitted logit that `message` asks about the collection or nothing, from its
    MiniLM vector alone (None: the weights cannot read this index's vectors)."""
    fitted = weights()
    return vector_logit(index, message, fitted["coef"], fitted["intercept"])


def searched_features(
    index: Index, message: str, logit: float, decision: Decision, query: str | None = None
) -> list[float]:
    """Return `SEARCHED_FEATURES` of a `message` searched as `query` (its words as read, by
    default the message): the vector's `logit`; its best passage's cosine and the probability
    the collection has a paper on it (`decision`); whether it names an acronym or method the
    collection holds, refers back ("it", "them") or asks for more ("go on"); log(1 + its term
    count)."""
    terms = question_terms(index, query or message)
    return [
        logit,
        decision.signals.cosine,
        decision.probability,
        float(any(name for _, name in terms)),
        float(refers_back(message) or asks_for_more(message)),
        math.log1p(len(terms)),
    ]


def overview_probability(
    index: Index, message: str, decision: Decision, query: str | None = None
) -> float | None:
    """Return the probability that a `message` searched as `query`, whose search `decision`
    was made, asks about the collection or nothing (None: the weights cannot read this
    index's vectors).

    A logistic regression over `searched_features`, fitted by
    `bench/answers/subjectless_followups.py --fit --write` on the same labelled messages and
    the set follow-ups' turns, the first judgement's logit cross-fitted; its bar lets no
    fitting message about papers through (bench/results/topicless.md).
    """
    logit = message_logit(index, message)
    if logit is None:
        return None
    fitted = weights()["searched"]
    row = np.array(searched_features(index, message, logit, decision, query))
    return float(
        logistic(row, fitted["mean"], fitted["scale"], fitted["coef"], fitted["intercept"])
    )


def searched_asks_no_paper(
    index: Index, message: str, decision: Decision, query: str | None = None
) -> bool:
    """Return whether a searched `message` asks about the collection or nothing, not papers."""
    p = overview_probability(index, message, decision, query)
    return p is not None and p >= float(weights()["searched"]["bar"])


def asks_no_paper(index: Index, message: str) -> bool | None:
    """Return whether `message` asks about the collection itself, or nothing, not about papers
    (None: the weights cannot read this index's vectors)."""
    p = probability(index, message)
    return None if p is None else p >= float(weights()["bar"])


def may_be_small_talk(index: Index, message: str, terms: list[tuple[str, bool]]) -> bool:
    """Whether `message`, which points back by a pronoun alone ("love it"), could be small talk:
    it asks nothing (no question, no request for more) and none of its search `terms` is in a
    paper ("show me papers similar to it" names "similar": a request to search)."""
    return refers_by_pronoun(message) and _asks_nothing_held(index, message, terms)


def small_talk(index: Index, message: str, terms: list[tuple[str, bool]]) -> bool:
    """Whether `message` is small talk, not a follow-up on the last answer's papers, though it
    could be one: it points back by a pronoun alone ("got it, thanks", `may_be_small_talk`), by
    nothing, in words no paper holds ("ty", "kk"), or says a word of chat (`_chat_aside`), asks
    nothing, and the judgement reads it as asking no paper at `PRONOUN_CHAT_BAR` ("eli5",
    0.649, stays a follow-up)."""
    unheld = bool(terms) and not refers_back(message) and _asks_nothing_held(index, message, terms)
    if not (unheld or may_be_small_talk(index, message, terms) or _chat_aside(message)):
        return False
    p = probability(index, message)
    return p is not None and p >= PRONOUN_CHAT_BAR


def _chat_aside(message: str) -> bool:
    """Whether `message` says a word of chat ("thanks", "great", "cool") and asks nothing, its
    other words then saying what the chat is about ("thanks, that's helpful", where "helpful"
    is a word of the papers): the judgement's bar decides, as for a pronoun."""
    words = {w.lower() for w in CONTENT_WORD.findall(message)}
    return bool(words & _CHAT) and _asks_nothing(message)


_CHAT = frozenset(CHAT_WORDS.split())


def _asks_nothing_held(index: Index, message: str, terms: list[tuple[str, bool]]) -> bool:
    """`_asks_nothing`, and none of its search `terms` in a paper."""
    return _asks_nothing(message) and not any(
        len(documents_holding(index, t, name)) for t, name in terms
    )


def _asks_nothing(message: str) -> bool:
    """No question and no request for more ("go on")."""
    return not asks_for_more(message) and not is_question(message)
