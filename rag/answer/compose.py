"""Compose the extractive answer: for each paper used, the sentence that answers the question.

Among the sentences about the question (`rag.answer.relevance`), the one the fitted sentence
choice ranks first is taken (`rag.ingest.wanted`: for most questions what the paper found, for
"what is X" the sentence that introduces it, ...); asked for a number or a dataset, a sentence
that states it comes first. The sentence is made to stand alone (`rag.answer.discourse`: openers
that lost their referent removed, "we" replaced by who says it) and checked again by the citation
check. When no abstract states the number or the dataset asked for, the answer says so and shows
what the abstracts do say.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

import numpy as np

from rag import prompts
from rag.answer.citations import CheckedSentence, CitationChecker, numbers
from rag.answer.discourse import points_back
from rag.answer.evidence import Evidence, paper_sentence_roles, paper_sentences
from rag.answer.limitations import LIMITATIONS, names_method, states_limitation
from rag.answer.relevance import RelevanceCheck, about_score, term_share
from rag.answer.shown_form import checked_as_cited, one_shown, shown_form
from rag.ingest.naming import method_name, speaker
from rag.ingest.wanted import (
    abstract_term_shares,
    asks_if_out,
    choice_scores,
    has_others,
    in_wanted_role,
    is_availability,
    is_fragment,
    question_terms,
)
from rag.records import Paper
from rag.text import content_stems


class Kind(StrEnum):
    """What a question asks for."""

    LIST = "list"  # which papers
    METHOD = "method"  # how / which method
    FINDING = "finding"  # what do they find, how much does it help
    CLAIM = "claim"  # yes/no
    DATASET = "dataset"  # which dataset was it evaluated on
    NUMBER = "number"  # how many / how much faster
    CODE = "code"  # is the code out
    LIMITATION = "limitation"  # what are its limitations
    GENERAL = "general"  # tell me about X


# What a question asks an abstract to state, which it may not: the note then says so.
_STATED = (Kind.DATASET, Kind.NUMBER, Kind.CODE, Kind.LIMITATION)
_LIST = re.compile(
    r"^\s*(?:(?:which|what)\s+(?:other\s+)?(?:papers?|works?|studies|articles|publications)\b"
    r"|(?:are|is)\s+there\s+(?:any\s+)?(?:other\s+)?(?:papers?|works?|studies|research)\b"
    r"|(?:are|is)\s+there\s+any(?:thing)?\s+(?:else\s+)?(?:on|about)\b"
    r"|do\s+you\s+have\s+(?:any(?:thing)?|papers?)\s+(?:\w+\s+)?(?:on|about)\b"
    r"|any(?:thing)?\s+(?:(?:papers?|work|studies|research)\s+)?(?:on|about)\b"
    r"|(?:papers?|works?|studies)\s+(?:on|about|that|which|dealing|using|with)\b"
    r"|(?:list|find|show)\s+(?:me\s+)?(?:the\s+|all\s+)?papers\b"
    r"|what\s+do\s+(?:the\s+)?papers\s+say\b"
    # "What is new in fairness?", "What's recent on federated learning?": a survey question
    r"|what(?:'s|\s+is|\s+are)\s+(?:the\s+)?(?:new|recent|latest)\s*(?:[?.]|$|(?:in|on|about|for|with)\b)"
    r"|(?:recent|latest|new)\s+(?:papers?|works?|studies|research|results|advances)\s+"
    r"(?:on|in|about)\b"
    # "How many papers are about LLMs?": the papers, counted by the list
    r"|how\s+many\s+(?:papers?|works?|studies|articles|publications)\b)",
    re.IGNORECASE,
)
_DATASET = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+)?(?:data\s*sets?|benchmarks?|corpora|corpus)\b"
    # "what data did they use?", "what data is used?" (not "what data augmentation helps?")
    r"|\b(?:which|what)\s+(?:\w+\s+)?data\s+(?:did|do|does|is|are|was|were|they)\b"
    r"|\b(?:evaluated|tested|trained|benchmarked)\s+on\s+what\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"^\s*how\s+many\b(?!\s+(?:papers?|works?|studies|articles|publications)\b)"
    r"|\bhow\s+much\s+(?:faster|slower|smaller|larger|bigger|less|more|memory|"
    r"time|compute|speed\w*|accura\w*|better|worse)\b|\bby\s+how\s+much\b"
    # "numbers?", "any figures?", "what numbers do they report?": asked of the papers shown
    r"|^\s*(?:(?:and|so|ok|okay)\W+)?(?:(?:any|the|what|which|some|concrete|exact|hard|key|main)"
    r"\s+){0,2}(?:numbers|figures|stats|statistics|numeric(?:al)?\s+results|quantitative\s+results)"
    r"(?:\s+(?:do|did|does)\s+(?:they|it)\s+(?:report|give|get|show))?(?:\s*\([^()]*\))?"
    r"\s*[?.!]*\s*$",
    re.IGNORECASE,
)
_METHOD = re.compile(
    r"^\s*how\s+(?:is|are|do|does|did|can|could|should|would|to)\b"
    r"|\b(?:which|what)(?:'s|\s+is|\s+are)?\s+(?:the\s+)?(?:\w+\s+)?(?:methods?|approach(?:es)?|"
    r"techniques?|tricks?|defen[cs]es?|strateg(?:y|ies)|algorithms?|frameworks?|"
    r"architectures?|mechanisms?|ideas?|solutions?)\b|\bpropos\w*\b",
    re.IGNORECASE,
)
_FINDING = re.compile(
    r"\b(?:find|found|findings?|results?|show|shows|showed|conclude\w*|outcomes?|help|helps|"
    r"improve\w*|gains?|performance|effects?|known|learn|learned)\b|^\s*how\s+(?:much|well)\b",
    re.IGNORECASE,
)
_HOW_MUCH = re.compile(r"\bhow\s+(?:much|many)\b", re.IGNORECASE)


def asks_how_much(question: str) -> bool:
    """Whether `question` asks how much or how many."""
    return bool(_HOW_MUCH.search(question))


_CLAIM = re.compile(
    r"^\s*(?:do|does|did|is|are|was|were|can|could|will|would|should|has|have)\b", re.IGNORECASE
)

_DATA_WORD = re.compile(r"\b(?:data\s*sets?|benchmarks?|corpus|corpora|evaluat\w*|experiments?)\b")
_NAME_TOKEN = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*\b")
_ON_NAME = re.compile(
    r"\b(?:on|across|over)\s+(?:the\s+)?([A-Z][A-Za-z]*[A-Z0-9][\w-]*)\b"
    r"(?!\s+(?:and\s+\S+\s+)?(?:benchmarks?|datasets?|tasks?|models?|data)\b)"
)
# A word with a digit or a hyphen inside ("Flickr30K", "MS-COCO", "CIFAR-10") is a dataset's
# own name even before "datasets"; letters alone before it ("LLM and VLM benchmarks") say what
# kind of data.
_OWN_NAME = re.compile(r"\w*\d\w*|\w+-\w+")
_KIND_OF_DATA = r"(?:benchmarks?|datasets?|tasks?|models?|data)\b"
_MODEL_SIZE = re.compile(r"^\d+(?:\.\d+)?[BMK]$")


# Where a question's own clause starts after a lead naming what it is about ("ASMC - how much
# does it save?", "ConPress: how many tokens does it cut?"): the rewrite of "the second one -
# how much ..." keeps the dash.
_LEAD = re.compile(r"^[^?]{1,80}?(?:\s+[-\u2013\u2014]\s+|:\s+)(?=\w)")


def question_kind(question: str) -> Kind:
    """Return what `question` asks for (the first matching kind, most specific first), read in
    its own clause after a lead that names its subject, when the whole reads as general."""
    kind = _kind(question)
    lead = _LEAD.match(question)
    return _kind(question[lead.end() :]) if kind is Kind.GENERAL and lead else kind


def _kind(question: str) -> Kind:
    if asks_if_out(question):
        return Kind.CODE
    for kind, pattern in (
        (Kind.DATASET, _DATASET),
        (Kind.NUMBER, _NUMBER),
        (Kind.LIST, _LIST),  # "which papers discuss the limitations of DPO?" stays a list
        (Kind.LIMITATION, LIMITATIONS),
        (Kind.METHOD, _METHOD),
        (Kind.CLAIM, _CLAIM),
        (Kind.FINDING, _FINDING),
    ):
        if pattern.search(question):
            return kind
    return Kind.GENERAL


def names_a_dataset(sentence: str, method: str | None) -> bool:
    """Return whether `sentence` names a dataset or benchmark (not only "benchmark datasets")."""
    for match in _ON_NAME.finditer(sentence):  # "by 59% on MATH500 and 33% on AIME25"
        if match.group(1) != method and not _MODEL_SIZE.match(match.group(1)):
            return True
    if not _DATA_WORD.search(sentence):
        return False
    for i, token in enumerate(_NAME_TOKEN.findall(sentence)):
        if token == method or _MODEL_SIZE.match(token) or (i == 0 and token.istitle()):
            continue
        if not _OWN_NAME.fullmatch(token) and re.search(
            rf"\b{re.escape(token)}\s+(?:and\s+\S+\s+)?{_KIND_OF_DATA}", sentence
        ):
            continue  # "LLM and VLM benchmarks" says what kind, not which
        if re.search(r"[A-Z].*[A-Z0-9]|[0-9]", token[1:]) or (token[0].isupper() and i > 0):
            return True
    return False


def states_what_is_asked(
    kind: Kind, sentence: str, method: str | None = None, role: str | None = None, own: bool = False
) -> bool:
    """Whether `sentence` states what a question of `kind` asks an abstract to state (a
    dataset, a number, where the code is, a limitation of the paper's method: `_STATED`); any
    sentence for another kind. `method`: the paper's own method name, which names no dataset;
    `role` and `own` (the question names that method): `limitations.states_limitation`."""
    if kind is Kind.LIMITATION:
        return states_limitation(sentence, role, own)
    if kind is Kind.DATASET:
        return names_a_dataset(sentence, method)
    if kind is Kind.NUMBER:
        return states_number(sentence)
    if kind is Kind.CODE:
        return is_availability(sentence)
    return True


def states_number(sentence: str) -> bool:
    """Return whether `sentence` states a quantity (a number that is not a model size)."""
    kept = [w for w in re.findall(r"\S+", sentence) if not _MODEL_SIZE.match(w.strip(",.;:()"))]
    return bool(numbers(" ".join(kept))) or "%" in sentence


@dataclass(frozen=True)
class Choice:
    """The sentence chosen from one paper, and why."""

    n: int
    sentence: str  # as in the abstract
    about: float  # relevance score
    states_it: bool  # states the dataset / number asked for (always True for other kinds)
    # The paper's sentence on the question's own words, shown after `sentence` when that one
    # holds none of them (`tie_sentence`); None: not needed.
    context: str | None = None


# A sentence is taken as already said when its last words are in an earlier answer's text: an
# answer may rewrite a sentence's opening ("We propose" -> "Ju et al. propose"), not its end.
_SAID_WORDS = 8

# `tie_sentence`: a paper's line gets the sentence that ties it to the question when the line
# holds at most TIE_RATIO of the largest share of the question's terms a sentence of the paper
# holds, from the sentences holding at least TIE_SHARE of them and more than the line does.
# Calibrated by bench/answers/side_topics.py (bench/results/side_topics.md). TIE_RATIO 0.15, the
# best of 0 / 0.05 / 0.1 / 0.15 / 0.2 on the fitting parts with the fewest sentences added: a line
# holding one generic word of the question ("model", IDF-weighted) gets the tie too (asked "Do
# mixture-of-experts models route tokens well?", TRM's line held "LLM" and none of its MoE).
TIE_RATIO = 0.15
TIE_SHARE = 0.2
# How a tie sentence the role model files as background is marked (`tie_shown`).
BACKGROUND = "As background: "


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def already_said(sentence: str, said: str) -> bool:
    """Whether `sentence` was shown in `said`, earlier answers' text (see `_SAID_WORDS`)."""
    tail = " ".join(_words(sentence).split()[-_SAID_WORDS:])
    return bool(tail) and f" {tail} " in f" {_words(said)} "


def choose(
    question: str,
    kind: Kind,
    relevance: RelevanceCheck,
    ev: Evidence,
    said: str = "",
    *,
    any_sentence: bool = False,
    asked_of_it: bool = False,
    shown: str = "",
) -> Choice | None:
    """Return the sentence of `ev`'s paper that answers `question`, of `kind` (None: none is
    about the question). A sentence already shown in `said` comes after every other one but
    those holding none of the question's own words: with `said`, the question may only point
    at the paper ("Tell me more about the first one."), so a sentence not said yet is taken
    even when it is not about the question's words, unless one is ("what does the first one
    say about the KV cache?" gets the KV-cache sentence again rather than another).
    With `any_sentence` (a question on the paper with no topic of its own: "what did they
    find?") every sentence is about it, and those of the role it wants come first. With
    `asked_of_it` (a follow-up asked of this paper: "limitations?" after ConPress) a question
    on limitations is one of its own method, as when it names the method. With `shown` (the
    earlier answers, to such a question), of the sentences of the role it wants one not shown
    yet comes first ("what did they find?" after Deng et al.'s gains got the gains again, not
    the mechanism of the collapse they found).
    The sentence may carry a `tie_sentence` to follow it."""
    pairs = paper_sentence_roles(ev.hit.paper)
    if not pairs:
        return None
    method = method_name(ev.hit.paper.abstract)
    # Among the sentences that pass the gate, the fitted choice (rag/ingest/wanted.py) orders
    # them: the role the question wants, its words, where the sentence sits, ...
    cosines, shared, ranks = _ranked(question, relevance, ev, pairs)
    topic = topic_terms(relevance, method)
    own = asked_of_it or names_method(question, method)
    best: tuple[tuple[bool, bool, bool, bool, bool, bool, float], Choice] | None = None
    # It asks for nothing but a kind of sentence: that role's come first (`of_role` in the key).
    wanted_role = in_wanted_role(question, pairs) if any_sentence else [True] * len(pairs)
    for (sentence, role), cosine, rank, of_role in zip(
        pairs, cosines, ranks, wanted_role, strict=True
    ):
        about = about_score(float(cosine), term_share(relevance.terms, sentence), relevance.weight)
        passes = any_sentence or relevance.passes(about)
        if is_fragment(sentence, relevance.question) or not (passes or said):
            continue
        states = states_what_is_asked(kind, sentence, method, role, own)
        # Asked for a fact: a sentence that states it (or the experiments) before any other.
        first = kind in _STATED and bool(
            states or (kind is Kind.DATASET and _DATA_WORD.search(sentence))
        )
        # After a line was said, one on the question's own words may be said again ("what does
        # the first one say about the KV cache?" when its only KV-cache sentence was shown).
        on_words = bool(said) and term_share(topic, sentence) > 0
        # Not one that points back either: the sentence it needs would come first, of another
        # role ("This encourages reliance on semantic signals ..." after the method).
        fresh = not (
            any_sentence and shown and (already_said(sentence, shown) or points_back(sentence))
        )
        key = (
            first,
            on_words,
            not (said and already_said(sentence, said)),
            of_role and fresh,
            of_role,
            passes,
            float(rank),
        )
        if best is None or key > best[0]:
            best = (key, Choice(ev.n, sentence, about, states))
    if best is None:
        return None
    if any_sentence:  # no word of the question for a tie to hold
        return best[1]
    context = tie_sentence(
        relevance, pairs, ranks, best[1].sentence, has_others(shared), said, terms=topic
    )
    return replace(best[1], context=context) if context else best[1]


def asks_of_papers(question: str, papers: Sequence[Paper]) -> list[str]:
    """The terms of `question` (as typed, not rewritten) beside the names it writes of
    `papers`, as they are written: an author's family name ("what did Guan et al. find?"),
    the method its abstract introduces, its title. What it asks of them beyond which papers
    they are; "CELL" names a paper, "cells" is a word ("what did they find about cells?")."""
    return question_terms(without_names(question, papers))


def without_names(question: str, papers: Sequence[Paper]) -> str:
    """`question` without the names it writes of `papers` (`asks_of_papers`)."""
    names = []
    for paper in papers:
        names += [n.split()[-1] for n in paper.authors if n.split()] + list(paper.authors)
        names += [n for n in (method_name(paper.abstract), paper.title) if n]
    whole = {a.casefold() for paper in papers for a in paper.authors if len(a.split()) > 1}
    text = question
    # The longest first across all the papers: "Wei Ju" before another paper's "Ju". A whole
    # name in any case ("what did tianyi zhou publish?"); a surname or method as written.
    for name in sorted(set(names), key=len, reverse=True):
        flags = re.IGNORECASE if name.casefold() in whole else 0
        written = re.escape(name).replace(r"\ ", r"\s+")  # "Tianyi  Zhou" too
        text = re.sub(rf"(?<!\w){written}(?!\w)", " ", text, flags=flags)
    return text


def topic_terms(relevance: RelevanceCheck, name: str | None) -> list[str]:
    """The question's terms without the paper's own `name` when the question names it ("does
    TreePO do anything about the KV cache?"): every sentence about the paper holds it."""
    own_name = (
        set(content_stems(name)) if name and names_method(relevance.question, name) else set()
    )
    return [t for t in relevance.terms if t not in own_name]


def _ranked(
    question: str, relevance: RelevanceCheck, ev: Evidence, pairs: Sequence[tuple[str, str]]
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Each of the paper's sentences `pairs`: its cosine to the question, its likeness to the
    answer's other papers (None: not computed) and the fitted choice's score."""
    vectors = ev.vectors if ev.vectors is not None and len(ev.vectors) == len(pairs) else None
    if vectors is None:
        vectors = relevance.embedder.embed([s for s, _ in pairs])
    cosines = vectors @ relevance.vector
    shared = ev.shared if ev.shared is not None and len(ev.shared) == len(pairs) else None
    return cosines, shared, choice_scores(question, pairs, cosines, shared=shared)


def model_tie(relevance: RelevanceCheck, ev: Evidence, shown: str, said: str = "") -> Choice | None:
    """`tie_sentence` for a paper the model's synthesis quoted as `shown`: the paper's
    sentence on the question's words when what the model said of it holds none of them."""
    pairs = paper_sentence_roles(ev.hit.paper)
    if not pairs:
        return None
    _, shared, ranks = _ranked(relevance.question, relevance, ev, pairs)
    terms = topic_terms(relevance, method_name(ev.hit.paper.abstract))
    tie = tie_sentence(relevance, pairs, ranks, shown, has_others(shared), said, terms=terms)
    return Choice(ev.n, tie, 0.0, True) if tie is not None else None


def tie_sentence(
    relevance: RelevanceCheck,
    pairs: Sequence[tuple[str, str]],
    ranks: Sequence[float] | np.ndarray,
    shown: str,
    among_others: bool,
    said: str = "",
    *,
    terms: Sequence[str] | None = None,
) -> str | None:
    """Return the sentence of a paper that ties it to the question when `shown` does not.

    The sentence choice puts what a paper found first, and a finding may hold none of the
    question's words: asked "mixture of experts routing", TRM's line was its guarantee, while
    the sentence naming "Mixture-of-Experts routing discontinuities" as the problem it solves
    was left out, so nothing in the answer was about what was asked. When `shown` (what the
    answer says of the paper) holds few of the question's terms against the paper's sentence
    that holds most (`TIE_RATIO`; acronyms the abstract defines count as their words, and
    each term weighs its rarity in the collection, `relevance.rarity`), the sentence holding
    the most of them, at least `TIE_SHARE` and more than `shown`, follows it, the fitted choice
    (`ranks`, one per sentence of `pairs`) breaking ties; one already in `said` is not taken
    again. In an answer over several papers
    (`among_others`) the field's background ("GNNs have shown remarkable capabilities ...")
    is taken only when no other sentence qualifies, as for the line itself
    (`rag.ingest.wanted.after_rules`). `terms` are the question's (`relevance.terms`
    when None), the paper's own name left out by the caller (`topic_terms`). None when no
    sentence qualifies.
    """
    terms = relevance.terms if terms is None else terms
    sentences = [s for s, _ in pairs]
    if not terms:
        return None
    rarity = relevance.rarity or {}
    weights = [rarity.get(t, 1.0) for t in terms] if rarity else None
    shares = abstract_term_shares(terms, [*sentences, shown], weights)
    own, most = float(shares[-1]), float(shares[:-1].max(initial=0.0))
    if most <= 0 or own > TIE_RATIO * most:
        return None
    best: tuple[tuple[bool, float, float], str] | None = None
    for (sentence, role), held, rank in zip(pairs, shares[:-1], ranks, strict=True):
        if sentence == shown or held < TIE_SHARE or held <= own or is_fragment(sentence):
            continue
        if said and already_said(sentence, said):
            continue
        key = (not (among_others and role == "background"), round(float(held), 6), float(rank))
        if best is None or key > best[0]:
            best = (key, sentence)
    return best[1] if best else None


@dataclass(frozen=True)
class Composed:
    """The extractive part of an answer: an optional plain note, then one line per paper."""

    kind: Kind
    note: str | None
    lines: tuple[CheckedSentence, ...]
    # Lines that go on with the one before (a paper's tie sentence after its finding), by place.
    joined: frozenset[int] = frozenset()


def compose(
    question: str,
    evidence: list[Evidence],
    checker: CitationChecker,
    relevance: RelevanceCheck,
    *,
    skip: frozenset[int] = frozenset(),
    every: bool = False,
    said: str = "",
    absent: bool = False,
    before: str = "",
    synthesis: Mapping[int, str] | None = None,
    drawn_on: Mapping[int, str] | None = None,
    any_sentence: bool = False,
    own_words: bool = False,
    shown: str = "",
    how_much: bool = False,
) -> Composed:
    """Return the extractive answer to `question` from `evidence`, best paper first.

    Args:
        question: the question as searched.
        evidence: the papers the answer uses, best first.
        checker: the citation check over the same evidence.
        relevance: the question-relevance check over the same evidence.
        skip: source numbers already answered (by the model's synthesis): no line for them.
        every: a line for every paper, its best sentence when none is about the question
            (the papers a follow-up names: "And the rest?" has no words of its own to match).
        said: earlier answers' text, when the question follows up on papers shown there
            ("Tell me more.", "the second one"): a sentence shown there is not repeated while
            its paper has another one about the question.
        absent: with `every`, the question asks something of its papers ("main limitation?"
            after CELL): when none has a sentence about it, a note says so above their lines,
            each its paper's best sentence that `before` (earlier answers' text) did not show.
        synthesis: what the model's synthesis said of each paper in `skip`: when it holds
            none of the question's words, the paper gets a line with its sentence that does
            (`tie_sentence`).
        drawn_on: for each paper in `skip`, the abstract sentence the synthesis drew on: not
            its tie, which would say again what the synthesis just said in other words.
        any_sentence: `question` says what it wants of its papers and names nothing else
            ("what did they find?", "why?": `asks_of_papers`): every sentence of theirs is
            about it, those of the role it wants first, and none lacks it (no note).
        own_words: with `absent`, the question asks its papers something in words of its own,
            not for a kind of sentence ("is it safe?", not "what did they find?"): only a
            sentence about those words answers it.
        shown: the earlier answers, for a question with no words of its own: of the role it
            wants, a sentence they did not show comes first (`choose`).
        how_much: it asks how much or how many and names no topic ("how much does it save?",
            not "how much does it cost in API fees?"): a sentence stating a quantity answers it.
    """
    kind = question_kind(question)
    states = kind not in _STATED
    choices = []
    found = False  # a paper has a sentence about the question
    ties = []  # sentences after the model's synthesis, for papers it said nothing of the words of
    for ev in evidence:
        if ev.n in skip:
            said_of = (synthesis or {}).get(ev.n)
            used = "\n".join(x for x in (said, (drawn_on or {}).get(ev.n, "")) if x)
            tie = model_tie(relevance, ev, said_of, used) if said_of is not None else None
            if tie is not None:
                ties.append(tie)
            continue
        choice = choose(
            question,
            kind,
            relevance,
            ev,
            said,
            any_sentence=any_sentence,
            asked_of_it=every,
            shown=shown,
        )
        found = found or (
            choice is not None
            and (
                # "how much does it save?": a quantity it states answers it, shown before or
                # not, though no sentence says "save" (the note said the paper did not seem to
                # address it, of ASMC's "p95 = 73.7 s", a new user)
                (how_much and states_number(choice.sentence))
                or (
                    (any_sentence or not _only_again(choice, relevance, ev, before))
                    # A sentence taken only because it was not said yet is no answer to a
                    # follow-up that asks something in words of its own ("is it safe?").
                    and (not own_words or relevance.passes(choice.about))
                )
            )
        )
        if choice is None and every:
            choice = Choice(ev.n, ev.best_sentence, 0.0, states)
        if choice is not None:
            choices.append(choice)
    if not choices and not skip and evidence:
        # Nothing passed the relevance check: the best paper's best sentence, as before.
        ev = evidence[0]
        choices = [Choice(ev.n, ev.best_sentence, 0.0, states)]
    note = None
    by_n = {ev.n: ev for ev in evidence}
    if kind in _STATED and choices:
        stating = [c for c in choices if c.states_it]
        if kind is Kind.NUMBER and own_words and not how_much:
            # "how many languages does it support?": a number is no answer unless the sentence
            # is about the question's own words (ASMC's "p95 = 1318 s" was shown, a review).
            stating = [c for c in stating if relevance.passes(c.about)]
        if stating:
            choices = stating
        else:
            what = prompts.WHAT_NOT_STATED[kind.value]
            if len(evidence) == 1:
                who = speaker(evidence[0].hit.paper)[0] or "the paper"
                note = prompts.NOT_STATED_ONE.format(who=who, what=what)
            else:
                note = prompts.NOT_STATED.format(what=what)
    elif absent and every and choices and not found:
        if len(evidence) == 1:
            who = speaker(evidence[0].hit.paper)[0] or "the paper"
            note = prompts.NOT_ADDRESSED_ONE.format(who=who)
        else:
            note = prompts.NOT_ADDRESSED
        choices = [_not_shown_before(c, by_n[c.n], before) for c in choices]
    lines: list[CheckedSentence] = []
    joined = set()
    # A tie of the synthesis's paper goes on with the synthesis, before the other papers' lines.
    for c, is_tie in [*((t, True) for t in ties), *((c, False) for c in choices)]:
        if is_tie:
            joined.add(len(lines))
        lines.append(shown_form(c.sentence, by_n[c.n], checker))
        if c.context is not None:
            after = tie_shown(c, by_n[c.n], checker)
            if not already_said(after.text, lines[-1].text):
                joined.add(len(lines))
                lines.append(after)
    return Composed(kind, note, tuple(lines), frozenset(joined))


def _only_again(choice: Choice, relevance: RelevanceCheck, ev: Evidence, before: str) -> bool:
    """Whether `choice` is the line `before` just showed and no sentence of its paper holds any
    of the question's own words: what the follow-up asks ("does it help with image
    classification?") is not in the abstract, and the line is no answer to it."""
    if not before or not already_said(choice.sentence, before):
        return False
    terms = topic_terms(relevance, method_name(ev.hit.paper.abstract))
    if not terms:  # "what did they find?" asks for the paper, not for words it lacks
        return False
    return not any(term_share(terms, s) for s in paper_sentences(ev.hit.paper))


def _not_shown_before(choice: Choice, ev: Evidence, before: str) -> Choice:
    """`choice`, or the best of its paper's evidence sentences (`Evidence.sentences`) that
    `before` did not show: a follow-up its paper does not address ("GPU hours saved?") is not
    answered with the line just read (when every one was shown, `choice` as it is)."""
    if not before or not already_said(choice.sentence, before):
        return choice
    unsaid = [s for s in ev.sentences if not (already_said(s, before) or is_fragment(s))]
    return replace(choice, sentence=unsaid[0], context=None) if unsaid else choice


def tie_shown(choice: Choice, ev: Evidence, checker: CitationChecker) -> CheckedSentence:
    """The shown form of `choice.context`, the sentence that ties its paper to the question,
    after the line `choice.sentence`: without the paper's label, and marked as the paper's
    background when the role model files it so ("Most prior methods rely on adversarial
    learning" is what CELL sets out from, not what it does). A sentence that points back to the
    line itself ("This ...") follows it as it is, not with the line again."""
    tie = replace(choice, sentence=choice.context or "", context=None)
    sentences = paper_sentences(ev.hit.paper)
    at = sentences.index(tie.sentence) if tie.sentence in sentences else -1
    if at > 0 and sentences[at - 1] == choice.sentence:
        shown = one_shown(tie.sentence, ev, checker, labelled=False, pointing=True)
    else:
        shown = shown_form(tie.sentence, ev, checker, labelled=False)
    roles = dict(paper_sentence_roles(ev.hit.paper))
    if roles.get(tie.sentence) != "background" or shown.text.startswith(BACKGROUND):
        return shown
    marked = checked_as_cited(f"{BACKGROUND}{shown.text}", ev.n, checker)
    return marked if marked is not None else shown
