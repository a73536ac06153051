"""Follow-up questions: turn (chat history, question) into a standalone question.

A question is rewritten only when it depends on the history. Some follow-ups range over the
set: the papers of the latest answer to a question of its own (or to "the others", when it
listed several), in the order it cited them, however many turns have chosen among them since:

- an ordinal ("the second one", "the last paper") names the paper at that place in the set;
- a choice ("Which one uses RL?", "Which of them ...", "Are any of these papers ...?", "Does
  either of them ...?") comes back with the set as `papers` and its own words, without the
  reference, as `pick`: the answer judges each paper on those words;
- "the others", "the rest", "the other one" name the set's papers the last answer left out;
  when it left none out, they are the rest of the collection on the set's question
  (`excluded`: the papers already shown);
- a follow-up that asks past the papers shown, with no pronoun pointing back at them ("anything
  else on label noise?", "any other papers on RL collapse?", "more continual learning work?":
  `asks_past_shown`) is searched on its own words, or on the set's question when it names no
  topic, less the papers the last answer cited (`excluded`).

Others refer to the last answer: a numbered reference ("paper 2", "[2]") names the paper cited
there at that number; in a short question "that paper" or "this method" names its first paper
and "they", "those" or "them" all of them; a "that" standing alone ("how is that fixed?", "what
causes this?") is what the last answer said, asked of all its papers. "it" is the topic of the
last question asked on its own (`topic_of`: "privacy", "what do we know about grokking" ->
"why does grokking happen?"), asked as a choice among the answer's papers, or of its one paper
("why does grokking happen (ExPLAIND)?"), or of the collection after an answer with none; but it
is the first paper after a question that asked for a paper or method ("which paper ...?"), in
"do it", in a question that also says "this paper", and "its" after several papers. A question
with no content words of its own ("Why?", "Tell me more.") asks about its papers. Every other
question, "What about solving PDEs?", "What do the papers say about fairness?" or "Now a
different topic: recommendation systems?" included, is searched exactly as typed: an earlier
question's words join a new one only through its "it", so a topic switch or an off-topic
question is judged on its own words. The
referred papers come back as `papers`, so the answer is built from them. After an abstention, a
pointer (an ordinal, a number, a choice, a pronoun) is to the nearest papers it listed, in its
order (`Turn.nearest`; rag/answer/unanswered.py says so in the answer), and "it" to its topic,
asked again (`Condensed.unanswered`); what points at none of them ("why not?", "anything else on
X?", "the others") reads the history as if it had listed none. With an LLM, the same
rule decides whether to rewrite at all; the LLM's rewrite is then used only when it is short,
single-line and keeps the names and content words the rule found."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rag import prompts
from rag.answer.abstention import word_spans
from rag.answer.history import (
    Resolver,
    Spans,
    Turn,
    answers_only,
    cited_numbers,
    last_answer,
    paper_cited,
    paper_name,
    papers_of,
    to_turns,
    unique,
)
from rag.answer.pair_words import COMPARES
from rag.answer.references import (
    ONE_WORDS,
    ORDINALS,
    PLURAL_REF,
    RANKED_AGAINST,
    first_reference,
)
from rag.answer.rewrite import Condensed, rule_rewrite
from rag.backends.base import Backend, Prompt
from rag.errors import BackendError
from rag.records import Paper
from rag.text import content_stems

log = logging.getLogger(__name__)
_MAX_LLM_WORDS = 40


# A paper named by what it is about: "the compression paper", "the fairness one", "the logic
# verification method" (up to three words before the noun; "the one about X" is a choice,
# `PICKS`; "the diffusion model" is a model, not a paper). Not words that place or qualify a
# paper rather than say its topic.
_DESCRIPTION = re.compile(
    r"\b(?P<back>(?:go(?:ing)?\s+)?back\s+to\s+|return(?:ing)?\s+to\s+)?the\s+"
    r"(?P<words>(?:[A-Za-z][\w-]*\s+){0,2}[A-Za-z][\w-]*)\s+"
    r"(?P<noun>papers?|ones?|methods?|approach(?:es)?|works?|study|studies|frameworks?|articles?)\b",
    re.IGNORECASE,
)
# The same, its topic after it, where the clause ends with it, as what a paper is set beside:
# "how does it differ from the paper on skipping layers?", "compare it with the one about
# auctions" (not "what does the paper on unlearning find?", whose topic's end is unknown).
_DESCRIPTION_AFTER = re.compile(
    r"(?:(?<=\bfrom )|(?<=\bwith )|(?<=\bto )|(?<=\bthan )|(?<=\band )|(?<=\bversus )|"
    r"(?<=\bvs )|(?<=\bvs\. )|(?<=\bagainst ))(?P<back>)the\s+"
    r"(?P<noun>paper|one|method|approach|study|article)\s+(?:on|about)\s+"
    r"(?P<words>(?:(?!_PRONOUN)[A-Za-z0-9][\w-]*\s+){0,2}(?!_PRONOUN)[A-Za-z0-9][\w-]*)"
    r"(?=\s*(?:[?.!,;:]|$))".replace(
        "_PRONOUN", r"(?:it|its|they|them|their|this|that|these|those|we|you|he|she)\b"
    ),
    re.IGNORECASE,
)
_NOT_TOPICS = frozenset(
    """same other proposed new original above previous last latter former first second third
    whole main best following current present earlier next each every this that these those
    only one two three your my our their its another final actual latest newest recent
    oldest earliest most least key seminal important relevant related similar different
    existing prior""".split()  # noqa: SIM905
) | frozenset(ORDINALS)  # "the second paper" is a place


_REFERRING_NOUNS = frozenset(
    f"""{ONE_WORDS} papers methods models works studies approaches framework technique tool
    algorithm scheme system abstract""".split()
)


_SINGULAR_NOUNS = frozenset("paper one method approach study framework article".split())  # noqa: SIM905


def described_reference(
    question: str, history: Sequence[Any] | None, resolve: Resolver | None
) -> Condensed | None:
    """`question` when it names a paper by its topic ("back to the compression paper - does it
    need retraining?") after answers that showed papers: method "described", with every paper
    the conversation showed (latest first), for the pipeline to judge which is meant; else
    None."""
    described = _described(question)
    if described is None:
        return None
    turns = answers_only(to_turns(history))
    shown = unique(p for turn in reversed(turns) for p in papers_of(turn, resolve))
    if not shown:
        return None
    # A comparison whose pointer stands before the description sets the last answer's paper
    # beside the one described ("compare it with the continual learning one" was asked of MePo
    # alone): "it" the paper just shown, "them" all its papers. A pointer after the description
    # is the described paper's ("the compression paper - does it need retraining?"), and so is
    # one in a question that compares nothing ("what do they find in the graph prompting paper?").
    before = question[: described.start()]
    compares = COMPARES.search(question) or RANKED_AGAINST.search(question)
    last = papers_of(last_answer(turns), resolve)
    pointed = [] if not compares or first_reference(before) is None else last
    if pointed and not PLURAL_REF.search(before):
        pointed = pointed[:1]
    return Condensed(
        question, question, "described", tuple(shown),
        described=described.group("words"), described_span=described.span(),
        pointed=tuple(pointed),
    )  # fmt: skip


def _described(text: str) -> re.Match[str] | None:
    """The first description of a paper by its topic in `text` (`_DESCRIPTION`,
    `_DESCRIPTION_AFTER`), if any."""
    found = [*_DESCRIPTION.finditer(text), *_DESCRIPTION_AFTER.finditer(text)]
    for match in sorted(found, key=lambda m: m.start()):
        words = set(match.group("words").lower().split())
        nouns = words & _REFERRING_NOUNS  # "the method work", "the model open source"
        # "Summarize the fairness papers", "the clustering work": the collection's, unless
        # the message goes back to them ("going back to the federated papers, ...")
        many = match.group("noun").lower() not in _SINGULAR_NOUNS
        topical = not words & _NOT_TOPICS and not nouns
        if topical and (match.group("back") or not many):
            return match
    return None


def _llm_prompt(question: str, last: Turn, named: dict[int, Paper]) -> Prompt:
    papers = "\n".join(
        prompts.CONDENSE_PAPER.format(n=n, name=paper_name(p)) for n, p in sorted(named.items())
    )
    user = prompts.CONDENSE_USER.format(previous=last.question, papers=papers, question=question)
    return Prompt(prompts.CONDENSE_SYSTEM, user)


def _acceptable(rewrite: str, rule: Condensed) -> bool:
    """The guard on an LLM rewrite: one short line that keeps the names and key words."""
    if not rewrite or "\n" in rewrite or "[" in rewrite:
        return False
    if len(rewrite.split()) > _MAX_LLM_WORDS or len(rewrite) > 3 * max(len(rule.question), 60):
        return False
    low = rewrite.lower()
    if any(paper_name(p).lower() not in low for p in rule.papers):
        return False
    names = {s for p in rule.papers for s in content_stems(paper_name(p))}
    wanted = set(content_stems(rule.question)) - names
    got = set(content_stems(rewrite))
    # The words the rule brought from the history (the topic "it" stands for) are kept too.
    if wanted - set(content_stems(rule.original)) - got:
        return False
    return not wanted or len(wanted & got) >= (len(wanted) + 1) // 2


def condense(
    question: str,
    history: Sequence[Any] | None,
    *,
    backend: Backend | None = None,
    resolve: Resolver | None = None,
    max_tokens: int = 64,
    topic_spans: Spans = word_spans,
) -> Condensed:
    """Return `question` as a standalone question, given the chat so far.

    Args:
        question: the new question, perhaps a follow-up.
        history: earlier exchanges, in any form `to_turns` reads.
        backend: an LLM to rewrite with (None: the rule only).
        resolve: finds the paper an answer sentence came from, when the history holds only
            text (chat messages).
        max_tokens: most tokens the LLM may write.
        topic_spans: where a question's topic words stand (`word_spans`; the pipeline's
            reading knows which words the collection holds).

    Returns:
        The standalone question, how it was made, and the papers it refers to.
    """
    turns = to_turns(history)
    rule = rule_rewrite(question, turns, resolve, topic_spans)
    if backend is None or rule.method == "as-is":
        return rule
    last = last_answer(turns) or turns[-1]
    named = {n: p for n in cited_numbers(last) if (p := paper_cited(last, n, resolve)) is not None}
    try:
        text = "".join(
            backend.generate(
                _llm_prompt(question, last, named),
                stream=False,
                max_tokens=max_tokens,
                temperature=0.0,
            )
        )
    except BackendError as exc:
        log.info("condensing with the LLM failed (%s); using the rule", exc)
        return rule
    rewrite = text.strip().strip('"').strip()
    if _acceptable(rewrite, rule):
        return replace(rule, question=rewrite, method="llm")
    log.debug("LLM rewrite %r rejected by the guard; using %r", rewrite, rule.question)
    return rule
