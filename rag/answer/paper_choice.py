"""Which retrieved papers an answer uses: one calibrated judgement per paper, for every phrasing.

Whether a paper addresses a question is read from what can be measured of that question and
that paper, never from how the question is worded ("which papers", "summarize", a bare keyword
query all get the same judgement):

- `cosine`: the cosine of the paper's best passage, and `cosine_gap`, how far it falls below
  the best paper's;
- `rank`: log(1 + its place in the fused ranking), and `fused`, its fused score over the best;
- `lexical`: its BM25 score over the most the question's terms could give, and `lexical_share`,
  over the best retrieved paper's;
- `coverage`: the IDF-weighted share of the question's distinctive terms it holds
  (`abstention.term_coverage`), and `coverage_gap` below the best coverage;
- `terms`: log(1 + the question's term count), since short questions reach lower cosines;
- `answerable`: the question-level probability that the collection has a paper on it
  (`abstention.decide`), so that a paper of an off-topic question does not qualify alone.

A logistic regression fitted by `bench/answers/paper_choice.py` on labelled question-paper pairs
(`bench/data/paper_questions.jsonl` and `phrasing_needs.jsonl`, their fitting part) combines them;
a paper takes part when its probability reaches `Settings.paper_probability`, chosen on the
fitting part (the held-out figures are in `bench/results/paper_choice.md`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag.answer.abstention import (
    BM25_K1,
    Decision,
    asked_without,
    decide,
    documents_holding,
    idf,
    logistic,
    negated_only,
    question_terms,
    sides,
    term_coverage,
)
from rag.index.paper_index import Index
from rag.records import Hit
from rag.settings import Settings

FEATURES = (
    "cosine",
    "cosine_gap",
    "rank",
    "fused",
    "lexical",
    "lexical_share",
    "coverage",
    "coverage_gap",
    "terms",
    "answerable",
)
# Fitted by bench/answers/paper_choice.py (standardised features; bench/results/paper_choice.json).
MEAN = (
    0.27535,
    0.183921,
    1.510441,
    0.519153,
    0.07911,
    0.386461,
    0.279522,
    0.513187,
    1.590914,
    0.829813,
)
SCALE = (
    0.120352,
    0.125703,
    0.695407,
    0.250588,
    0.079816,
    0.318356,
    0.315801,
    0.36013,
    0.466004,
    0.30981,
)
COEF = (
    0.085545,
    -1.582603,
    -0.305695,
    0.168777,
    0.284399,
    0.639046,
    0.927725,
    -0.641971,
    0.102549,
    0.227898,
)
INTERCEPT = -3.942086
# A question the abstention signals reject is answered by one paper alone (answer_probability)
# only above this answerability: the least that keeps the dev chat sessions' off-topic turns
# abstaining ("recent results on protein structure prediction?": 0.051), at no cost held out.
LEAST_ANSWERABILITY_ALONE = 0.06
# The least probability on the whole question that lets a paper take its probability on one of
# the question's alternatives (`judge`): the best F1 of the papers chosen on the fitting part
# (recall 0.830 -> 0.846, precision 0.886 -> 0.879; `bench/answers/paper_choice.py gate`,
# bench/results/paper_choice_alternatives_gate.md).
LEAST_FOR_ALTERNATIVE = 0.2


@dataclass(frozen=True)
class Judged:
    """One retrieved paper with the probability that it addresses the question."""

    hit: Hit
    probability: float


def features(
    index: Index,
    question: str,
    hits: Sequence[Hit],
    terms: list[tuple[str, bool]],
    decision: Decision,
) -> np.ndarray:
    """Return one row of `FEATURES` per hit (hits in fused order, best first)."""
    if not hits:
        return np.zeros((0, len(FEATURES)))
    bm25 = index.bm25()
    n = max(1, len(bm25))
    possible = 0.0
    for term, name in terms:
        possible += idf(n, len(documents_holding(index, term, name))) * (BM25_K1 + 1)
    all_scores = bm25.scores(question) if terms else None
    without = asked_without(index, question)
    plain = {term for term, name in terms if not name and term not in without}
    lexical = []
    for h in hits:
        row = bm25.position(h.paper.id)
        value = 0.0
        if possible > 0 and row is not None and all_scores is not None:
            # "without ... reinforcement learning": what the paper only says it does without
            # scores nothing (not what a denied claim names: "neither ... for diagonal linear
            # networks" is Matveev et al.'s own topic)
            unsaid = plain & negated_only(h.paper, bm25, done_without=True)
            score = float(all_scores[row])
            if unsaid:
                score = max(0.0, score - float(bm25.stem_scores(unsaid)[row]))
            value = score / possible
        lexical.append(value)
    coverage = [term_coverage(index, terms, h.paper.id, without) if terms else 0.0 for h in hits]
    best_cos = max(h.relevance for h in hits)
    best_fused = max(hits[0].score, 1e-9)
    best_lex = max(max(lexical), 1e-9)
    best_cov = max(coverage)
    n_terms = math.log1p(len(terms))
    rows = [
        (
            h.relevance,
            best_cos - h.relevance,
            math.log1p(i),
            h.score / best_fused,
            lexical[i],
            lexical[i] / best_lex,
            coverage[i],
            best_cov - coverage[i],
            n_terms,
            decision.probability,
        )
        for i, h in enumerate(hits)
    ]
    return np.array(rows, dtype=np.float64)


def probabilities(rows: np.ndarray) -> np.ndarray:
    """Return the fitted model's probability for each row of `features`."""
    return logistic(rows, MEAN, SCALE, COEF, INTERCEPT)


def judge(
    index: Index,
    question: str,
    hits: Sequence[Hit],
    terms: list[tuple[str, bool]],
    decision: Decision,
) -> list[Judged]:
    """Return each hit with the probability that it addresses `question`, in the hits' order.

    A question naming alternatives ("group fairness or equalized odds", "DPO vs RLHF") is
    addressed by a paper on either, one framed by a word no paper holds ("a survey on X") by a
    paper on X (`abstention.sides`): each side is judged on its own words too, and a
    paper takes the best of those, provided the whole question gives it at least
    `LEAST_FOR_ALTERNATIVE` (a paper on "privacy" alone does not answer "security or privacy
    of federated clients").
    """
    p = probabilities(features(index, question, hits, terms, decision))
    side = alternative_probabilities(index, question, hits, terms, decision)
    p = np.where(p >= LEAST_FOR_ALTERNATIVE, np.maximum(p, side), p)
    return [Judged(h, float(q)) for h, q in zip(hits, p, strict=True)]


def alternative_probabilities(
    index: Index,
    question: str,
    hits: Sequence[Hit],
    terms: list[tuple[str, bool]],
    decision: Decision,
) -> np.ndarray:
    """Each hit's best probability on one of the question's `sides`, judged on that side's own
    words (0 without sides), as `judge` weighs it."""
    best = np.zeros(len(hits))
    for words in sides(index, question):
        own = question_terms(index, words)
        if own and len(own) < len(terms):
            best = np.maximum(best, probabilities(features(index, words, hits, own, decision)))
    return best


def chosen(judged: Sequence[Judged], threshold: float) -> list[Hit]:
    """Return the papers whose probability reaches `threshold`, most probable first."""
    kept = [j for j in judged if j.probability >= threshold]
    return [j.hit for j in sorted(kept, key=lambda j: -j.probability)]


def answers_alone(judged: Sequence[Judged], decision: Decision, settings: Settings) -> bool:
    """Whether one paper's probability answers the question though the collection signals
    reject it (`Settings.answer_probability`, above `LEAST_ANSWERABILITY_ALONE`)."""
    best = max((j.probability for j in judged), default=0.0)
    return best >= settings.answer_probability and decision.probability >= LEAST_ANSWERABILITY_ALONE


def answered_from(index: Index, question: str, hits: Sequence[Hit]) -> list[Hit]:
    """The papers of `hits` that an answer to `question` would be drawn from by this judgement
    (none when the collection signals reject it and no paper answers alone), most probable
    first: what the Library's search lists beside the papers its words match."""
    if not hits:
        return []
    settings = index.settings
    decision = decide(index, question, list(hits), settings.min_relevance)
    judged = judge(index, question, hits, question_terms(index, question), decision)
    if not decision.answerable and not answers_alone(judged, decision, settings):
        return []
    return chosen(judged, settings.paper_probability)
