"""Which papers answer: the per-paper judgement's choice, and a follow-up's among a set.

`chosen_papers` keeps the retrieved papers the judgement (rag/answer/paper_choice.py) passes;
`pick_among` chooses among the previous answer's papers ("which of them ...?"), `the_rest` gives
those a negated choice leaves ("which of them do not use RL?"), `theirs_first` orders a
person's papers, `named_beyond_the_set` makes a choice of a follow-up naming a method the papers
it points at do not ("do they use RoPE?")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag import prompts
from rag.answer import paper_choice
from rag.answer.abstention import (
    Decision,
    decide,
    documents_holding,
    done_without_share,
    only_ranks,
    question_terms,
    term_coverage,
    term_words,
)
from rag.answer.history import paper_name
from rag.answer.negation import asked_the_opposite
from rag.answer.references import without_reference
from rag.answer.rewrite import Condensed, asked_of
from rag.answer.unanswered import and_joined
from rag.index.paper_index import Index
from rag.index.retrieve import Filters, hits_of, search
from rag.records import Hit, Paper
from rag.settings import Settings

# "Which of them do not use RL?": a paper of the set holding this much of "use RL" (IDF-weighted,
# as the abstention reads it) says it does, whatever the choice on those words picked.
SAYS_IT_COVERAGE = 0.5
# The verb or preposition before what a negated choice is about ("use RL", "need clean labels",
# "about graphs", "rely on labels"): the line quotes what follows.
_DOING_VERB = re.compile(
    r"^(?:(?:use|uses|using|need|needs|require|requires|rely\s+on|relies\s+on|have|has|do|does|"
    r"involve|involves|apply|applies|train\s+with|deal\s+with)\s+)?"
    r"(?:(?:about|on|with|of)\s+)?",
    re.IGNORECASE,
)


def the_rest(
    index: Index,
    doing: str,
    condensed: Condensed,
    hits: list[Hit],
    settings: Settings,
    filters: Filters | None,
) -> tuple[list[Hit], str, str]:
    """For "which of them do not use RL?" (`doing`: "use RL"), the papers of the set that do
    not, the line said first and the question their lines are chosen on.

    A paper does when the choice on `doing` picks it (`pick_among`), or when it holds that much of
    its words (`SAYS_IT_COVERAGE`, as the abstention reads them: LDPVR writes "reinforcement
    learning via GRPO", yet the choice on "use RL" did not pick it). The line names those left
    out, so the reader sees what was judged; when every one does, the answer is what each says
    on it.
    """
    picked, elsewhere = pick_among(index, doing, condensed.papers, settings, filters)
    left_out = set() if elsewhere else {h.paper.id for h in picked}
    terms = question_terms(index, doing)
    left_out |= {
        p.id for p in condensed.papers if term_coverage(index, terms, p.id) >= SAYS_IT_COVERAGE
    }
    listed = list(hits_of(index, condensed.question, condensed.papers, hits))
    # what the choice was judged on, quoted: "use RL" as "RL", "about graphs" as "graphs"
    words = quoted_words([_DOING_VERB.sub("", doing, count=1) or doing])
    them = [h.paper for h in listed if h.paper.id in left_out]
    if len(them) == len(listed):
        return listed, prompts.EACH_IN_SET_DOES.format(words=words), doing
    rest = [h for h in listed if h.paper.id not in left_out]
    if not them:
        return rest, prompts.NONE_IN_SET_DOES.format(words=words), "What about them?"
    line = prompts.SOME_IN_SET_DO.format(
        names=and_joined([paper_name(p) for p in them]),
        are="is" if len(them) == 1 else "are",
        words=words,
    )
    # what each of the others says, as "what about the others?" has it: no sentence says what
    # a paper does not do
    return rest, line, "What about them?"


def the_opposite(index: Index, condensed: Condensed) -> str | None:
    """The words of a choice among a set that asks for the papers that do not do them ("which
    of them do not use RL?": "use RL"), or None (`negation.asked_the_opposite`). None too when
    a paper of the set says it does without them: the choice on the whole question finds it
    ("which one doesn't need sensitive labels in the target domain?": CELL works "without
    requiring target sensitive labels")."""
    if condensed.method == "people" or not condensed.pick or len(condensed.papers) < 2:
        return None
    doing = asked_the_opposite(condensed.pick)
    terms = question_terms(index, doing) if doing else []
    if any(done_without_share(index, terms, p) >= SAYS_IT_COVERAGE for p in condensed.papers):
        return None
    return doing


def of_the_set(condensed: Condensed, plural: str) -> str:
    """`plural` ("None of the papers listed earlier ..."), or its form for a set of one paper
    ("The paper listed earlier ..."), which the choice was made among."""
    if len(condensed.papers) != 1:
        return plural
    return {
        prompts.NONE_IN_SET: prompts.NONE_IN_SET_ONE,
        prompts.NONE_IN_SET_NOR_ELSEWHERE: prompts.NONE_IN_SET_NOR_ELSEWHERE_ONE,
        prompts.NONE_RANKS_SET: prompts.NONE_RANKS_SET_ONE,
    }[plural]


def chosen_papers(
    hits: list[Hit],
    judged: Sequence[paper_choice.Judged],
    decision: Decision,
    settings: Settings,
) -> list[Hit]:
    """Return the retrieved papers that address the question, most probable first (none:
    abstain), from each one's probability (`judged`, in the order of `hits`)."""
    if not hits:
        return []
    if not decision.answerable and not paper_choice.answers_alone(judged, decision, settings):
        return []
    # Answerable but no paper past the bar: the most probable one, as the nearest (the answer
    # says so: `prompts.NEAREST_WEAK`), since the signals say the collection has one.
    return paper_choice.chosen(judged, settings.paper_probability) or [
        max(judged, key=lambda j: j.probability).hit
    ]


def answerable_on(index: Index, words: str, settings: Settings, filters: Filters | None) -> bool:
    """Whether `words`, asked on their own, would be answered rather than abstained on."""
    hits = search(
        index, words, k=settings.top_k, retriever=settings.retriever, filters=filters, rescore=True
    )
    decision = decide(index, words, hits, settings.min_relevance)
    judged = paper_choice.judge(index, words, hits, question_terms(index, words), decision)
    return bool(chosen_papers(hits, judged, decision, settings))


def theirs_first(
    index: Index, query: str, papers: Sequence[Paper], hits: list[Hit], settings: Settings
) -> list[Hit]:
    """Hits for `papers`, those the search found first, at most `top_k` of them."""
    found = {h.paper.id for h in hits}
    ordered = sorted(papers, key=lambda p: p.id not in found)[: settings.top_k]
    return hits_of(index, query, ordered, hits)


def described_papers(
    index: Index, condensed: Condensed, settings: Settings, filters: Filters | None
) -> Condensed:
    """The follow-up that names a paper by its topic ("the compression paper - does it need
    retraining?"), asked of those the conversation showed that the choice on those words picks
    (`pick_among`, as "which one is about compression?" would), its description replaced by their
    names; as typed when none of them is on it (the description may be of another paper), unless
    a pointer before it sets the last answer's papers beside the collection's paper on it
    ("compare it with the graph fairness one" after CLINIC alone: CLINIC and CELL)."""
    picked, outside = pick_among(
        index, condensed.described or "", condensed.papers, settings, filters
    )
    if not picked or (outside and not condensed.pointed):
        return Condensed(condensed.original, condensed.original)
    papers = tuple(h.paper for h in picked)
    start, end = condensed.described_span
    names = " and ".join(paper_name(p) for p in papers)
    text = condensed.original
    asked = f"{text[:start]}{names}{text[end:]}"
    ids = {p.id for p in papers}
    pointed = tuple(p for p in condensed.pointed if p.id not in ids)
    if pointed:
        # "compare it with the continual learning one": "it" (CA-AMA) beside MePo, named after
        # the question as any follow-up asked of papers is
        asked = asked_of(asked, pointed).question
        papers = (*pointed, *papers)
    return Condensed(asked, text, "rule", papers)


def only_ranking_words(index: Index, words: str) -> str:
    """The words of a choice as typed when each of its topic words only ranks ("faster",
    "cheapest": `abstention.only_ranks`; "most accurate", an adjective after more, most, less or
    least), else "": "which is faster?" asks to rank the papers at hand, not about a topic
    another paper could be on. "less memory" names a topic, memory."""
    typed = term_words(index, words)
    ranking = []
    for m in typed:
        graded = _GRADED.search(words[: m.start()])
        if graded and _adjective(m.group().lower()):
            ranking.append(words[graded.start() : m.end()])
        elif only_ranks(m.group().lower()):
            ranking.append(m.group())
    return and_joined(ranking) if typed and len(ranking) == len(typed) else ""


_GRADED = re.compile(r"\b(?:more|most|less|least)\s+$", re.IGNORECASE)


def _adjective(word: str) -> bool:
    """Whether `word` is an adjective or adverb in lemminflect's English dictionary."""
    from lemminflect import getAllLemmas

    return bool({"ADJ", "ADV"} & set(getAllLemmas(word)))


def pick_among(
    index: Index,
    words: str,
    papers: Sequence[Paper],
    settings: Settings,
    filters: Filters | None,
    least: float | None = None,
) -> tuple[list[Hit], bool]:
    """Return the papers of `papers` that a choice on `words` picks, or else the collection's
    best paper on `words`, with whether it is the latter (empty: the collection has none).

    Each paper is judged twice by the same per-paper model (rag/answer/paper_choice.py): among
    the collection's papers on `words` (does it address them at all, with `pick_probability`
    as the bar, since the question says one of them does), and among `papers` alone (does it
    stand out from the others, with `paper_probability`). It is picked when it passes both.
    `least` replaces `pick_probability` where the question does not say one of them qualifies.
    """
    collection = search(
        index, words, k=settings.top_k, retriever=settings.retriever, filters=filters, rescore=True
    )
    terms = question_terms(index, words)
    decision = decide(index, words, collection, settings.min_relevance)
    found = {h.paper.id for h in collection}
    theirs = hits_of(index, words, papers, collection)
    missing = sorted((h for h in theirs if h.paper.id not in found), key=lambda h: -h.relevance)
    pool = [*collection, *missing]
    overall = {
        j.hit.paper.id: j.probability
        for j in paper_choice.judge(index, words, pool, terms, decision)
    }
    # Among the set, in the order the search on the new words ranks them.
    place = {h.paper.id: i for i, h in enumerate(pool)}
    ranked = sorted(theirs, key=lambda h: place[h.paper.id])
    ranked = [Hit(h.paper, i, h.score, h.snippet, h.relevance) for i, h in enumerate(ranked, 1)]
    among = decide(index, words, ranked, settings.min_relevance)
    picked = [
        j.hit
        for j in sorted(
            paper_choice.judge(index, words, ranked, terms, among), key=lambda j: -j.probability
        )
        if j.probability >= settings.paper_probability
        and overall[j.hit.paper.id] >= (settings.pick_probability if least is None else least)
    ]
    if picked:
        return picked, False
    ours = {h.paper.id for h in theirs}
    rest = [h for h in collection if h.paper.id not in ours]
    best = sorted(
        (h for h in rest if overall[h.paper.id] >= settings.paper_probability),
        key=lambda h: -overall[h.paper.id],
    )
    if best:
        return best[:1], True
    return (rest[:1] if rest and decision.answerable else []), True


def quoted_words(words: Sequence[str]) -> str:
    """“PPO”; “protein” or “folding”; “a”, “b” or “c”."""
    marked = [f"“{w}”" for w in words]
    return marked[0] if len(marked) == 1 else f"{', '.join(marked[:-1])} or {marked[-1]}"


def named_beyond_the_set(index: Index, condensed: Condensed) -> str | None:
    """The words a follow-up asks of the papers it points at ("do they use RoPE?", "does it use
    GRPO?"), when they name a method or acronym none of those papers holds, nor spells out
    (`spells_out`: "supervised fine-tuning" is SFT), and another paper of the collection does:
    a choice among them on those words (`pick_among`), which finds none and offers the
    collection's paper on it. Asked of four papers on transformers, "do they use RoPE?" quoted
    a line of each, none on RoPE ("Deployment is the bottleneck"), and never the two papers
    that use it (a new user, stop 67). None otherwise: a plain word may be said otherwise."""
    if condensed.method != "rule" or condensed.pick is not None or not condensed.papers:
        return None
    words = " ".join(without_reference(condensed.original).split())
    bm25 = index.bm25()
    rows = {bm25.position(p.id) for p in condensed.papers}
    typed = {bm25.stem(w): w for w in re.findall(r"[\w-]+", words)}
    for term, name in question_terms(index, words):
        as_typed = typed.get(term, term)
        if not name or sum(c.isupper() for c in as_typed) < 2:
            continue  # typed as an acronym or a method's name: "LoRA", "GRPO" (not "eli5")
        holders = {int(r) for r in documents_holding(index, term, name)}
        if not holders or holders & rows:
            continue  # no paper's ("API fees"): the papers' lines, under a note none says it
        if not any(spells_out(as_typed, p.abstract) for p in condensed.papers):
            return words
    return None


# Words an acronym's letters pass over: "mixture of experts" is MoE.
_PASSED_OVER = frozenset("of the and for to in on a an with".split())  # noqa: SIM905


def spells_out(acronym: str, text: str) -> bool:
    """Whether `text` has words whose initials are `acronym`'s capitals, in order, next to each
    other ("supervised fine-tuning": SFT; "proximal policy optimization": PPO; "rotary position
    embeddings": RoPE): an abstract may say what the acronym stands for and never use it. Words
    that happen to start so ("a simple fine-tuning") count too: the follow-up is then asked of
    the papers as before, never told wrongly that they are not about it."""
    letters = [c.lower() for c in acronym if c.isupper()]
    if len(letters) < 2:
        return False
    initials = [
        w[0].lower() for w in re.findall(r"[A-Za-z]+", text) if w.lower() not in _PASSED_OVER
    ]
    n = len(letters)
    return any(initials[i : i + n] == letters for i in range(len(initials) - n + 1))
