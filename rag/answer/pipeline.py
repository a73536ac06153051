"""Answer a question from the index: retrieve, abstain or prompt, check citations, stream.

Text is streamed sentence by sentence: a sentence is shown only after the citation check has
passed it, so what the user sees is never retracted and never cites an unretrieved paper.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from rag import prompts
from rag.answer import topic_words
from rag.answer.abstention import (
    Decision,
    decide,
    question_terms,
    term_rarity,
    topic_spans,
    without_situation_words,
    words_no_paper_holds,
)
from rag.answer.citations import CitationChecker, PromptLeakDetector
from rag.answer.compose import (
    Kind,
    asks_how_much,
    asks_of_papers,
    compose,
    question_kind,
    without_names,
)
from rag.answer.continuation import among, asks_the_collection, continues
from rag.answer.everyday import everyday_talk
from rag.answer.evidence import Evidence, select_evidence
from rag.answer.history import (
    Resolver,
    answers_only,
    last_answer,
    last_answer_papers,
    papers_of,
    set_of,
    to_turns,
)
from rag.answer.language import (
    can_translate,
    detect_language,
    drawn_from_english,
    likely_language,
    translate,
)
from rag.answer.limitations import names_method
from rag.answer.model_sentences import SentenceGate, model_synthesis
from rag.answer.named_papers import asked_of_named, record_of_named
from rag.answer.nearest import near_enough, nearest_listed
from rag.answer.overview import everyday_reply, no_topic
from rag.answer.paper_sets import (
    described_papers,
    named_beyond_the_set,
    of_the_set,
    quoted_words,
)
from rag.answer.papers_used import papers_used
from rag.answer.people import asked_of_people, others_of_theirs, their_papers
from rag.answer.record_questions import (
    BIBTEX,
    names_no_paper,
    names_only_fields,
    record_fields,
    record_line,
    records_of_them,
)
from rag.answer.references import (
    asks_for_any,
    asks_of_a_pair,
    opens_on_a_pointer,
    opens_with_which,
    points_back_only,
    without_reference,
)
from rag.answer.relevance import RelevanceCheck
from rag.answer.rendering import (
    Answer,
    Citation,
    Renderer,
    join_notices,
    note_record,
)
from rag.answer.resolution import condensed_question, naming_another, source_of
from rag.answer.rewrite import Condensed, asked_of
from rag.answer.topicless import (
    asks_no_paper,
    searched_asks_no_paper,
)
from rag.answer.unanswered import listed_note
from rag.backends.base import Backend, Prompt
from rag.errors import FilterMatchesNothingError
from rag.index.paper_index import Index
from rag.index.retrieve import Filters, hits_of, search
from rag.index.spelling import corrected
from rag.ingest.naming import method_name
from rag.ingest.wanted import (
    names_what_it_wants,
)
from rag.ingest.wanted import question_terms as wanted_terms
from rag.records import Hit, Paper
from rag.settings import Settings
from rag.stance.choose import judge_for
from rag.text import content_stems

# An extractive answer drawing on this many papers or more gives each its own line, however the
# question was worded: "LLMs" cited nine papers in one paragraph.
LINES_FROM_PAPERS = 3


def answer_stream(
    index: Index,
    question: str,
    *,
    settings: Settings,
    backend: Backend | None,
    filters: Filters | None = None,
    top_k: int | None = None,
    retriever: str | None = None,
    history: Sequence[Any] | None = None,
    language: str | None = None,
) -> Iterator[str | Answer]:
    """Yield the answer's shown text piece by piece, then the final `Answer`.

    Args:
        index: the open index.
        question: the question; with `history`, possibly a follow-up.
        settings: thresholds, evidence size, generation limits.
        backend: the LLM; None for the extractive answer.
        filters: restrictions on the papers used.
        top_k: papers to use (default settings.top_k).
        retriever: hybrid, dense or bm25 (default settings.retriever).
        history: the chat so far: (question, Answer) pairs, `history.Turn`s or chat
            messages ({"role", "content"}); a follow-up is rewritten before retrieval.
        language: the question's language when known (detected otherwise).

    Raises:
        FilterMatchesNothingError: the filter matches no paper.
    """
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    k = top_k or settings.top_k
    name = backend.name if backend else "extractive"
    notice = None
    query = question
    language = language or detect_language(question)
    if language != "en":
        translated = translate(backend, question) if backend and can_translate(backend) else None
        timings["translate_s"] = time.perf_counter() - t0
        if translated is None:
            # Searching would find unrelated papers and "no paper" would be false: say why.
            yield from _english_only(question, name, timings, t0, language)
            return
        query, notice = translated, drawn_from_english(language)
    # A misspelled word ("graph nueral netwroks") is searched as the collection's word it was
    # meant to be (rag/index/spelling.py); the answer shows what was searched.
    typed = corrected(index, query)
    terms = question_terms(index, typed)
    condensed = Condensed(query, query)

    def resolve(text: str) -> Paper | None:  # the paper an answer sentence came from
        return source_of(index, text)

    if history:
        llm = backend if settings.follow_up == "llm" else None
        condensed = condensed_question(index, query, terms, history, llm, resolve)
        timings["condense_s"] = time.perf_counter() - t0
    if (
        condensed.method == "as-is"
        and (points_back_only(query) or opens_on_a_pointer(query))
        and not _any_papers(history, resolve)
    ):
        # "the second one" first, or after a question that could not be read: no papers to
        # point at (it searched "the second one" and quoted ExPLAIND on Grokking, a new user;
        # "the second one - what is its main limitation?" quoted Grokking's stages, another).
        reply = prompts.NO_EARLIER_ANSWER.format(message=question.strip())
        condensed = replace(condensed, reply=reply)
    if condensed.described is not None:
        condensed = described_papers(index, condensed, settings, filters)
    if condensed.question == query:
        query = typed
    else:  # rewritten from the history
        query = corrected(index, condensed.question)
        terms = question_terms(index, query)
    if condensed.method == "as-is":
        # "Which papers has Wei Ju co-authored?", "what do Ju et al. find?": about the papers of
        # the people it names, read from the collection's own authors (rag/answer/people.py).
        # "ConPress vs LDPVR": about the papers it names (rag/answer/named_papers.py); "CELL vs
        # MAI & Loubes" about both.
        condensed = (
            asked_of_people(index, condensed.question, settings, filters)
            or asked_of_named(index, condensed.question, filters)
            or condensed
        )
    else:
        condensed = naming_another(index, condensed, filters)
    # "who wrote it?", "authors?", "when was it published?": the record answers, not the abstract.
    fields = record_fields(condensed.original)
    if not condensed.papers and (record := record_of_named(index, condensed.original, filters)):
        condensed, fields = record  # "bibtex for IDFT", "reference for Certified Circuits"
    of_last = names_only_fields(condensed.original) or (
        BIBTEX in fields and names_no_paper(condensed.original)  # "export both as BibTeX"
    )
    if (
        fields
        and not condensed.papers
        and of_last
        and (last_papers := last_answer_papers(history, resolve))
    ):
        if records_of_them(condensed.original):  # "export them" after one paper of a set
            last_papers = set_of(to_turns(history), last_papers, resolve)
        condensed = replace(condensed, papers=tuple(last_papers), method="rule")
    spans = functools.partial(topic_spans, index)

    def listed(papers: Sequence[Paper]) -> str | None:
        # Of the papers the follow-up points at in the history ("the second one", "them",
        # "authors?"), not those it names: when an answer that found none on its question listed
        # them as the nearest, the answer says so first (rag/answer/unanswered.py).
        if condensed.method not in _REFERRED or not condensed.papers:
            return None
        return listed_note(history, papers, resolve, spans)

    if fields and condensed.papers and condensed.pick is None:
        asked = condensed.question if condensed.question != question else None
        # "bibtex please", "authors?" name no topic: each card's relevance is its paper's to the
        # question its answer was on (it was 0.00 to "bibtex please", a new user).
        last = last_answer(answers_only(to_turns(history))) if history and of_last else None
        searched = (
            _with_abstracts(index, last.question, k=k, retriever=retriever or settings.retriever,
                            filters=filters)
            if last is not None
            else []
        )  # fmt: skip
        basis = last.question if last is not None else query
        found = {h.paper.id: h for h in hits_of(index, basis, condensed.papers, searched)}
        of = [found.get(p.id) or Hit(p, 0, 0.0, p.title or "", 0.0) for p in condensed.papers]
        note = listed(condensed.papers)
        yield from _record_answer(
            question, of, fields, name, timings, t0, asked, notice, language, note
        )
        return
    kind = question_kind(query)
    standalone = query if query != question else None
    if condensed.reply is not None:  # "the third one" after two papers
        yield condensed.reply
        timings["total_s"] = time.perf_counter() - t0
        yield Answer(question, condensed.reply, (), (), False, (), name, notice, timings)
        return
    if condensed.method == "chat" or (
        not condensed.papers
        and condensed.pick is None
        # "who wrote it?" with no answer before it: no paper is named, and searching "wrote"
        # would say that the collection has no paper on it
        and (not terms or (fields and names_no_paper(condensed.original)))
    ):
        # Nothing to search for ("hello", "summarize the collection", "love it"): say what the
        # collection holds rather than that it has no paper on the question.
        yield from _overview(
            index, question, name, notice, timings, t0, standalone, language, history=history
        )
        return
    hits = _with_abstracts(
        index, query, k=k, retriever=retriever or settings.retriever, filters=filters
    )
    timings["retrieve_s"] = time.perf_counter() - t0
    least = settings.min_relevance
    own: Decision | None = None  # the decision on the message's own hits, once it is made
    if condensed.method == "as-is" and hits:
        own = decide(index, query, hits, least)
        if searched_asks_no_paper(index, condensed.original, own, query):
            # "full paper list?", "what are your capabilities": a paper holds "full" or
            # "capabilities", yet the message asks about the collection (rag/answer/topicless.py).
            yield from _overview(
                index, question, name, notice, timings, t0, standalone, language, history=history
            )
            return
        if everyday_talk(index, query, hits) and not asks_no_paper(index, query):
            # "whats 18 times 27", first or after an answer: everyday talk that no paper comes
            # near (rag/answer/everyday.py). Answered, "times" quoted ten papers on inference
            # time; after an answer it was asked of that answer's paper ("... (CPO)?"). Chat
            # ("gracias!") gets the collection's overview, as before.
            unused = words_no_paper_holds(index, query)
            if not unused:
                yield from _overview(
                    index, question, name, notice, timings, t0, standalone, language, everyday=True
                )
                return
            # "sourdough bread recipe", "best pizza in naples": which words no paper uses says
            # more, as the abstention says it, and none came near
            said = _naming_unused(f"{prompts.NO_PAPER_ON_IT} {prompts.NONE_NEAR}", unused)
            yield said
            timings["total_s"] = time.perf_counter() - t0
            yield Answer(
                question, said, (), (), True, (), name, notice, timings, standalone, language
            )
            return
    if history and own is not None:
        # "main limitation?" after an answer: no pronoun, no name, yet about its papers when its
        # own search says so (rag/answer/continuation.py); a new topic is searched as typed.
        previous = last_answer_papers(history, resolve, condensed.original)
        paper_bar = settings.paper_probability
        if (
            previous
            # "anything on safety?" asks the collection (it was asked of the long-context paper
            # just shown, quoting its "brittle position dependencies")
            and not asks_for_any(condensed.original)
            and continues(index, query, previous, hits, terms, own, settings.continue_probability)
            and not asks_the_collection(index, query, previous, hits, terms, own, paper_bar)
        ):
            theirs = among(index, query, previous, hits, terms, least, paper_bar)
            if theirs and asks_of_a_pair(condensed.original):
                theirs = list(previous)  # "Both work at inference time - which gains more?"
            words = opens_with_which(condensed.original)
            if theirs and words and len(previous) > 1:
                # "which uses tree search?" after a list: a choice among it, as "which one" is
                condensed = replace(asked_of(query, previous, "context"), pick=words)
                query = standalone = condensed.question
            elif theirs:  # none when every one of them is a title-only record
                condensed = naming_another(index, asked_of(query, theirs, "context"), filters)
                query = standalone = condensed.question
    if words := named_beyond_the_set(index, condensed):
        condensed = replace(condensed, pick=words)  # "do they use RoPE?": none of them names it
    used = papers_used(index, condensed, query, hits, terms, own, settings, filters)
    relevant, condensed, query, decision, chance = (
        used.relevant, used.condensed, used.query, used.decision, used.chance,
    )  # fmt: skip
    outside, unaddressed, ranked = used.outside, used.unaddressed, used.ranked
    nearest_only, mere_nearest = used.nearest_only, used.mere_nearest
    # "What about the others?": judged as the set's question was, less the papers shown then.
    shown_before = {p.id for p in condensed.excluded}
    if shown_before:
        relevant = [h for h in relevant if h.paper.id not in shown_before]
        hits = [h for h in hits if h.paper.id not in shown_before]
    if fields and relevant and not outside and not mere_nearest:
        # "who are the authors of the paper on X?"; not of papers that are only the nearest
        # ("Who invented backpropagation?": their authors would read as the answer)
        # "which of them is most recent?" after an abstention: of the papers it listed, which
        # the answer says are only the nearest (rag/answer/unanswered.py)
        note = listed([h.paper for h in relevant]) or nearest_only
        yield from _record_answer(
            question, relevant, fields, name, timings, t0, standalone, notice, language, note
        )
        return
    named = bool(condensed.papers)  # the follow-up's papers: each gets its line
    # "Tell me more.", "the second one": a follow-up on papers already shown gets what was not
    # said of them yet, where their abstracts have more about the question.
    of_named = named and condensed.pick is None
    wants = names_what_it_wants(condensed.original)
    earlier = "\n".join(t.answer for t in to_turns(history)) if of_named else ""
    said = "" if wants else earlier
    answerability = None if decision is None else round(decision.probability, 4)
    # A choice among the set is answered on its own words: "Which of them are federated?" wants
    # each picked paper's sentence on federation, and the papers' names in the standalone
    # question ("Which of IDFT and Guan et al. are federated?") name no topic.
    asked = condensed.pick if condensed.pick is not None else query
    if condensed.method == "context":  # "main limitation?" is judged on its words, not names
        asked = corrected(index, condensed.original)
    elif condensed.asked and condensed.pick is None and question_terms(index, condensed.asked):
        asked = condensed.asked  # "main limitation of Seo et al.?", "ConPress vs LDPVR: speed?"
    # "why did they do it?", searched as "why did IDFT and Guan et al. do it?": it asks nothing
    # but a kind of sentence, so each paper's line is chosen on the message's own words (the
    # names the rewrite put in would pull it to the sentence naming the paper).
    typed = corrected(index, condensed.original) if of_named else ""
    # "what about the second one?", "tell me more about Guan et al.": no word of its own to
    # judge sentences on, so the paper's sentences of the role it wants come first (of those
    # not said yet), not whichever happens to pass a gate on the paper's name.
    # Nor does "Teng et al. vs ASMC" or "papers by Wei Ju": the names are of the papers asked
    # about, which every sentence of theirs is (they once led to "These abstracts do not seem
    # to address this").
    no_words = of_named and not _words_of_its_own(index, without_names(typed, condensed.papers))
    # It asks something of the papers it names ("main limitation?", "does the second one use
    # tools?", "is it safe?"): when none of them has a sentence about it, the answer says so.
    # "is it safe?" names no kind of sentence, only words of its own, which a line must be about.
    own_words_asked = of_named and not wants and not no_words
    # "which is faster?" was said first to be in no abstract of theirs: not said again
    absent = ((of_named and wants) or own_words_asked) and not ranked
    own_words = typed if absent else asked
    asked_papers = [h.paper for h in relevant]
    # "what did the second one find?": "second one" points back and asks nothing of them.
    only_wants = absent and not asks_of_papers(without_reference(own_words), asked_papers)
    evidence = select_evidence(
        index.sentence_embedder, asked, relevant, settings.evidence_sentences
    )
    if (
        not evidence
        and not relevant
        and not condensed.papers
        and not any(is_name for _, is_name in terms)  # "KKT", "AIME25": a topic it lacks
        and not filters  # what matched nothing is the filtered part, not the collection
        and asks_no_paper(index, query)
    ):
        # "which topics does the collection cover?", "cool": no paper is asked about, so "the
        # collection has no paper on this question" would be false.
        yield from _overview(
            index, question, name, notice, timings, t0, standalone, language, True, history
        )
        return
    if not evidence and language == "en" and not shown_before and condensed.pick is None:
        # "Was ist Label-Rauschen?" escapes the function-word rule; before saying the collection
        # has no paper on it, ask the language model (rag/answer/language.py).
        other = likely_language(question)
        if other != "en":
            searched_s = time.perf_counter() - t0  # the English search, counted in the total
            for piece in answer_stream(
                index, question, settings=settings, backend=backend, filters=filters,
                top_k=top_k, retriever=retriever, history=history, language=other,
            ):  # fmt: skip
                if isinstance(piece, Answer):
                    piece.timings["searched_as_english_s"] = searched_s
                    piece.timings["total_s"] = piece.timings.get("total_s", 0.0) + searched_s
                yield piece
            return
    if not evidence:
        said = (
            prompts.NO_OTHER
            if shown_before
            else of_the_set(condensed, prompts.NONE_IN_SET_NOR_ELSEWHERE)
            if condensed.pick is not None and condensed.papers
            else prompts.ABSTAIN
        )
        unused = words_no_paper_holds(index, query) if said is prompts.ABSTAIN else []
        if said is prompts.ABSTAIN and not near_enough(hits, settings.nearest_floor):
            # "best hiking trails in the Alps" by BM25 within one author's papers, "what's the
            # weather like today?": none listed (rag/answer/nearest.py)
            said, hits = f"{prompts.NO_PAPER_ON_IT} {prompts.NONE_NEAR}", []
        said = _naming_unused(said, unused)
        yield said
        timings["total_s"] = time.perf_counter() - t0
        # After papers on it were shown ("any other papers on that?"), the next most probable
        # come first: IndexGuard, "Federated ... fine-tuning", before a Markov-chain paper.
        bar = 0.0 if shown_before else settings.paper_probability
        nearest = nearest_listed(hits, chance, bar)
        yield Answer(
            question, said, (), (), True, nearest, name, notice, timings, standalone,
            language, answerability,
        )  # fmt: skip
        return

    leak = PromptLeakDetector(prompts.SYSTEM, prompts.CONDENSE_SYSTEM, names=prompts.EXAMPLE_NAMES)
    stance = judge_for(settings.stance, settings)
    checker = CitationChecker(index.embedder, evidence, settings.support_threshold, leak, stance)
    # A follow-up asked of the papers it names is judged without their names ("is ConPress
    # safe?" as "is safe?": any sentence naming ConPress would pass).
    judged_on = without_names(asked, asked_papers) if own_words_asked else asked
    relevance = _relevance_check(index, judged_on, evidence, settings)
    render = Renderer(evidence, settings.unsupported)
    if outside:  # one line first: none of the previous papers; what follows is from elsewhere
        timings.setdefault("first_sentence_s", time.perf_counter() - t0)
        people = condensed.method == "people"
        yield render.note(
            prompts.NONE_BY_PEOPLE.format(who=condensed.who)
            if people
            else of_the_set(condensed, prompts.NONE_IN_SET)
        )
    elif ranked:
        timings.setdefault("first_sentence_s", time.perf_counter() - t0)
        yield render.note(ranked)
    elif condensed.method == "people" and condensed.pick is None:
        yield render.note(their_papers(condensed, len(relevant), unaddressed, bool(filters)))
    elif others := others_of_theirs(condensed, len(relevant)):
        yield render.note(others)
    elif only_listed := listed(asked_papers):
        # "What about the second one?" after an abstention: only the nearest paper it listed
        timings.setdefault("first_sentence_s", time.perf_counter() - t0)
        yield render.note(only_listed)
    elif nearest_only:  # "polysemantic neurons": a paper on neurons is no paper on the question
        timings.setdefault("first_sentence_s", time.perf_counter() - t0)
        yield render.note(nearest_only)
    timings["evidence_s"] = time.perf_counter() - t0
    bullets = kind is Kind.LIST

    if backend is not None:
        # The model's job: one or two sentences of synthesis above the per-paper lines.
        # The papers whose own method the question names ("what are the weaknesses of
        # ConPress?") or that a follow-up is asked of ("limitations?" after ConPress): asked its
        # limitations, only a sentence that states one answers (rag/answer/limitations.py).
        asked_of_them = {p.id for p in condensed.papers}
        own_method = (
            frozenset(
                ev.n
                for ev in evidence
                if ev.hit.paper.id in asked_of_them
                or names_method(asked, method_name(ev.hit.paper.abstract))
            )
            if kind is Kind.LIMITATION
            else frozenset()
        )
        copies = bool(getattr(backend, "copies_sources", False))  # copies prompt lines
        gate = SentenceGate(
            question, kind, evidence, render, checker, relevance, own_method, copies, timings, t0
        )
        said_of_it = yield from model_synthesis(
            backend, build_prompt(query, evidence), gate, settings
        )
        notice = join_notices(notice, said_of_it) if said_of_it else notice
    if render.supported == 0:
        # The extractive composer: the whole answer without a model, the fallback with one.
        composed = compose(
            own_words if only_wants else asked,
            evidence,
            checker,
            relevance,
            every=named,
            said=said,
            absent=absent,
            before=earlier if absent else "",
            any_sentence=only_wants or no_words,
            own_words=own_words_asked,
            shown=earlier if wants else "",
            how_much=bool(typed) and _how_much_only(index, typed, condensed.papers),
        )
        if composed.note is not None:
            timings.setdefault("first_sentence_s", time.perf_counter() - t0)
            yield render.note(composed.note)
        papers = len(composed.lines) - len(composed.joined)  # a tie goes on its paper's line
        # A list of one paper is a paragraph: "papers about auctions" drew one "- " line, while
        # other one-paper answers were plain text (a new user).
        bullets = papers > 1 and (
            bullets or composed.note is not None or papers >= LINES_FROM_PAPERS
        )
    else:
        # Below the model's synthesis, one line for each paper the answer uses that it did not
        # cite: a "which papers" answer lists them all, whoever wrote the first sentences.
        composed = compose(
            asked,
            evidence,
            checker,
            relevance,
            skip=frozenset(render.numbers),
            every=named,
            said=said,
            synthesis=render.said_of_sources(),
            drawn_on=render.evidence,
        )
        bullets = True
    for i, line in enumerate(composed.lines):
        # "quoted": the text is the abstract's own sentence (made standalone), not a model's.
        shown = render.add(replace(line, reason="quoted"), bullets and i not in composed.joined)
        if shown is not None:
            timings.setdefault("first_sentence_s", time.perf_counter() - t0)
            yield shown
    timings["total_s"] = time.perf_counter() - t0
    text = "".join(render.parts)
    yield Answer(
        question,
        text,
        render.citations(),
        tuple(render.sentences),
        False,
        (),
        name,
        notice,
        timings,
        standalone,
        language,
        answerability,
    )


# How a follow-up came by its papers when it points at the history's (rag/answer/condense.py,
# rag/answer/continuation.py), not when it names them (people, named papers).
_REFERRED = frozenset({"rule", "llm", "context"})

# Asking to set papers side by side names nothing of them to look for ("compare the first two",
# "how do they differ?"); nor does asking for the gist or what they achieved ("tl;dr", "eli5",
# "meaning?", "what did they achieve"): each paper's line answers it.
_REQUEST_WORDS = frozenset(
    content_stems(
        """compare comparison contrast differ difference versus tldr tl dr eli5 meaning gist
        achieve achieved achievement accomplish accomplished takeaway takeaways punchline
        contribution contributions"""
    )
) | {"tl", "dr", "eli5"}  # "tl;dr", "eli5": shorthand content_stems leaves out


def _how_much_only(index: Index, follow_up: str, papers: Sequence[Paper]) -> bool:
    """Whether `follow_up` asks how much or how many of `papers` and no word of its own names a
    topic (`topic_words`: "save" in "how much does it save?" does not, "fees" in "how much does
    it cost in API fees?" does)."""
    text = without_reference(without_names(follow_up, papers))
    words = [text[a:b] for a, b in topic_spans(index, text)]
    return asks_how_much(text) and not any(topic_words.names_topic(index, w) for w in words)


def _words_of_its_own(index: Index, follow_up: str) -> list[tuple[str, bool]]:
    """The terms a follow-up asks of the papers it points at, beside the pointing ("the second
    one") and a request to compare them or for their gist (`_REQUEST_WORDS`)."""
    terms = question_terms(index, without_reference(follow_up))
    return [(stem, name) for stem, name in terms if stem not in _REQUEST_WORDS]


def _relevance_check(
    index: Index, query: str, evidence: list[Evidence], settings: Settings
) -> RelevanceCheck:
    """Return the question-relevance check over every sentence of the evidence papers."""
    from rag.answer.evidence import paper_sentences

    sentences, vectors = [], []
    for ev in evidence:
        own = paper_sentences(ev.hit.paper)
        if ev.vectors is not None and len(ev.vectors) == len(own):
            sentences += own
            vectors.append(ev.vectors)
    return RelevanceCheck(
        index.embedder,
        query,
        sentences,
        threshold=settings.min_question_relevance,
        candidate_vectors=np.vstack(vectors) if vectors else None,
        rarity=term_rarity(index, wanted_terms(query)),
    )


def _any_papers(history: Sequence[Any] | None, resolve: Resolver) -> bool:
    """Whether an earlier answer cited or listed a paper that a message could point at."""
    return any(papers_of(turn, resolve) for turn in to_turns(history))


def _english_only(
    question: str, name: str, timings: dict[str, float], t0: float, language: str
) -> Iterator[str | Answer]:
    """Yield the notice that the bundled models read English only, then its `Answer`."""
    yield prompts.ENGLISH_ONLY
    timings["total_s"] = time.perf_counter() - t0
    yield Answer(
        question, prompts.ENGLISH_ONLY, (), (), False, (), name, None, timings, language=language
    )


def _naming_unused(said: str, unused: Sequence[str]) -> str:
    """An abstention `said`, its first sentence followed by the `unused` words no paper holds
    ("The collection has no paper on this question. No paper's title or abstract uses
    “sourdough” ..."); as it is without any."""
    if not unused:
        return said
    first, rest = said.split(". ", 1)
    return f"{first}. {prompts.NO_PAPER_USES.format(words=quoted_words(unused))} {rest}"


def _overview(
    index: Index,
    question: str,
    name: str,
    notice: str | None,
    timings: dict[str, float],
    t0: float,
    standalone: str | None,
    language: str,
    searched: bool = False,
    history: Sequence[Any] | None = None,
    everyday: bool = False,
) -> Iterator[str | Answer]:
    """Yield the collection overview (rag/answer/overview.py; `searched`: the message's words
    matched no paper; a shorter line when the conversation has had it; `everyday`: the reply to
    everyday talk), then its `Answer`."""
    said = [t.answer for t in to_turns(history)]
    overview = everyday_reply(index) if everyday else no_topic(index, searched, said, question)
    yield overview
    timings["total_s"] = time.perf_counter() - t0
    # everyday talk is declined, as a question no paper is on is
    yield Answer(
        question, overview, (), (), everyday, (), name, notice, timings, standalone, language
    )


def _record_answer(
    question: str,
    hits: Sequence[Hit],
    fields: tuple[str, ...],
    name: str,
    timings: dict[str, float],
    t0: float,
    standalone: str | None = None,
    notice: str | None = None,
    language: str = "en",
    note: str | None = None,
) -> Iterator[str | Answer]:
    """Yield each paper's record line (rag/answer/record_questions.py), cited, then the Answer;
    after `note` (`prompts.NEAREST_ONLY`) when there is one."""
    lines: list[str] = []
    sentences: list[dict[str, Any]] = []
    citations: list[Citation] = []
    if note:
        lines.append(note)
        sentences.append(note_record(note))
    for n, hit in enumerate(hits, start=1):
        paper = hit.paper
        line = f"{record_line(paper, fields)} [{n}]."
        lines.append(line if len(hits) == 1 else f"- {line}")
        sentences.append(
            {"text": line, "support": 1.0, "supported": True, "reason": "record",
             "citations": [n], "shown": True}
        )  # fmt: skip
        citations.append(Citation(n, replace(hit, rank=n), paper.title or ""))
    text = "\n".join(lines)
    yield text
    timings["total_s"] = time.perf_counter() - t0
    yield Answer(
        question, text, tuple(citations), tuple(sentences), False, (), name, notice, timings,
        standalone, language,
    )  # fmt: skip


def _with_abstracts(
    index: Index, query: str, *, k: int, retriever: str, filters: Filters | None
) -> list[Hit]:
    """Return the search's hits among papers with an abstract: the ones an answer may quote.

    A title-only record holds no finding, only a title, so it is never evidence. The search
    is filtered again only when such a record came up, so a library without any pays nothing.
    """
    query = without_situation_words(index, query)
    hits = search(index, query, k=k, retriever=retriever, filters=filters, rescore=True)
    if not any(h.paper.title_only for h in hits):
        return hits
    try:
        return search(
            index,
            query,
            k=k,
            retriever=retriever,
            filters=replace(filters or Filters(), abstracts_only=True),
            rescore=True,
        )
    except FilterMatchesNothingError:
        return []  # every paper the filter lets through is title-only: nothing to quote


def build_prompt(question: str, evidence: list[Evidence]) -> Prompt:
    """Return the prompt: rules, a worked example, then the question and numbered evidence."""
    sources = "\n".join(
        prompts.SOURCE.format(n=ev.n, label=ev.hit.paper.label or ev.hit.paper.id, evidence=ev.text)
        for ev in evidence
    )
    return Prompt(
        prompts.SYSTEM,
        prompts.USER.format(question=question, sources=sources),
        ((prompts.EXAMPLE_USER, prompts.EXAMPLE_ASSISTANT),),
    )


def answer(index: Index, question: str, **kwargs: Any) -> Answer:
    """Return the final `Answer` of `answer_stream` (same arguments)."""
    for event in answer_stream(index, question, **kwargs):
        if isinstance(event, Answer):
            return event
    raise AssertionError("answer_stream ended without an Answer")
