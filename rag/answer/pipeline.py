"""Answer a question from the index: retrieve, abstain or prompt, check citations, stream.

Text is streamed sentence by sentence: a sentence is shown only after the citation check has
passed it, so what the user sees is never retracted and never cites an unretrieved paper.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from rag import prompts
from rag.answer import paper_choice
from rag.answer.abstention import (
    Decision,
    any_paper_holds,
    decide,
    decided_by_a_side,
    done_without_share,
    question_terms,
    sides,
    term_coverage,
    term_rarity,
    topic_spans,
    without_situation_words,
    words_no_paper_holds,
)
from rag.answer.citations import CheckedSentence, CitationChecker, PromptLeakDetector
from rag.answer.compose import (
    Kind,
    asks_of_papers,
    checked_as_cited,
    compose,
    question_kind,
    states_what_is_asked,
    without_names,
)
from rag.answer.condense import (
    Condensed,
    Resolver,
    asked_of,
    asks_for_any,
    asks_for_more,
    asks_of_a_pair,
    asks_past_shown,
    condense,
    described_reference,
    first_reference,
    last_answer_papers,
    opens_with_which,
    paper_name,
    refers_back,
    to_turns,
    without_reference,
)
from rag.answer.continuation import among, asks_the_collection, continues
from rag.answer.discourse import points_back, standalone, third_person
from rag.answer.evidence import Evidence, select_evidence
from rag.answer.language import (
    can_translate,
    detect_language,
    drawn_from_english,
    likely_language,
    translate,
)
from rag.answer.limitations import names_method
from rag.answer.named_papers import asked_of_named, papers_named
from rag.answer.negation import asked_the_opposite
from rag.answer.overview import no_topic
from rag.answer.people import asked_of_people, named_people, others_of_theirs, their_papers
from rag.answer.record_questions import (
    BIBTEX,
    names_no_paper,
    names_only_fields,
    record_fields,
    record_line,
)
from rag.answer.relevance import RelevanceCheck
from rag.answer.topicless import (
    asks_no_paper,
    searched_asks_no_paper,
    small_talk,
)
from rag.answer.unanswered import and_joined, listed_note, rest_note
from rag.backends.base import Backend, Prompt
from rag.errors import BackendError, FilterMatchesNothingError
from rag.index.paper_index import Index
from rag.index.retrieve import Filters, hits_of, search
from rag.index.spelling import corrected
from rag.ingest.naming import author_phrase, method_name, speaker
from rag.ingest.wanted import (
    asks_only_if_out,
    is_fragment,
    is_keyword_query,
    names_what_it_wants,
)
from rag.ingest.wanted import question_terms as wanted_terms
from rag.records import Hit, Paper
from rag.settings import Settings
from rag.stance.choose import judge_for
from rag.text import content_stems, split_sentences

# The local model's job is a short synthesis: once this many of its sentences are shown, the
# rest of its output is not read (the per-paper lines follow).
SYNTHESIS_SENTENCES = 2
# An earlier answer's sentence, read back from the chat's text, is one of this many closest papers'.
_SOURCE_CANDIDATES = 5
# An extractive answer drawing on this many papers or more gives each its own line, however the
# question was worded: "LLMs" cited nine papers in one paragraph.
LINES_FROM_PAPERS = 3
# The papers an abstention lists as the nearest, most probable first: ten cards of papers none
# of which answers made a phone's page 3,500 px tall (a new user's trial, stop 58).
NEAREST_SHOWN = 5
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

# "... graphs. [1] Then" -> "... graphs [1]. Then": a marker belongs to the sentence before it.
_MARKER_AFTER_STOP = re.compile(r"([.!?])\s*((?:\[\d+(?:\s*[,;]\s*\d+)*\]\s*)+)")


@dataclass(frozen=True)
class Citation:
    """A paper cited by an answer under the number `n` it has in the answer text."""

    n: int
    hit: Hit
    evidence: str

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, **self.hit.to_dict(), "evidence": self.evidence}


@dataclass(frozen=True)
class Answer:
    """A checked answer: text with `[n]` markers, the papers they point to, and why."""

    question: str
    answer: str
    citations: tuple[Citation, ...]
    sentences: tuple[dict[str, Any], ...]
    abstained: bool
    nearest: tuple[Hit, ...]
    backend: str
    notice: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    standalone: str | None = None  # what was searched, when it differs from `question`
    language: str = "en"  # the question's language (rag/answer/language.py)
    answerability: float | None = (
        None  # the abstention model's probability (rag/answer/abstention.py)
    )

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "standalone_question": self.standalone,
            "answer": self.answer,
            "citations": [c.to_dict() for c in self.citations],
            "sentences": list(self.sentences),
            "abstained": self.abstained,
            "nearest": [h.to_dict() for h in self.nearest],
            "backend": self.backend,
            "notice": self.notice,
            "language": self.language,
            "answerability": self.answerability,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }


def _note_record(text: str) -> dict[str, Any]:
    """The record of a plain statement of ours among an answer's sentences: shown, citing none."""
    return {"text": text, "note": True, "shown": True, "supported": False, "support": 0.0,
            "reason": "note", "citations": []}  # fmt: skip


class _Renderer:
    """Numbers cited papers 1, 2, ... in order of first citation and renders sentences."""

    def __init__(self, evidence: list[Evidence], mode: str) -> None:
        self.by_source = {ev.n: ev for ev in evidence}
        self.mode = mode
        self.numbers: dict[int, int] = {}
        self.evidence: dict[int, str] = {}  # source -> the sentence that first supported it
        self.parts: list[str] = []
        self.sentences: list[dict[str, Any]] = []
        self.supported = 0

    def note(self, text: str) -> str:
        """Show a plain statement of ours (no claim about a paper, so no citation)."""
        self.sentences.append(_note_record(text))
        piece = text if not self.parts else "\n" + text
        self.parts.append(piece)
        return piece

    def add(self, checked: CheckedSentence, bullet: bool = False) -> str | None:
        """Return the text to show for a checked sentence (None: not shown).

        With `bullet`, the sentence is shown on a line of its own, as "- sentence [n]."
        """
        record = {
            "text": checked.text,
            "support": round(checked.support, 4),
            "supported": checked.supported,
            "attributed": checked.attributed,
            "reason": checked.reason,
            "citations": [],
        }
        if checked.foreign:
            record["foreign"] = list(checked.foreign)
        if not checked.supported:
            # A copy of our instructions is never shown, not even flagged.
            flagged = self.mode == "flag" and checked.reason != "prompt_leak"
            record["shown"] = flagged
            self.sentences.append(record)
            if not flagged:
                return None
            shown = f"{checked.text} [unsupported]"
        else:
            self.supported += 1
            numbers = [self.numbers.setdefault(s, len(self.numbers) + 1) for s in checked.sources]
            for source, sentence in zip(checked.sources, checked.evidence, strict=False):
                self.evidence.setdefault(source, sentence)
            record["citations"] = numbers
            record["shown"] = True
            self.sentences.append(record)
            body = _closing_quote_kept_if_opened(checked.text.rstrip())
            stop = body[-1] if body and body[-1] in ".!?" else "."
            body = body.rstrip(".!?")
            shown = f"{body} {''.join(f'[{n}]' for n in numbers)}{stop}"
        if bullet:
            shown = "- " + shown
        after_note = (
            bool(self.sentences)
            and len(self.sentences) > 1
            and self.sentences[-2].get("note", False)
        )
        piece = shown if not self.parts else ("\n" if bullet or after_note else " ") + shown
        self.parts.append(piece)
        return piece

    def follows(self, checked: CheckedSentence) -> bool:
        """Whether the last shown sentence cites the same papers as `checked` (what it may
        point back to)."""
        shown = [r for r in self.sentences if r["shown"] and not r.get("note")]
        numbers = [self.numbers.get(n) for n in checked.sources]
        return bool(shown) and bool(numbers) and all(n in shown[-1]["citations"] for n in numbers)

    def reject(self, checked: CheckedSentence, reason: str) -> None:
        """Record a supported sentence that is not shown for `reason` (e.g. off the question)."""
        self.sentences.append(
            {"text": checked.text, "support": round(checked.support, 4), "supported": True,
             "attributed": checked.attributed, "reason": reason, "citations": [],
             "shown": False}
        )  # fmt: skip

    def said_of_sources(self) -> dict[int, str]:
        """What the shown sentences say of each cited source, by source number."""
        shown = [r for r in self.sentences if r["shown"] and not r.get("note")]
        return {
            source: " ".join(r["text"] for r in shown if number in r["citations"])
            for source, number in self.numbers.items()
        }

    def citations(self) -> tuple[Citation, ...]:
        return tuple(
            Citation(
                n, self.by_source[s].hit, self.evidence.get(s, self.by_source[s].best_sentence)
            )
            for s, n in sorted(self.numbers.items(), key=lambda item: item[1])
        )


def _complete_sentences(buffer: str, final: bool) -> tuple[list[str], str]:
    """Split off the sentences of `buffer` that are complete; return them and the rest."""
    sentences = split_sentences(_MARKER_AFTER_STOP.sub(r" \2\1 ", buffer))
    if final:
        return [s for s in sentences if s.strip()], ""
    if len(sentences) < 2:
        return [], buffer
    # Keep the trailing white space: the next token may start a new word without one.
    return sentences[:-1], sentences[-1] + buffer[len(buffer.rstrip()) :]


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
        history: the chat so far: (question, Answer) pairs, `condense.Turn`s or chat
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
        return _source_of(index, text)

    if history:
        llm = backend if settings.follow_up == "llm" else None
        condensed = _condensed(index, query, terms, history, llm, resolve)
        timings["condense_s"] = time.perf_counter() - t0
    if condensed.described is not None:
        condensed = _described_papers(index, condensed, settings, filters)
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
        condensed = _naming_another(index, condensed, filters)
    # "who wrote it?", "authors?", "when was it published?": the record answers, not the abstract.
    fields = record_fields(condensed.original)
    of_last = names_only_fields(condensed.original) or (
        BIBTEX in fields and names_no_paper(condensed.original)  # "export both as BibTeX"
    )
    if (
        fields
        and not condensed.papers
        and of_last
        and (last_papers := last_answer_papers(history, resolve))
    ):
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
        found = {h.paper.id: h for h in hits_of(index, query, condensed.papers, [])}
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
                condensed = _naming_another(index, asked_of(query, theirs, "context"), filters)
                query = standalone = condensed.question
    decision = None
    chance: dict[str, float] = {}  # the per-paper judgement's probabilities, where it was made
    outside = False  # the answer's papers are not among the previous answer's (a choice's)
    unaddressed = False  # a people question whose other words none of their papers is about
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
    elif condensed.pick is not None and (doing := _the_opposite(index, condensed)) is not None:
        # "which of them do not use RL?": the papers of the set that the same choice on "use
        # RL" leaves out (it picked Deng et al. and TreePO, both RL papers, on those words)
        relevant, nearest_only, query = _the_rest(index, doing, condensed, hits, settings, filters)
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
        relevant, outside = _pick(index, condensed.pick, condensed.papers, settings, filters, bar)
        if condensed.method == "people" and (
            not relevant or (outside and not _answerable(index, condensed.pick, settings, filters))
        ):
            # The words left beside the names ("co-authored", "protein folding") are no topic of
            # theirs nor of another paper: their papers, each with its line, after a line that
            # says the rest of the question is not what they are about.
            condensed, outside = replace(condensed, pick=None), False
            relevant = _theirs_first(index, query, condensed.papers, hits, settings)
            unaddressed = True
        elif outside:
            query = condensed.pick or query
    elif condensed.method == "people":  # "Which papers has Wei Ju written?"
        relevant = _theirs_first(index, query, condensed.papers, hits, settings)
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
        relevant = _chosen_papers(hits, judged, decision, settings)
        unheld = words_no_paper_holds(index, query) if relevant else []
        if unheld and _one_side_held(index, query):
            # "LLM safety or privacy?": the papers on privacy answer one side of the question,
            # so they are no mere nearest; that no paper writes "safety" is still worth saying.
            nearest_only = prompts.NO_PAPER_USES.format(words=_quoted(unheld))
        elif unheld and not decision.answerable:
            nearest_only, mere_nearest = prompts.NEAREST_ONLY.format(words=_quoted(unheld)), True
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
            nearest_only = prompts.NO_PAPER_USES.format(words=_quoted(unheld))
        if condensed.unanswered is not None:
            # "does it handle long sentences?" after no paper on LSTMs: the nearest papers are no
            # answer now either, so the collection has none again; one on the follow-up's other
            # words answers them, after a line that says so.
            relevant = [] if mere_nearest else relevant
            nearest_only, mere_nearest = (
                rest_note(condensed.unanswered) if relevant else None,
                False,
            )
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
    no_words = of_named and not _words_of_its_own(index, typed)
    # It asks something of the papers it names ("main limitation?", "does the second one use
    # tools?", "is it safe?"): when none of them has a sentence about it, the answer says so.
    # "is it safe?" names no kind of sentence, only words of its own, which a line must be about.
    own_words_asked = of_named and not wants and not no_words
    absent = (of_named and wants) or own_words_asked
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
            else _of_the_set(condensed, prompts.NONE_IN_SET_NOR_ELSEWHERE)
            if condensed.pick is not None and condensed.papers
            else prompts.ABSTAIN
        )
        unused = words_no_paper_holds(index, query) if said is prompts.ABSTAIN else []
        if unused:
            first, rest = said.split(". ", 1)
            said = f"{first}. {prompts.NO_PAPER_USES.format(words=_quoted(unused))} {rest}"
        yield said
        timings["total_s"] = time.perf_counter() - t0
        # First the papers the per-paper judgement would have chosen, most probable first ("DPO
        # vs PPO?": the paper on DPO, which BM25 finds and the sentence vectors do not), then
        # the rest, most relevant first (below the bar, an off-topic question's probabilities
        # follow the fused rank more than the words).
        # After papers on it were shown ("any other papers on that?"), the next most probable
        # come first: IndexGuard, "Federated ... fine-tuning", before a Markov-chain paper.
        bar = 0.0 if shown_before else settings.paper_probability
        ordered = sorted(hits, key=lambda h: (-max(chance.get(h.paper.id, 0.0), bar), -h.relevance))
        nearest = tuple(
            Hit(h.paper, i, h.score, h.snippet, h.relevance)
            for i, h in enumerate(ordered[:NEAREST_SHOWN], 1)
        )
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
    render = _Renderer(evidence, settings.unsupported)
    if outside:  # one line first: none of the previous papers; what follows is from elsewhere
        timings.setdefault("first_sentence_s", time.perf_counter() - t0)
        people = condensed.method == "people"
        yield render.note(
            prompts.NONE_BY_PEOPLE.format(who=condensed.who)
            if people
            else _of_the_set(condensed, prompts.NONE_IN_SET)
        )
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

    labels = _label_prefix(evidence)

    # A model that copies a prompt sentence (`LocalBackend.copies_sources`) must copy the right one.
    copies = bool(getattr(backend, "copies_sources", False))

    def check(sentence: str) -> CheckedSentence:
        # Tiny models copy the source line's "Label:" prefix; the claim is what follows it.
        return checker.check(labels.sub("", sentence, count=1))

    # The papers whose own method the question names ("what are the weaknesses of ConPress?")
    # or that a follow-up is asked of ("limitations?" after ConPress): asked its limitations,
    # only a sentence that states one answers (rag/answer/limitations.py).
    asked_of_them = {p.id for p in condensed.papers}
    own_method = (
        {
            ev.n
            for ev in evidence
            if ev.hit.paper.id in asked_of_them
            or names_method(asked, method_name(ev.hit.paper.abstract))
        }
        if kind is Kind.LIMITATION
        else set()
    )

    def show(checked: CheckedSentence, bullet: bool = False) -> Iterator[str]:
        checked = _made_standalone(checked, render.by_source, checker)
        if checked.supported and is_fragment(checked.text, question):
            # The model's "Li et al. (CELL): To further mitigate domain shift." (checked without
            # its label) or "... matches X and (ii).": no sentence, whatever its words' support.
            render.reject(checked, "fragment")
            return
        if checked.supported and not relevance.relevant(checked.text):
            # Supported by its paper, but not about what was asked: not shown.
            render.reject(checked, "off_question")
            return
        own = any(n in own_method for n in checked.sources)
        if checked.supported and not states_what_is_asked(kind, checked.text, own=own):
            # Asked where the code is, which dataset or how much: a sentence that does not say
            # is no answer, and the composer's note says when no abstract does.
            render.reject(checked, "not_stated")
            return
        if checked.supported and points_back(checked.text) and not render.follows(checked):
            # "These approaches assume X [1]" copied without the sentence naming the approaches
            # reads as the paper's claim, often the one it argues against: the paper's line
            # (shown with that sentence) comes from the composer instead.
            render.reject(checked, "points_back")
            return
        if checked.supported and not render.follows(checked):
            if copies and not _rests_on_first_choice(checked, render.by_source):
                # "What predicts failures of ASMC?" got "Wang et al. propose ASMC, a parallel
                # particle inference method ...": SmolLM2 copied the paper's second sentence
                # in the prompt, given as context, where its first (the fitted sentence
                # choice's) says what predicts the failures. A paper's line opens with what
                # the choice puts first; the second may follow it.
                render.reject(checked, "second_choice")
                return
            checked = _labelled(checked, render.by_source)  # a second sentence goes on its line
        piece = render.add(checked, bullet)
        if piece is not None:
            timings.setdefault("first_sentence_s", time.perf_counter() - t0)
            yield piece

    if backend is not None:
        # The model's job: one or two sentences of synthesis above the per-paper lines.
        prompt = build_prompt(query, evidence)
        buffer = ""
        failed = False
        tokens = backend.generate(
            prompt, stream=True, max_tokens=settings.max_tokens, temperature=settings.temperature
        )
        try:
            for token in tokens:
                timings.setdefault("first_token_s", time.perf_counter() - t0)
                buffer += token
                done, buffer = _complete_sentences(buffer, final=False)
                for sentence in done:
                    yield from show(check(sentence))
                if render.supported >= SYNTHESIS_SENTENCES:
                    buffer = ""
                    break
            done, _ = _complete_sentences(buffer, final=True)
            for sentence in done:
                if render.supported < SYNTHESIS_SENTENCES:
                    yield from show(check(sentence))
        except BackendError as exc:
            failed = True
            notice = _join(notice, f"{exc} Showing an extractive answer instead.")
        finally:
            close = getattr(tokens, "close", None)
            if close is not None:
                close()  # frees the local model's lock when we stop early
        if render.supported == 0 and not failed:
            notice = _join(notice, _fallback_notice(render.sentences))
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
        )
        if composed.note is not None:
            timings.setdefault("first_sentence_s", time.perf_counter() - t0)
            yield render.note(composed.note)
        papers = len(composed.lines) - len(composed.joined)  # a tie goes on its paper's line
        bullets = (
            bullets or (composed.note is not None and papers > 1) or (papers >= LINES_FROM_PAPERS)
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


def _the_rest(
    index: Index,
    doing: str,
    condensed: Condensed,
    hits: list[Hit],
    settings: Settings,
    filters: Filters | None,
) -> tuple[list[Hit], str, str]:
    """For "which of them do not use RL?" (`doing`: "use RL"), the papers of the set that do
    not, the line said first and the question their lines are chosen on.

    A paper does when the choice on `doing` picks it (`_pick`), or when it holds that much of
    its words (`SAYS_IT_COVERAGE`, as the abstention reads them: LDPVR writes "reinforcement
    learning via GRPO", yet the choice on "use RL" did not pick it). The line names those left
    out, so the reader sees what was judged; when every one does, the answer is what each says
    on it.
    """
    picked, elsewhere = _pick(index, doing, condensed.papers, settings, filters)
    left_out = set() if elsewhere else {h.paper.id for h in picked}
    terms = question_terms(index, doing)
    left_out |= {
        p.id for p in condensed.papers if term_coverage(index, terms, p.id) >= SAYS_IT_COVERAGE
    }
    listed = list(hits_of(index, condensed.question, condensed.papers, hits))
    # what the choice was judged on, quoted: "use RL" as "RL", "about graphs" as "graphs"
    words = _quoted([_DOING_VERB.sub("", doing, count=1) or doing])
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


def _the_opposite(index: Index, condensed: Condensed) -> str | None:
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


def _of_the_set(condensed: Condensed, plural: str) -> str:
    """`plural` ("None of the papers listed earlier ..."), or its form for a set of one paper
    ("The paper listed earlier ..."), which the choice was made among."""
    if len(condensed.papers) != 1:
        return plural
    return {
        prompts.NONE_IN_SET: prompts.NONE_IN_SET_ONE,
        prompts.NONE_IN_SET_NOR_ELSEWHERE: prompts.NONE_IN_SET_NOR_ELSEWHERE_ONE,
    }[plural]


def _condensed(
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


def _english_only(
    question: str, name: str, timings: dict[str, float], t0: float, language: str
) -> Iterator[str | Answer]:
    """Yield the notice that the bundled models read English only, then its `Answer`."""
    yield prompts.ENGLISH_ONLY
    timings["total_s"] = time.perf_counter() - t0
    yield Answer(
        question, prompts.ENGLISH_ONLY, (), (), False, (), name, None, timings, language=language
    )


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
) -> Iterator[str | Answer]:
    """Yield the collection overview (rag/answer/overview.py; `searched`: the message's words
    matched no paper; a shorter line when the conversation has had it), then its `Answer`."""
    overview = no_topic(index, searched, [t.answer for t in to_turns(history)], question)
    yield overview
    timings["total_s"] = time.perf_counter() - t0
    yield Answer(question, overview, (), (), False, (), name, notice, timings, standalone, language)


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
        sentences.append(_note_record(note))
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


def _chosen_papers(
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


def _answerable(index: Index, words: str, settings: Settings, filters: Filters | None) -> bool:
    """Whether `words`, asked on their own, would be answered rather than abstained on."""
    hits = search(
        index, words, k=settings.top_k, retriever=settings.retriever, filters=filters, rescore=True
    )
    decision = decide(index, words, hits, settings.min_relevance)
    judged = paper_choice.judge(index, words, hits, question_terms(index, words), decision)
    return bool(_chosen_papers(hits, judged, decision, settings))


def _theirs_first(
    index: Index, query: str, papers: Sequence[Paper], hits: list[Hit], settings: Settings
) -> list[Hit]:
    """Hits for `papers`, those the search found first, at most `top_k` of them."""
    found = {h.paper.id for h in hits}
    ordered = sorted(papers, key=lambda p: p.id not in found)[: settings.top_k]
    return hits_of(index, query, ordered, hits)


def _described_papers(
    index: Index, condensed: Condensed, settings: Settings, filters: Filters | None
) -> Condensed:
    """The follow-up that names a paper by its topic ("the compression paper - does it need
    retraining?"), asked of those the conversation showed that the choice on those words picks
    (`_pick`, as "which one is about compression?" would), its description replaced by their
    names; as typed when none of them is on it (the description may be of another paper)."""
    picked, outside = _pick(index, condensed.described or "", condensed.papers, settings, filters)
    if outside or not picked:
        return Condensed(condensed.original, condensed.original)
    papers = tuple(h.paper for h in picked)
    start, end = condensed.described_span
    names = " and ".join(paper_name(p) for p in papers)
    text = condensed.original
    return Condensed(f"{text[:start]}{names}{text[end:]}", text, "rule", papers)


def _pick(
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


def _made_standalone(
    checked: CheckedSentence, by_source: dict[int, Evidence], checker: CitationChecker
) -> CheckedSentence:
    """Return a model sentence of one source with the abstract's lost openers removed and "we"
    named ("To address this, we propose ..." → "Ju et al. (ICGNN) propose ...", else "our" as
    "their"), as the composer shows abstract sentences, when the citation check still passes
    it; else as it was.
    """
    if not checked.supported or len(checked.sources) != 1 or checked.sources[0] not in by_source:
        return checked
    n = checked.sources[0]
    who, plural = speaker(by_source[n].hit.paper)
    named = standalone(checked.text, who, plural)
    # Under the paper's label, "our approach" is "their approach", as in the composer's lines.
    text = named.text if named.named or not who else third_person(named.text)
    if text == checked.text:
        return checked
    again = checked_as_cited(text, n, checker)
    return checked if again is None else replace(again, attributed=checked.attributed)


def _rests_on_first_choice(checked: CheckedSentence, by_source: dict[int, Evidence]) -> bool:
    """Whether a model sentence on one paper rests on that paper's first sentence in the prompt
    (`Evidence.best_sentence`, the fitted sentence choice's for the question): the check's
    best-supporting sentence is it. A sentence on several papers is not judged here."""
    if len(checked.sources) != 1 or checked.sources[0] not in by_source or not checked.evidence:
        return True
    return checked.evidence[0] == by_source[checked.sources[0]].best_sentence


def _labelled(checked: CheckedSentence, by_source: dict[int, Evidence]) -> CheckedSentence:
    """A model sentence of one source that does not say whose it is ("Experiments on benchmark
    datasets show the superiority of our approach [1].") with the paper's label first, as the
    composer's lines have it. The label claims nothing, so the check that passed stands."""
    if not checked.supported or len(checked.sources) != 1 or checked.sources[0] not in by_source:
        return checked
    paper = by_source[checked.sources[0]].hit.paper
    who, _ = speaker(paper)
    if not who or _says_whose(paper, checked.text):
        return checked
    return replace(checked, text=f"{who}: {checked.text}")


def _fallback_notice(records: Sequence[dict[str, Any]]) -> str:
    """Why no sentence of the model's is shown: one its papers did not support, or only
    supported ones that did not answer the question (off it, not stating the fact asked for,
    or not the papers' first choice). A supported one that did not state the fact is the
    reason to give, whatever else the model wrote. A composer's note is none of the model's."""
    records = [r for r in records if not r.get("note")]
    stated = all(r.get("reason") != "not_stated" for r in records)
    if stated and any(not r["supported"] for r in records):
        return prompts.NO_SUPPORTED_SENTENCE
    return prompts.MODEL_OFF_QUESTION


def _closing_quote_kept_if_opened(text: str) -> str:
    """`text` without a closing double quote at its end that nothing opened (a small model's
    slip: 'states."'), or with the sentence's stop moved out of a quotation it does close
    ('called "X."' -> 'called "X".'), so that the citation follows the words it cites."""
    if not text.endswith(('"', "\u201d")):
        return text
    quote = text[-1]
    opened = text.count('"') % 2 == 0 if quote == '"' else "\u201c" in text
    if not opened:
        return text[:-1].rstrip()
    if len(text) > 1 and text[-2] in ".!?":
        return text[:-2] + quote + text[-2]
    return text


def _one_side_held(index: Index, question: str) -> bool:
    """Whether one of the question's sides ("X or Y", "X vs Y", "a survey on X") has every topic
    word in some paper, as `paper_choice.judge` weighs them on their own ("or not" has none)."""
    return any(
        question_terms(index, part) and not words_no_paper_holds(index, part)
        for part in sides(index, question)
    )


def _quoted(words: Sequence[str]) -> str:
    """“PPO”; “protein” or “folding”; “a”, “b” or “c”."""
    marked = [f"“{w}”" for w in words]
    return marked[0] if len(marked) == 1 else f"{', '.join(marked[:-1])} or {marked[-1]}"


def _join(first: str | None, second: str) -> str:
    """Return two notices as one (the first may be absent)."""
    return f"{first} {second}" if first else second


def _label_prefix(evidence: list[Evidence]) -> re.Pattern[str]:
    """Return a pattern for a sentence that starts like a source line: "[1] Ju et al.: ", with
    the paper's method name: "ICGNN: ", or with a dash for the colon, as SmolLM2 writes it:
    "Guan et al. — Finally, we incorporate ..." (then made "Guan et al. — finally, Guan et al.
    incorporate ...")."""
    labels = sorted(
        {ev.hit.paper.label for ev in evidence if ev.hit.paper.label}
        | {who for ev in evidence if (who := _authors_of(ev.hit.paper))}  # "Guan et al. — ..."
        | {who for ev in evidence if (who := speaker(ev.hit.paper)[0])}  # "Ju et al. (ICGNN)"
        | {m for ev in evidence if (m := method_name(ev.hit.paper.abstract))},  # "ICGNN: ..."
        key=len,
    )
    names = "|".join(re.escape(label) for label in reversed(labels))
    name = rf"(?:{names}|source\s*\d+)" if names else r"source\s*\d+"
    return re.compile(rf"^\s*(?:\[\d+\]\s*)?{name}\s*(?::|[\u2014\u2013]|\s-\s)\s*", re.IGNORECASE)


def _authors_of(paper: Paper) -> str:
    return author_phrase(paper.authors, paper.authors_truncated)


def _naming_another(index: Index, condensed: Condensed, filters: Filters | None) -> Condensed:
    """A follow-up asked of the last answer's papers that names another paper by its method
    ("how does it compare to CELL?" after CLINIC, rewritten "how does CLINIC compare to
    CELL?") is asked of both (rag/answer/named_papers.py); a choice among a set is not."""
    if not condensed.papers or condensed.pick is not None:
        return condensed
    both = asked_of_named(index, condensed.question, filters)
    if both is None or not {p.id for p in both.papers} - {p.id for p in condensed.papers}:
        return condensed
    return replace(both, original=condensed.original)


def _source_of(index: Index, text: str) -> Paper | None:
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


def _says_whose(paper: Paper, text: str) -> bool:
    """Whether `text` names its paper: the first author's surname or the paper's method name
    ("Conpress reduces ..." names ConPress), in any case."""
    names = [paper.authors[0].split()[-1]] if paper.authors else []
    names += [name] if (name := method_name(paper.abstract)) else []
    return any(re.search(rf"\b{re.escape(n)}\b", text, re.IGNORECASE) for n in names)


def _starts_with_authors(paper: Paper, text: str) -> bool:
    """Whether `text` opens with the paper's authors ("Deng et al. ..."), and not with another
    paper's name of theirs ("Deng et al. (ConPress)" for the other Deng et al. paper)."""
    who = _authors_of(paper)
    if not who or not text.startswith(who):
        return False
    return not text[len(who) :].startswith(" (") or _names_it(paper, text)


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
