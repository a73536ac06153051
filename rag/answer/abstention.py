"""Whether the collection has a paper on a question: a decision from several signals.

One cosine threshold failed short questions ("Tell me about ConPress.") that name a paper's own
method but reach a low cosine against a 120-word passage, and passed near misses ("How does
dropout prevent overfitting?") whose words are common in machine learning. A reader looks at
more than that, and so does this decision:

- `dense`: the cosine of the best passage among the retrieved papers;
- `coverage`: how much of the question's distinctive vocabulary the paper that has most of it
  among the first `COVERAGE_RANK` contains (the best-fused paper need not be the one naming
  the question's rarest term):
  the question's terms (stemmed as BM25 stems them, asking words such as "tell", "papers" left
  out) weighted by their IDF over the collection, acronyms and method names (ConPress, SVD,
  GRPO, RoPE) `NAME_WEIGHT` times more; a term the collection never uses counts fully against,
  unless its word names no topic ("thesis", "need": `rag/answer/topic_words.py`);
- `lexical`: the best paper's BM25 score over the most the question's terms could give;
- `margin`: how far the best paper's fused score stands above the fifth paper's;
- `terms`: how many terms the question has (short questions reach lower cosines), also
  multiplied with `dense` and with `coverage`.

They are combined by a logistic regression fitted by `bench/answers/abstention.py` on labelled
questions (seed questions and realistic chat questions that have a paper, SciFact claims over
SciFact, off-topic and near-topic questions over the seeds, and each collection's questions
asked of the other), and the question is answered when the probability reaches
`Settings.min_relevance` (or, for a claim-length question, when its cosine passes the old
gate: see `LONG_TERMS`). The coefficients below are that script's output
(`bench/results/abstention.md` has the held-out precision and recall).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rag.answer import topic_words
from rag.answer.negation import done_without_stems, negated_only_stems, negated_spans
from rag.answer.references import lead_end
from rag.index.lexical import BM25Index, paper_text, stop_words
from rag.index.paper_index import Index
from rag.index.spelling import english_slips
from rag.records import Hit, Paper
from rag.text import (
    FRAME_WORDS,
    NUMBER_WORDS,
    STOPWORDS,
    definitions,
)

# A question of this many terms or more reads like a claim: there the passage cosine alone is
# telling, and the cosine gate bench/answers/calibrate.py chose (SciFact: 98.0% of answerable claims
# answered, 98.9% of cross-domain ones abstained) also lets it be answered.
LONG_TERMS = 6
LONG_MIN_COSINE = 0.40
NAME_WEIGHT = 3.0  # an acronym or method name weighs this many times a plain term of equal IDF
COVERAGE_RANK = 2  # coverage is the best among the papers at this rank or above
MARGIN_RANK = 5  # the margin is the best paper's fused score minus that of the paper at this rank
BM25_K1 = 1.5  # bm25s' default: a term adds at most idf x (k1 + 1) to a paper's score
FEATURES = ("dense", "coverage", "lexical", "margin", "terms", "dense_x_terms", "coverage_x_terms")
# Fitted by bench/answers/abstention.py (standardised features; see bench/results/abstention.json).
MEAN = (0.460428, 0.5112, 0.140108, 0.233413, 2.047811, 0.974761, 1.046552)
SCALE = (0.252906, 0.342712, 0.113689, 0.131276, 0.45276, 0.617527, 0.728695)
COEF = (2.029338, 3.05401, -0.302816, 0.408961, -0.655251, 2.538509, 0.333141)
INTERCEPT = 1.692255

_WORD = re.compile(r"(?u)\b\w\w+\b")  # bm25s' token pattern
_ALTERNATIVES = re.compile(r"\s*,?\s+or\s+|\s+versus\s+|\s+vs\.?\s+", re.IGNORECASE)
# How a question is asked, not what it is about (`rag.text.FRAME_WORDS`). These stay out of the
# sentence choice's: "existing" and "collection" also tell it which sentence a question wants
# (bench/results/asking_words.md).
_ASKING = FRAME_WORDS


@dataclass(frozen=True)
class Signals:
    """What the decision looks at, for one question and its retrieved papers."""

    dense: float
    coverage: float
    lexical: float
    margin: float
    terms: float  # log(1 + number of distinct terms)
    cosine: float = 0.0  # the best passage's cosine, as the old gate read it (= dense)

    @property
    def term_count(self) -> int:
        return round(math.expm1(self.terms))

    # A long claim's cosine is telling, a short question's much less: its rare words are. The
    # products let the model weigh each signal by the question's length.
    @property
    def dense_x_terms(self) -> float:
        return self.dense * self.terms

    @property
    def coverage_x_terms(self) -> float:
        return self.coverage * self.terms

    def vector(self) -> np.ndarray:
        return np.array([getattr(self, f) for f in FEATURES], dtype=np.float64)

    def to_dict(self) -> dict[str, float]:
        return {f: round(float(getattr(self, f)), 4) for f in (*FEATURES, "cosine")}


@dataclass(frozen=True)
class Decision:
    """Whether to answer, with the probability the collection has a paper on the question."""

    answerable: bool
    probability: float
    signals: Signals


def _is_name(word: str, first: bool) -> bool:
    """True for SVD, RoPE, ConPress, GPT-4 and capitalised words inside the question."""
    if re.search(r"[A-Z0-9]", word[1:]):
        return True
    return word[0].isupper() and not first


@functools.cache
def only_ranks(word: str) -> bool:
    """Whether `word` (lower case) is an adjective's or adverb's comparative or superlative
    ("cheapest", "faster", "newest"): it asks how the papers on a topic rank, as "best" and
    "better" do, not what the topic is. lemminflect's English dictionary tells these from words
    that only end alike ("interest", "forest", "transformer", "honest")."""
    from lemminflect import getAllLemmas

    lemmas = getAllLemmas(word)
    return any(base != word for pos in ("ADJ", "ADV") for base in lemmas.get(pos, ()))


def term_words(index: Index, question: str) -> list[re.Match[str]]:
    """The words of `question` that are its terms, as typed (`_words`): names, and the words a
    paper holds or that name a topic."""
    return [m for m, _, name, situation in _words(index, question) if not situation or name]


def only_asks(word: str) -> bool:
    """Whether `word` (lower case) says how a question is asked, not what about: a stop word,
    an asking word (`_ASKING`) or a number, in digits or words ("five")."""
    return word in stop_words() or word in _ASKING or word.isdigit() or word in NUMBER_WORDS


def _words(index: Index, question: str) -> Iterator[tuple[re.Match[str], str, bool, bool]]:
    """Yield each word of `question` that may be a term: (its match, its BM25 term, whether it
    is a name, whether it names no topic). A word no paper holds counts against answering,
    unless it names no topic ("thesis", "need" in "for my thesis I need work on federated
    learning": `topic_words`) or stands in a lead before "anything on X?" (`lead_end`)."""
    bm25 = index.bm25()
    reason = _ASKERS_REASON.search(question)
    lead = lead_end(question)  # "ok back to papers - anything on X?": its lead
    for i, match in enumerate(_WORD.finditer(question)):
        word = match.group()
        low = word.lower()
        if only_asks(low):
            continue
        term, name = bm25.stem(word), _is_name(word, i == 0)
        if reason and reason.start() > 0 and match.start() >= reason.start():
            yield match, term, name, True  # the asker's reason, not the topic
            continue
        held = name or any_paper_holds(index, term)
        before = match.end() <= lead  # a lead's word no paper holds ("back") is not asked about
        yield match, term, name, not held and (before or not _names_topic(index, word))


# Why the asker asks, after what they ask: "which papers deal with privacy, because I need them
# for a related work section". Its words say nothing of the topic, yet papers hold "related"
# and "section", which counted as topic words no paper on privacy holds (a new user, stop 63).
_ASKERS_REASON = re.compile(
    r"\b(?:because|since|as|cause|cuz)\s+(?:i|we|my|our|i'm|im|we're|i've|we've|i'd)\b[^.?!]*",
    re.IGNORECASE,
)


def _names_topic(index: Index, word: str) -> bool:
    """Whether `word`, which no paper holds, names a topic (`topic_words`); not when it is a
    slip of an English word that names none: "hapen" in "does grokking hapen because of
    weight decay?" was told no paper uses it (a new user, stop 63), while "happen" is a word of
    no topic, set aside as such (the most common of the English words one slip away). A word
    one slip from a word the papers hold ("recomendation"; "decding", one slip from "deciding"
    and from "decoding") is of their topic, whatever the judgement says of the word alone."""
    if not topic_words.names_topic(index, word):
        return False
    meant = english_slips(word.lower()) if word[1:].islower() else []
    stem = index.bm25().stem
    if not meant or any(any_paper_holds(index, stem(m)) for m in meant):
        return True  # "recomendation", "decding": a slip of the papers' own word is of their topic
    return topic_words.names_topic(index, meant[0])


def question_terms(index: Index, question: str, ranking: bool = True) -> list[tuple[str, bool]]:
    """Return the question's distinct BM25 terms, each with whether it is a name, but for the
    words no paper holds that name no topic (`_words`); with `ranking` False, nor those no paper
    holds that only rank the papers on the topic (`only_ranks`: "cheapest" in "cheapest way to
    align a model", which has papers on aligning models though none says which is cheapest)."""
    terms: dict[str, bool] = {}
    for match, term, name, situation in _words(index, question):
        unheld_rank = (  # the dictionary is read only for a word no paper holds
            not ranking and not any_paper_holds(index, term) and only_ranks(match.group().lower())
        )
        if not situation and not unheld_rank:
            terms[term] = terms.get(term, False) or name
    return list(terms.items())


def any_paper_holds(index: Index, term: str) -> bool:
    """Whether some indexed paper's text holds `term` (a BM25 stem)."""
    return bool(len(index.bm25().documents_with(term)))


def word_count(question: str) -> int:
    """Return how many words `question` has as its terms are read (bm25s' tokens)."""
    return len(_WORD.findall(question))


def word_spans(question: str) -> list[tuple[int, int]]:
    """Return where `question`'s words stand but its stop and asking words (`only_asks`) and
    its comparatives and superlatives (`only_ranks`): its topic words, as far as a reading
    without the collection can tell (`topic_spans` knows which words the collection holds)."""
    return [
        m.span()
        for m in _WORD.finditer(question)
        if not only_asks(word := m.group().lower()) and not only_ranks(word)
    ]


def topic_spans(index: Index, question: str) -> list[tuple[int, int]]:
    """Return where `question`'s words that say what it asks about stand (the words
    `question_terms` keeps, as typed): not "thesis" or "walk" in "walk me through federated
    learning for my thesis", nor "fastest" in "which is the fastest?", which ranks the papers
    on a topic without naming one."""
    return [
        m.span()
        for m, _, _, situation in _words(index, question)
        if not situation and not only_ranks(m.group().lower())
    ]


def without_situation_words(index: Index, question: str) -> str:
    """Return `question` without the words `question_terms` leaves out ("writing" in "I'm
    writing a survey on graph neural networks"), as a search reads it: no paper holds them, so
    they only move the question's vector off its topic."""
    dropped = {m.span() for m, _, _, situation in _words(index, question) if situation}
    if not dropped:
        return question
    kept = " ".join(_WORD.sub(lambda m: "" if m.span() in dropped else m.group(), question).split())
    return kept if _WORD.search(kept) else question


def words_no_paper_holds(index: Index, question: str) -> list[str]:
    """Return the question's topic words (as typed, in order) that no indexed paper's text
    holds in any form `term_coverage` counts ("PPO" in "DPO vs PPO?"), for saying so; not the
    comparatives and superlatives (`only_ranks`), which the decision does not count against."""
    missing: list[str] = []
    for match, term, name, situation in _words(index, question):
        word = match.group()
        if situation or word in missing or len(documents_holding(index, term, name)):
            continue
        if not only_ranks(word.lower()):
            missing.append(word)
    return missing


def signals(index: Index, question: str, hits: list[Hit]) -> Signals:
    """Return the signals of `question` over its retrieved `hits` (best first)."""
    if not hits:
        return Signals(0.0, 0.0, 0.0, 0.0, 0.0)
    bm25 = index.bm25()
    best = hits[0]
    row = bm25.position(best.paper.id)
    terms = question_terms(index, question, ranking=False)
    possible = sum(term_rarity(index, [t for t, _ in terms]).values()) * (BM25_K1 + 1)
    lexical = 0.0
    if possible > 0 and row is not None:
        lexical = float(bm25.scores(question)[row]) / possible
    # Against the fifth paper, not the second: a topic with two or three good papers still
    # stands above the rest, while an off-topic question's papers are all alike.
    fifth = hits[min(len(hits), MARGIN_RANK) - 1].score if len(hits) > 1 else 0.0
    cosine = max(h.relevance for h in hits)
    without = asked_without(index, question)
    return Signals(
        dense=cosine,
        coverage=max(
            term_coverage(index, terms, h.paper.id, without) for h in hits[:COVERAGE_RANK]
        ),
        lexical=lexical,
        margin=best.score - fifth,
        terms=math.log1p(len(terms)),
        cosine=cosine,
    )


def term_coverage(
    index: Index,
    terms: list[tuple[str, bool]],
    paper_id: str,
    without: frozenset[str] = frozenset(),
) -> float:
    """Return the IDF-weighted share of the question's `terms` that a paper's text contains.

    Names and acronyms weigh `NAME_WEIGHT` times more; a term the collection never uses counts
    fully against (its IDF is the highest). An acronym is held by a paper that has it in the
    singular or plural ("LLMs", "LLM") or spells out what the collection defines it as
    ("large language models", `rag.text.definitions`). A word the paper holds only where it
    says it does without it ("without ... reinforcement learning", "rehearsal-free") is not
    held (`rag.answer.negation`), unless the question asks for doing without it too
    (`without`, its `asked_without`: "methods that work without fine-tuning").
    """
    bm25 = index.bm25()
    n = max(1, len(bm25))
    row = bm25.position(paper_id)
    paper = index.papers.get(paper_id)
    weights, covered = 0.0, 0.0
    for term, name in terms:
        docs = documents_holding(index, term, name)
        weight = idf(n, len(docs)) * (NAME_WEIGHT if name else 1.0)
        weights += weight
        held = row is not None and len(docs) and bool(np.any(docs == row))
        # "without ... reinforcement learning": a word the paper only says it does without
        if held and (
            paper is None
            or term in without
            or not (
                spelled_out_only(index, term, paper) if name else term in negated_only(paper, bm25)
            )
        ):
            covered += weight
    return covered / weights if weights else 0.0


def spelled_out_only(index: Index, term: str, paper: Paper) -> bool:
    """Whether `paper` holds the acronym `term` only as the words it stands
    for, and says those only where it does without them: ConPress writes "without ... or
    reinforcement learning" and never "RL", so it does not hold "RL"."""
    forms = _acronym_forms(term)
    text = paper_text(paper)  # what BM25 reads of it has the acronym added (rag.index.acronyms)
    if any(re.search(rf"\b{re.escape(f)}", text, re.IGNORECASE) for f in forms):
        return False
    unsaid = negated_only(paper, index.bm25(), done_without=True)
    spelled = [set(stems) for stems in _spelled_out(index, forms)]
    return bool(spelled) and all(stems & unsaid for stems in spelled if stems)


def done_without_share(index: Index, terms: list[tuple[str, bool]], paper: Paper) -> float:
    """The IDF-weighted share of `terms` that `paper` names where it says what it does without
    (CELL works "without requiring target sensitive labels")."""
    bm25 = index.bm25()
    n = max(1, len(bm25))
    inside = done_without_stems(paper, bm25.stem)
    weights = [(idf(n, len(documents_holding(index, t, name))), t in inside) for t, name in terms]
    total = sum(w for w, _ in weights)
    return sum(w for w, held in weights if held) / total if total else 0.0


def asked_without(index: Index, question: str) -> frozenset[str]:
    """The stems of the words `question` asks to do without ("without fine-tuning")."""
    stem = index.bm25().stem
    return frozenset(
        stem(word.group())
        for a, b in negated_spans(question)
        for word in _WORD.finditer(question, a, b)
    )


def negated_only(paper: Paper, bm25: BM25Index, done_without: bool = False) -> frozenset[str]:
    """The stems `paper` holds only where it says it does without them (`rag.answer.negation`;
    `done_without`: only after "without", "rather than", "instead of", "free of", "-free")."""
    return negated_only_stems(paper, bm25.stem, bm25, done_without)


def term_rarity(index: Index, terms: Sequence[str]) -> dict[str, float]:
    """Each of `terms` (stems) with its IDF in the collection's lexical index."""
    bm25 = index.bm25()
    n = max(1, len(bm25))
    return {t: idf(n, len(bm25.documents_with(t))) for t in terms}


def idf(papers: int, holding: int) -> float:
    """BM25's IDF (Lucene's form, as bm25s scores) of a term that `holding` of `papers` hold."""
    return math.log(1 + (papers - holding + 0.5) / (holding + 0.5))


def documents_holding(index: Index, term: str, name: bool) -> np.ndarray:
    """Return the BM25 rows of the papers that hold a question term (see `term_coverage`)."""
    bm25 = index.bm25()
    if not name:  # "theory" is held by a paper on "theoretical" explanations
        rows = [bm25.documents_with(f) for f in bm25.family(term)]
        return np.unique(np.concatenate(rows)) if rows else bm25.documents_with(term)
    forms = _acronym_forms(term)
    # "Qwen" is held by a paper naming "Qwen2.5-3B" (`BM25Index.versions`)
    rows = [bm25.documents_with(v) for form in forms for v in (form, *bm25.versions(form))]
    for stems in _spelled_out(index, forms):
        if stems:
            rows.append(functools.reduce(np.intersect1d, map(bm25.documents_with, stems)))
    return np.unique(np.concatenate(rows))


def _acronym_forms(term: str) -> set[str]:
    """An acronym term and, when it ends in "s", its singular ("llms": "llm")."""
    return {term, term[:-1]} if len(term) > 2 and term.endswith("s") else {term}


def _spelled_out(index: Index, forms: set[str]) -> list[list[str]]:
    """The stems of each way the collection spells out the acronym `forms` ("rl": "reinforc",
    "learn"), stop words left out."""
    bm25 = index.bm25()
    defined = _definitions(index)
    return [
        [bm25.stem(w) for w in _WORD.findall(" ".join(words)) if w not in STOPWORDS]
        for form in forms
        for words in defined.get(form, ())
    ]


_defined: dict[str, dict[str, set[tuple[str, ...]]]] = {}


def _definitions(index: Index) -> dict[str, set[tuple[str, ...]]]:
    """Return the acronyms the indexed abstracts define (kept for the index's paper set)."""
    key = index.bm25().fingerprint
    if key not in _defined:
        _defined.clear()
        _defined[key] = definitions(p.abstract for p in index.papers.values())
    return _defined[key]


def logistic(
    rows: np.ndarray,
    mean: Sequence[float],
    scale: Sequence[float],
    coef: Sequence[float],
    intercept: float,
) -> np.ndarray:
    """Return a fitted logistic regression's probabilities for `rows` of raw features."""
    z = (rows - np.array(mean)) / np.array(scale)
    return 1.0 / (1.0 + np.exp(-(z @ np.array(coef) + intercept)))


def probability(found: Signals) -> float:
    """Return the fitted model's probability that the collection has a paper on it."""
    return float(logistic(found.vector(), MEAN, SCALE, COEF, INTERCEPT))


def decide(index: Index, question: str, hits: list[Hit], threshold: float) -> Decision:
    """Return whether to answer `question` from `hits`.

    Answered when the probability reaches `threshold`, or when a claim-length question's best
    passage reaches `LONG_MIN_COSINE`.
    """
    found = signals(index, question, hits)
    p = probability(found) if hits else 0.0
    return Decision(p >= threshold or long_and_close(found), p, found)


def decided_by_a_side(
    index: Index, question: str, hits: list[Hit], threshold: float, whole: Decision
) -> Decision:
    """Return `whole`, the decision on `question`, or, when it is not answerable, the decision
    on one of its `sides` ("X or Y", "X vs Y", "a survey on X") that is, on its own words over
    the same `hits` ("what do these papers say about privacy or safety?": the collection has a
    paper on the question when it has one on a side, as `paper_choice.judge` reads its papers). The
    answer's own decision weighs the sides; the judgements fitted on the whole question's
    decision (a follow-up's, a choice's) do not.
    """
    if whole.answerable or not hits:
        return whole
    count = len(question_terms(index, question))
    answerable = (
        side
        for part in sides(index, question)
        if 0 < len(question_terms(index, part)) < count
        and (side := decide(index, part, hits, threshold)).answerable
    )
    return max(answerable, key=lambda d: d.probability, default=whole)


def alternatives(question: str) -> list[str]:
    """The parts of a question joined by "or", "vs" or "versus" (none when it has one part)."""
    parts = [part for part in _ALTERNATIVES.split(question) if part.strip()]
    return parts if len(parts) > 1 else []


# "a survey on X", "a talk about X": a word then what it is on.
_ON_TOPIC = re.compile(r"\s+(?:on|about)\s+(?=\w)", re.IGNORECASE)


def sides(index: Index, question: str) -> list[str]:
    """The parts of `question` that may each be answered on their own words: its
    `alternatives`, and what follows a word no paper holds that may frame the question before
    "on" or "about" (`topic_words.may_frame`: "I'm writing a survey on efficient reasoning": no
    abstract says "survey", many are on efficient reasoning, and the answer says that no paper
    uses "survey"; not "the seasons on Earth")."""
    found = alternatives(question)
    bm25 = index.bm25()
    for match in _WORD.finditer(question):
        on = _ON_TOPIC.match(question, match.end())
        word = match.group()
        if (
            on
            and not only_asks(word.lower())
            and not _is_name(word, match.start() == 0)
            and not any_paper_holds(index, bm25.stem(word))
            and topic_words.may_frame(index, word)
        ):
            found.append(question[on.end() :])
    return found


def long_and_close(found: Signals) -> bool:
    """Whether a question of `LONG_TERMS` terms or more has a passage past the cosine gate."""
    return found.term_count >= LONG_TERMS and found.cosine >= LONG_MIN_COSINE


def describe(decision: Decision) -> dict[str, Any]:
    """Return the decision as plain data (for `ask --json` and the benchmarks)."""
    return {
        "answerable": decision.answerable,
        "probability": round(decision.probability, 4),
        **decision.signals.to_dict(),
    }
