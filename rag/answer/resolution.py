"""A follow-up resolved against the history: its standalone question (`condensed`), the
papers it names beside a reference or the topic it sets them beside ("vs TreePO?", "vs visual
token reduction?": `naming_another`), and the paper an earlier answer's sentence came from
(`source_of`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rag.answer import topic_words
from rag.answer.abstention import (
    any_paper_holds,
    question_terms,
    topic_spans,
)
from rag.answer.compose import without_names
from rag.answer.condense import condense, described_reference
from rag.answer.history import Resolver, last_answer_papers
from rag.answer.named_papers import asked_of_named, named_and_rest, papers_named
from rag.answer.paper_choice import answered_from
from rag.answer.people import named_people
from rag.answer.references import (
    COMPARED_OPENING,
    asks_for_more,
    asks_past_shown,
    first_reference,
    refers_back,
)
from rag.answer.rendering import authors_of
from rag.answer.rewrite import Condensed, asked_of
from rag.answer.topicless import (
    asks_no_paper,
    small_talk,
)
from rag.backends.base import Backend
from rag.index.paper_index import Index
from rag.index.retrieve import Filters, search
from rag.ingest.naming import speaker
from rag.ingest.wanted import (
    asks_only_if_out,
)
from rag.records import Paper

# An earlier answer's sentence, read back from the chat's text, is one of this many closest papers'.
_SOURCE_CANDIDATES = 5


def condensed_question(
    index: Index,
    message: str,
    terms: list[tuple[str, bool]],
    history: Sequence[Any],
    backend: Backend | None,
    resolve: Resolver,
) -> Condensed:
    """Return `message` (whose search terms are `terms`) as it is asked after `history`:
    rewritten when it depends on it.

    A message with no term, no reference and no request for more is decided by the topicless
    judgement rather than the rewrite rule (or the LLM, which the rule would not have asked:
    such a message either has words of its own, left as typed, or none, asked of the last
    answer's papers as this does)."""
    if small_talk(index, message, terms):
        # "love it", "got it, thanks": small talk, though "it" could point at the last papers;
        # "ty", "kk": no topic to ask the last answer's papers about.
        return Condensed(message, message, "chat")
    if history and asks_only_if_out(message):
        # "where can I find the code?", "any code released?": of the papers just shown.
        previous = last_answer_papers(history, resolve, message)
        if previous:
            return asked_of(message, previous)
    if described := described_reference(message, history, resolve):
        # "back to the compression paper - does it need retraining?": which of the papers
        # shown is meant is judged in `answer_stream`
        return described
    before = _clause_before_reference(message)
    if named := _papers_named_in(index, before):
        # "and ICGNN — is it also about OOD?": a pronoun after a paper the message names, in a
        # clause of its own, refers to that paper, not to the last answer's.
        return asked_of(message, named)
    if _names_a_topic(index, before):
        # "Going back to circuits — how are they certified?": a pronoun after a topic the
        # message names in a clause of its own is that topic's, searched as typed.
        return Condensed(message, message)
    if not (terms or refers_back(message) or asks_for_more(message) or asks_past_shown(message)):
        # "results?", "what else is in the library?", "how are you?": about the last answer's
        # papers unless it asks of none (rag/answer/topicless.py; None: the judgement cannot
        # read this index's vectors).
        no_paper = asks_no_paper(index, message)
        if no_paper is not None:
            previous = [] if no_paper else last_answer_papers(history, resolve, message)
            return asked_of(message, previous) if previous else Condensed(message, message)
    return condense(
        message,
        history,
        backend=backend,
        resolve=resolve,
        topic_spans=functools.partial(topic_spans, index),
    )


# Where one clause of a message ends and the next begins: "ICGNN — is it ...", "CELL, does it".
_CLAUSE_BREAK = re.compile(r"[,;:?!\u2013\u2014]|\s-\s")


def _clause_before_reference(message: str) -> str:
    """What `message` says in the clauses before the one with its first pointer at the last
    answer ("and ICGNN" in "and ICGNN — is it also about OOD?"); "" when the pointer's clause
    is its first, or it has no pointer."""
    at = first_reference(message)
    breaks = [m.start() for m in _CLAUSE_BREAK.finditer(message, 0, at or 0)]
    return message[: breaks[-1]] if breaks else ""


def _papers_named_in(index: Index, before: str) -> tuple[Paper, ...]:
    """The papers a clause before a pointer names (by method name, or their people): the
    pointer is theirs. In the pointer's own clause a name is another paper ("does CELL beat
    it?"), so only `_clause_before_reference`'s text is read."""
    if not before:
        return ()
    people = named_people(index, before)
    return papers_named(index, before) or (people.papers if people else ())


def _names_a_topic(index: Index, before: str) -> bool:
    """Whether a clause before a pointer names a topic of its own (a word of its topic that a
    paper holds), and points back no other way ("back to the first — ...") nor compares
    ("Compared to GRPO, is this ..."); "ok in English: what is its main contribution?" names
    no topic of the papers'."""
    return (
        any(any_paper_holds(index, term) for term, _ in question_terms(index, before))
        and not refers_back(before)
        and not _COMPARED.search(before)
    )


# "Compared to GRPO, is this cheaper?": what the clause names is what "this" is compared with.
_COMPARED = re.compile(
    r"\b(?:compared?|comparison|relative|versus|vs|than|unlike|like|against|contrast)\b", re.I
)


def naming_another(index: Index, condensed: Condensed, filters: Filters | None) -> Condensed:
    """A follow-up asked of the last answer's papers that names another paper by its method
    ("how does it compare to CELL?" after CLINIC, rewritten "how does CLINIC compare to
    CELL?") is asked of both (rag/answer/named_papers.py); so is one whose rewrite names the
    last paper by its label ("how does Teng et al. compare to ASMC?"), which names no method;
    a choice among a set is not. Only a paper named by its method joins: "Deng et al." is two
    papers' label, and "the others?" asked as "Deng et al. and TRM?" is of those two alone."""
    if not condensed.papers or condensed.pick is not None:
        return condensed
    shown = {p.id for p in condensed.papers}
    both = asked_of_named(index, condensed.question, filters)
    if both is None:
        named, rest = named_and_rest(index, condensed.question, filters)
        if new := [p for p in named if p.id not in shown]:
            asked = " ".join(without_names(rest, condensed.papers).split()) or None
            papers = (*condensed.papers, *new)
            both = Condensed(condensed.question, condensed.question, "papers", papers, asked=asked)
    if both is None or not {p.id for p in both.papers} - shown:
        both = beside_a_topic(index, condensed, filters)  # None unless it adds papers
    return condensed if both is None else replace(both, original=condensed.original)


def beside_a_topic(index: Index, condensed: Condensed, filters: Filters | None) -> Condensed | None:
    """A message that sets the last answer beside a topic ("vs visual token reduction?" after
    ConPress and ZS-SVD) is asked of the papers the per-paper judgement picks on that topic
    too (the answer set them beside nothing: a new user, stop 67); None when the message is
    more than that, names a paper ("vs TreePO?": `naming_another`), names no topic but words
    that frame one ("vs the baseline?", "compared to earlier work?": `topic_words.may_frame`;
    "the baseline" picked nine papers, a reviewer), or no paper is on it."""
    opening = COMPARED_OPENING.match(condensed.original)
    if opening is None or refers_back(condensed.original):
        return None
    words = opening.group("beside").strip()
    if all(topic_words.may_frame(index, word) for word in re.findall(r"[\w-]+", words)):
        return None
    hits = search(index, words, k=index.settings.top_k, filters=filters, rescore=True)
    shown = {p.id for p in condensed.papers}
    new = [h.paper for h in answered_from(index, words, hits) if h.paper.id not in shown]
    if not new:
        return None
    return Condensed(condensed.question, condensed.question, "papers", (*condensed.papers, *new))


def source_of(index: Index, text: str) -> Paper | None:
    """Return the paper an earlier answer sentence came from.

    An answer names the paper a sentence quotes ("Eichin et al. (ExPLAIND): ...", "Yüksel
    explains ..."): the closest paper the sentence names, else the one paper of the index it
    names, else the closest paper.
    """
    hits = search(index, text, k=_SOURCE_CANDIDATES, retriever="dense")
    closest = [h.paper for h in hits]
    for papers in (closest, list(index.papers.values())):
        for names in (_names_it, _starts_with_authors):
            named = [p for p in papers if names(p, text)]
            if named and (papers is closest or len(named) == 1):
                return named[0]
    return closest[0] if closest else None


def _names_it(paper: Paper, text: str) -> bool:
    """Whether `text` names `paper` as answers do ("Eichin et al. (ExPLAIND)"); "Deng et al.
    (ConPress)" names ConPress, not the other Deng et al. paper, whose name has no method."""
    who = speaker(paper)[0]
    return bool(who) and bool(re.search(rf"{re.escape(who)}(?!\s\()", text))


def _starts_with_authors(paper: Paper, text: str) -> bool:
    """Whether `text` opens with the paper's authors ("Deng et al. ..."), and not with another
    paper's name of theirs ("Deng et al. (ConPress)" for the other Deng et al. paper)."""
    who = authors_of(paper)
    if not who or not text.startswith(who):
        return False
    return not text[len(who) :].startswith(" (") or _names_it(paper, text)
