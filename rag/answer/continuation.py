"""Whether a message with words of its own still asks about the last answer's papers.

"main limitation?", "accuracy cost?" or "evaluated how?" after an answer hold no pronoun and name
no paper, so `condense` leaves them as typed; searched on their own words they find whichever
paper mentions limitations, or nothing. A new topic ("graph out-of-distribution detection") or
an off-topic message ("NeRF rendering speed") must still be searched as typed. One calibrated
judgement tells them apart, from what the message's own search shows, never from its wording:

- `rank`: log of the place of the last answer's best-placed paper among the message's own hits
  (one past the last hit when none is there);
- `previous`: the per-paper probability (rag/answer/paper_choice.py) that the best of the last
  answer's papers addresses the message, judged beside the message's own hits;
- `terms`: log(1 + the message's term count): a follow-up leans on the answer and names little;
- `cosine`: the best passage cosine of the message's own search: a new topic finds its paper;
- `unknown`: the share of the message's terms that no paper holds ("robot grasping"): words
  from outside the collection are a subject it lacks, not an aspect of its papers;
- `aspect`: whether the message names only an aspect of papers ("limitations?", "code?",
  "training cost") rather than a subject ("auctions", "DPO vs RLHF", "pizza in Naples"): a
  linear model over the message's MiniLM vector, fitted on the fitting part's messages and on
  the standalone questions of `bench/data/paper_questions.jsonl` (its fitting part). With an
  embedding model other than the bundled one it is left at its mean, and weighs nothing.

A logistic regression fitted by `bench/answers/generic_followups.py --fit` on the fitting
sessions of `bench/data/generic_followups.jsonl` combines them (the `aspect` values it is fitted
on are cross-fitted); the message is taken as a follow-up on those papers when its probability
reaches `Settings.continue_probability`, chosen there too. Weights: `model/continuation.json`;
held-out figures: bench/results/continuation.md. It is then asked of those of them
that the same per-paper judgement, among them alone, finds on its words (`among`).

A message taken for a follow-up may still ask the collection (`asks_the_collection`):
"anything about graphs?" after an answer on one graph paper was kept to that paper, while the
collection has three more. It is when the message names a subject, not an aspect (its `aspect`
logit at most `SUBJECT_ASPECT`), and its own search's per-paper judgement passes both some of
the last answer's papers and some others: it is then asked as typed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag.answer import paper_choice
from rag.answer.abstention import Decision, decide, documents_holding, logistic
from rag.answer.vector_model import fitted_weights, vector_logit
from rag.index.paper_index import Index
from rag.index.retrieve import hits_of
from rag.records import Hit, Paper

FEATURES = ("rank", "previous", "terms", "cosine", "unknown", "aspect")
# The `aspect` logit at or below which a message taken for a follow-up names a subject: on the
# fitting sessions of generic_followups.jsonl and broader_followups.jsonl, the bar that sends the
# most broader questions to the collection (16 of 25 taken for follow-ups) and the fewest
# follow-ups (1 of 52; held out 12 of 14 and 1 of 26: bench/results/continuation_subject.md,
# `bench/answers/generic_followups.py --subject`).
SUBJECT_ASPECT = -1.0
WEIGHTS = Path(__file__).with_name("model") / "continuation.json"


def weights() -> dict[str, Any]:
    """The fitted weights (bench/answers/generic_followups.py --fit --write)."""
    return fitted_weights(WEIGHTS)


def aspect(index: Index, message: str) -> float:
    """Return the logit that `message` names only an aspect of papers, not a subject (its
    fitted mean when the weights cannot read this index's vectors: they read MiniLM only)."""
    logit = aspect_logit(index, message)
    return float(weights()["aspect"]["mean"]) if logit is None else logit


def aspect_logit(index: Index, message: str) -> float | None:
    """Return the `aspect` logit of `message` (None: the weights cannot read its vector)."""
    fitted = weights()["aspect"]
    return vector_logit(index, message, fitted["coef"], fitted["intercept"])


def signals(
    index: Index,
    message: str,
    previous: Sequence[Paper],
    hits: Sequence[Hit],
    terms: list[tuple[str, bool]],
    decision: Decision,
) -> list[float]:
    """Return the `FEATURES` of `message` but `aspect`, after an answer that cited `previous`,
    from what its own search gave: its `hits` (best first), its `terms` (`question_terms`) and
    its `decision` (`abstention.decide` over those hits), which the answer reuses."""
    ids = {p.id for p in previous}
    rank = next((i for i, h in enumerate(hits, 1) if h.paper.id in ids), len(hits) + 1)
    found = {h.paper.id for h in hits}
    missing = [h for h in hits_of(index, message, previous, list(hits)) if h.paper.id not in found]
    judged = paper_choice.judge(index, message, [*hits, *missing], terms, decision)
    best = max((j.probability for j in judged if j.hit.paper.id in ids), default=0.0)
    cosine = max((h.relevance for h in hits), default=0.0)
    absent = sum(not len(documents_holding(index, t, name)) for t, name in terms)
    unknown = absent / len(terms) if terms else 0.0
    return [math.log(rank), best, math.log1p(len(terms)), cosine, unknown]


def features(
    index: Index,
    message: str,
    previous: Sequence[Paper],
    hits: Sequence[Hit],
    terms: list[tuple[str, bool]],
    decision: Decision,
) -> np.ndarray:
    """Return the `FEATURES` of `message` after an answer that cited `previous` (see `signals`)."""
    row = [*signals(index, message, previous, hits, terms, decision), aspect(index, message)]
    return np.array(row, dtype=np.float64)


def probability(row: np.ndarray) -> float:
    """Return the fitted probability that a message with these `features` is a follow-up."""
    w = weights()
    return float(logistic(row[None, :], w["mean"], w["scale"], w["coef"], w["intercept"])[0])


def continues(
    index: Index,
    message: str,
    previous: Sequence[Paper],
    hits: Sequence[Hit],
    terms: list[tuple[str, bool]],
    decision: Decision,
    threshold: float,
) -> bool:
    """Return whether `message`, searched as typed (see `signals`), follows up on `previous`."""
    if not previous or not hits:
        return False
    row = features(index, message, previous, hits, terms, decision)
    return probability(row) >= threshold


def among(
    index: Index,
    message: str,
    previous: Sequence[Paper],
    hits: Sequence[Hit],
    terms: list[tuple[str, bool]],
    least: float,
    bar: float,
) -> list[Paper]:
    """Return the papers of `previous` that address `message` judged among themselves alone
    (ranked as its own search ranks them), most probable first; with none past `bar`, the best.

    This is how a choice among a set is judged ("Which of them ...?", rag/answer/pipeline.py):
    the probability a paper stands out from the others on the message's words.
    """
    place = {h.paper.id: i for i, h in enumerate(hits)}
    theirs = hits_of(index, message, previous, list(hits))
    theirs.sort(key=lambda h: place.get(h.paper.id, len(place)))
    ranked = [Hit(h.paper, i, h.score, h.snippet, h.relevance) for i, h in enumerate(theirs, 1)]
    if not ranked:
        return []
    judged = paper_choice.judge(
        index, message, ranked, terms, decide(index, message, ranked, least)
    )
    judged.sort(key=lambda j: -j.probability)
    kept = [j.hit.paper for j in judged if j.probability >= bar]
    return kept or [judged[0].hit.paper]


def asks_the_collection(
    index: Index,
    message: str,
    previous: Sequence[Paper],
    hits: Sequence[Hit],
    terms: list[tuple[str, bool]],
    decision: Decision,
    bar: float,
) -> bool:
    """Return whether a `message` taken for a follow-up on `previous` asks the collection: it
    names a subject (`SUBJECT_ASPECT`), the collection has a paper on it (`decision`), and the
    per-paper judgement over its own `hits` passes, at `bar`, some of `previous` and some other
    papers ("anything about graphs?" after one graph paper). False when the weights cannot read
    this index's vectors."""
    logit = aspect_logit(index, message)
    if logit is None or logit > SUBJECT_ASPECT or not decision.answerable:
        return False
    ids = {p.id for p in previous}
    passed = [
        j.hit.paper.id in ids
        for j in paper_choice.judge(index, message, hits, terms, decision)
        if j.probability >= bar
    ]
    return any(passed) and not all(passed)
