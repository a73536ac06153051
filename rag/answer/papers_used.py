"""Which papers an answer uses, and what it says before their lines.

After the question is read (`rag/answer/resolution.py`) and searched, one of these decides the
papers: a choice among the papers a follow-up points at ("which of them is about fairness?",
its opposite "which of them do not use RL?", or a ranking "which is faster?",
`rag/answer/paper_sets.py`), the papers of the people it names (`rag/answer/people.py`), the
papers a follow-up names, or else the per-paper judgement over the search's hits
(`rag/answer/paper_choice.py`), the same whatever the question's wording. Beside the papers come
the lines said before theirs: that none of the set is about it, that the papers are only the
nearest, which of the question's words no paper uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from rag import prompts
from rag.answer import paper_choice
from rag.answer.abstention import (
    Decision,
    decide,
    decided_by_a_side,
    question_terms,
    sides,
    words_no_paper_holds,
)
from rag.answer.named_papers import asked_of_one_named as named_alone
from rag.answer.paper_sets import (
    answerable_on,
    chosen_papers,
    of_the_set,
    only_ranking_words,
    pick_among,
    quoted_words,
    the_opposite,
    the_rest,
    theirs_first,
)
from rag.answer.rewrite import Condensed
from rag.answer.unanswered import rest_note
from rag.index.paper_index import Index
from rag.index.retrieve import Filters, hits_of
from rag.ingest.wanted import is_keyword_query
from rag.records import Hit
from rag.settings import Settings


@dataclass(frozen=True)
class PapersUsed:
    """The papers an answer uses (`relevant`), with the question as it now reads and what is
    said before their lines."""

    relevant: list[Hit]
    condensed: Condensed
    query: str
    decision: Decision | None = None  # the collection's decision, where the judgement was made
    chance: dict[str, float] = field(default_factory=dict)  # each judged paper's probability
    outside: bool = False  # the answer's papers are not among the previous answer's (a choice's)
    unaddressed: bool = False  # a people question whose other words none of their papers is about
    ranked: str = ""  # a choice that only ranks the papers listed ("which is faster?"): said first
    nearest_only: str | None = None  # the question has topic words no paper holds: said first
    mere_nearest: bool = False  # and its papers are only the nearest (no side of it is theirs)


def papers_used(
    index: Index,
    condensed: Condensed,
    query: str,
    hits: list[Hit],
    terms: list[tuple[str, bool]],
    own: Decision | None,
    settings: Settings,
    filters: Filters | None,
) -> PapersUsed:
    """Return the papers an answer to `query` uses, of `hits` (the search's) or of those
    `condensed` points at or names; `terms` are the question's, `own` the decision already made
    on the message's own hits (None: not made yet)."""
    least = settings.min_relevance
    decision = None
    chance: dict[str, float] = {}  # the per-paper judgement's probabilities, where it was made
    outside = False  # the answer's papers are not among the previous answer's (a choice's)
    unaddressed = False  # a people question whose other words none of their papers is about
    ranked = ""  # a choice that only ranks the papers listed ("which is faster?"): said first
    nearest_only: str | None = (
        None  # a question one paper answers alone has topic words no paper holds
    )
    mere_nearest = False  # and its papers are only the nearest (no side of it is theirs)
    if condensed.pick is not None and not question_terms(index, condensed.pick):
        # "which of the two is better?", "which one is best?": no word to pick by, only a
        # ranking the abstracts may each claim; each paper gives its line, for the reader to
        # judge, not "none of the papers listed earlier says this" (stop 58).
        condensed = replace(condensed, pick=None)
        relevant = hits_of(index, query, condensed.papers, hits)
    elif condensed.pick is not None and (doing := the_opposite(index, condensed)) is not None:
        # "which of them do not use RL?": the papers of the set that the same choice on "use
        # RL" leaves out (it picked Deng et al. and TreePO, both RL papers, on those words)
        relevant, nearest_only, query = the_rest(index, doing, condensed, hits, settings, filters)
        condensed = replace(
            condensed,
            question=query,
            original=query,  # its words are the choice's, which no sentence says
            papers=tuple(h.paper for h in relevant),
            pick=None,
        )
    elif condensed.pick is not None:
        # "Which of them is about fairness?", "Are any of them ...?": the per-paper judgement on
        # the question's own words picks among the papers referred to; when none qualifies, the
        # answer says so and gives the collection's best paper on those words.
        # "Which of them ...?" says one of them is; "Did Loubes study X?" does not, so a paper of
        # theirs must pass the per-paper bar among the collection's too.
        bar = settings.paper_probability if condensed.method == "people" else None
        relevant, outside = pick_among(
            index, condensed.pick, condensed.papers, settings, filters, bar
        )
        if condensed.method == "people" and (
            not relevant
            or (outside and not answerable_on(index, condensed.pick, settings, filters))
        ):
            # The words left beside the names ("co-authored", "protein folding") are no topic of
            # theirs nor of another paper: their papers, each with its line, after a line that
            # says the rest of the question is not what they are about.
            condensed, outside = replace(condensed, pick=None), False
            relevant = theirs_first(index, query, condensed.papers, hits, settings)
            unaddressed = True
        elif (not relevant or outside) and (
            ranking := only_ranking_words(index, condensed.pick or "")
        ):
            # "which is faster?", "which one is the most accurate?": no judgement of a paper on
            # "faster" ranks these, nor does another paper (after one paper on token pruning,
            # it offered the BP-vs-ZO paper's "34.8% faster convergence"); each says its own.
            ranked = of_the_set(condensed, prompts.NONE_RANKS_SET).format(words=ranking)
            condensed, outside = replace(condensed, pick=None), False
            relevant = theirs_first(index, query, condensed.papers, hits, settings)
        elif outside:
            query = condensed.pick or query
    elif condensed.method == "people":  # "Which papers has Wei Ju written?"
        relevant = theirs_first(index, query, condensed.papers, hits, settings)
    elif condensed.papers:
        # The follow-up names its papers: answer from them, whatever else matches the words.
        relevant = hits_of(index, query, condensed.papers, hits)
    else:
        # One judgement per retrieved paper (rag/answer/paper_choice.py), the same whatever the
        # question's wording: does this paper address the question? The question is answered
        # when the collection signals say it has a paper on it (rag/answer/abstention.py), or
        # when one paper's own probability is high enough to answer alone.
        decision = own if own is not None else decide(index, query, hits, least)
        # "privacy or safety": answerable when a side is (the follow-up's judgement above
        # read the whole question's decision, as it was fitted on).
        decision = decided_by_a_side(index, query, hits, least, decision)
        judged = paper_choice.judge(index, query, hits, terms, decision)
        chance = {j.hit.paper.id: j.probability for j in judged}
        relevant = chosen_papers(hits, judged, decision, settings)
        unheld = words_no_paper_holds(index, query) if relevant else []
        asked_as_is = not relevant and condensed.method == "as-is"
        one = named_alone(index, query, filters) if asked_as_is else None
        if one is not None:
            # "does ASMC support API fees?": no paper answers it, yet it names a paper of the
            # collection, of which it is asked (it said that no paper came near): which of its
            # words no paper uses is said first, then what the paper's abstract says.
            condensed, relevant = one, hits_of(index, query, one.papers, hits)
            unheld = words_no_paper_holds(index, one.asked or "")  # never none (`named_alone`)
            nearest_only = prompts.NO_PAPER_USES.format(words=quoted_words(unheld))
        elif unheld and _one_side_held(index, query):
            # "LLM safety or privacy?": the papers on privacy answer one side of the question,
            # so they are no mere nearest; that no paper writes "safety" is still worth saying.
            nearest_only = prompts.NO_PAPER_USES.format(words=quoted_words(unheld))
        elif unheld and not decision.answerable:
            nearest_only, mere_nearest = (
                prompts.NEAREST_ONLY.format(words=quoted_words(unheld)),
                True,
            )
        elif relevant and max(chance.values()) < settings.paper_probability:
            # "do larger models always reason better?": every word is common in the collection,
            # yet no paper is judged to be on the question (on SciFact, 6 of the 7 claims
            # answered so had none of their papers shown).
            nearest_only, mere_nearest = prompts.NEAREST_WEAK, True
        elif unheld and is_keyword_query(condensed.original):
            # "graph neural networks oversmoothing": papers on the rest of the query answer it,
            # and the reader is told first which of its words none of them uses. Only of a
            # few bare words, each of which is its topic: in a sentence the word judgement
            # (rag/answer/topic_words.py) takes "gears" in "switching gears: ..." or "heard"
            # in "I heard that ..." for topics as readily as "hallucination".
            nearest_only = prompts.NO_PAPER_USES.format(words=quoted_words(unheld))
        if condensed.unanswered is not None:
            # "does it handle long sentences?" after no paper on LSTMs: the nearest papers are no
            # answer now either, so the collection has none again; one on the follow-up's other
            # words answers them, after a line that says so.
            relevant = [] if mere_nearest else relevant
            nearest_only, mere_nearest = (
                rest_note(condensed.unanswered) if relevant else None,
                False,
            )
    return PapersUsed(
        relevant, condensed, query, decision, chance, outside, unaddressed, ranked,
        nearest_only, mere_nearest,
    )  # fmt: skip


def _one_side_held(index: Index, question: str) -> bool:
    """Whether one of the question's sides ("X or Y", "X vs Y", "a survey on X") has every topic
    word in some paper, as `paper_choice.judge` weighs them on their own ("or not" has none)."""
    return any(
        question_terms(index, part) and not words_no_paper_holds(index, part)
        for part in sides(index, question)
    )
