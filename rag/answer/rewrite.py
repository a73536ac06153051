"""The rule that rewrites a follow-up into a standalone question (`rule_rewrite`).

What it reads and why is in `rag/answer/condense.py`'s docstring."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from rag import prompts
from rag.answer.abstention import word_spans
from rag.answer.discourse import agree
from rag.answer.history import (
    Resolver,
    Spans,
    Turn,
    answers_only,
    cited_numbers,
    last_answer,
    list_as_long,
    paper_cited,
    paper_name,
    papers_of,
    set_of,
    set_turn,
    shown_list,
    the_set,
    topic_of,
    unique,
    with_earlier,
)
from rag.answer.pair_words import COMPARES, PAIR_PRONOUN, PAIR_REF
from rag.answer.record_questions import names_only_fields, record_fields, records_of_them
from rag.answer.references import (
    BARE_IT,
    COMPARED_OPENING,
    EXPLETIVE_IT,
    LEAD,
    NUMBER_REF,
    ORDINAL,
    OTHERS_REF,
    PICKS,
    PLACES_REF,
    PLURAL_REF,
    RANKED_AGAINST,
    SINGULAR_REF,
    WHICH_SUBJECT,
    asks_past_shown,
    depends_on_history,
    it_beside,
    ordinal_place,
    place_word,
    places_named,
    refers_back,
)
from rag.ingest.wanted import Want, wanted
from rag.records import Paper
from rag.text import parts_of_speech


@dataclass(frozen=True)
class Condensed:
    """A standalone question and what it was made from."""

    question: str  # standalone
    original: str
    # "as-is", "rule", "llm", "context" (rag/answer/continuation.py), "people", "people-asked"
    # (rag/answer/people.py), "papers" (rag/answer/named_papers.py) or "chat" (small talk
    # that holds a pronoun, rag/answer/topicless.py)
    method: str = "as-is"
    papers: tuple[Paper, ...] = ()  # the papers the follow-up refers to, if any
    # A choice among `papers` ("Which of them is about X?", "Are any of them ...?"): the
    # question's own words, without the reference, to judge each of them on; None otherwise.
    pick: str | None = None
    # "What about the others?" when the set has no others: the papers already shown, to leave
    # out of a search of the set's own question.
    excluded: tuple[Paper, ...] = ()
    # The words to judge sentences on when not the question: "main limitation?" for "main
    # limitation of Seo et al.?" (rag/answer/people.py, rag/answer/named_papers.py).
    asked: str | None = None
    who: str = ""  # the people a question names, as the collection spells them ("Wei Ju")
    # "people-asked": how many papers of theirs the question was asked among (`papers` holds
    # those chosen), so an answer from fewer says the others exist ("Deng et al." wrote two).
    among: int = 0
    # The whole answer, when the follow-up needs no search: "the third one" after an answer
    # that listed two papers.
    reply: str | None = None
    # "back to the compression paper - does it need retraining?": the words that describe the
    # paper meant ("compression"), judged among the conversation's `papers`
    # (rag/answer/pipeline.py), and where the description stands in `original`.
    described: str | None = None
    described_span: tuple[int, int] = (0, 0)
    # "compare it with the continual learning one": the last answer's papers, which a pointer
    # before the description names beside it.
    pointed: tuple[Paper, ...] = ()
    # "does it handle long sentences?" after an answer that found no paper on "sequence-to-
    # sequence learning with LSTMs": that topic, which the answer must find a paper on or say
    # again that the collection has none (rag/answer/pipeline.py).
    unanswered: str | None = None


# "why did they do it?", "how do you do it": "it" is what was done, the papers' work.
_DONE = re.compile(r"\b(?:they|you|we|i|people|one|to)\s+(?:do|did|does|doing)\s+$", re.IGNORECASE)
# "what did it find?", "does it report numbers?": a verb of reporting takes a paper for its
# subject; a topic ("graph OOD detection") finds nothing, so "it" is the last answer's paper.
_REPORTS = re.compile(
    r"\s+(?:\w+ly\s+)?(?:find|finds|found|show|shows|showed|shown|report|reports|reported|"
    r"conclude|concludes|concluded|demonstrate|demonstrates|demonstrated|claim|claims|claimed|"
    r"argue|argues|argued|observe|observes|observed|measure|measures|measured|evaluate|"
    r"evaluates|evaluated|compare|compares|compared|discover|discovers|discovered|obtain|"
    r"obtains|obtained|achieve|achieves|achieved|propose|proposes|proposed|prove|proves|"
    r"proved)\b",
    re.IGNORECASE,
)
# "how is it evaluated?": a passive's "it" is what is acted on, which a topic may be.
_PASSIVE = re.compile(r"\b(?:is|are|was|were|be|been|being)\s+$", re.IGNORECASE)


def _topic_it(text: str, numbers: Sequence[int]) -> re.Match[str] | None:
    """The first pronoun of `text` that may stand for the last question's topic: "it", not the
    object of "do" ("why did they do it?"); "its" only after an answer of at most one paper
    (after several, "its outcome?" is the first one's, as it always was). None where the
    question names a paper otherwise ("what does this paper say about it?": it is asked of
    that paper); never "itself" ("does the network fix itself?"), nor the subject of a verb of
    reporting (`_REPORTS`: "what did it find?")."""
    found = list(SINGULAR_REF.finditer(text))
    if any(m.group().lower() not in BARE_IT for m in found):
        return None  # "this paper", "the method"
    for m in found:
        word = m.group().lower()
        if (word == "its" and len(numbers) <= 1) or (
            word == "it"
            and not _DONE.search(text[: m.start()])
            and not (_REPORTS.match(text, m.end()) and not _PASSIVE.search(text[: m.start()]))
        ):
            return m
    return None


def _asked_on_its_own(turns: Sequence[Turn], last: Turn) -> Turn:
    """The latest turn up to `last` that was asked on its own, whose topic a later "it" is:
    after "what do we know about grokking", "why does it happen?", a third "is it common?"
    is still about grokking, not "happen"; nor is it "source" after "source?"."""
    upto = list(turns[: turns.index(last) + 1]) if last in turns else [last]
    for turn in reversed(upto):
        typed = turn.typed or turn.question
        # "source?", "authors?" ask for the last papers' records: no topic of their own
        if not depends_on_history(typed) and not names_only_fields(typed):
            return turn
    return last


def _asked_what_they_propose(last: Turn, asked_alone: Turn) -> bool:
    """Whether `last` followed up on earlier papers (it is not `asked_alone`, the latest turn
    asked on its own) asking what they propose or how it works ("what do they propose
    instead?"): a later "it" is what they propose, the papers' own ("does it work in
    practice?" of CPO), not the topic asked before."""
    typed = last.typed or last.question
    return asked_alone is not last and wanted(typed) is Want.DEFINITION


def _with_topic(question: str, span: tuple[int, int], topic: str) -> str:
    """`question` with the pronoun at `span` ("it", "its") replaced by `topic`."""
    possessive = question[span[0] : span[1]].lower() == "its"
    return question[: span[0]] + (_owning(topic) if possessive else topic) + question[span[1] :]


def _owning(words: str) -> str:
    """`words` as a possessive: "CELL's", "LLMs'" (not "LLMs's"), "Loubes'"."""
    return words + ("'" if words.endswith("s") else "'s")


def _verb_agreeing(rewritten: str, match: re.Match[str], paper: Paper) -> str:
    """`rewritten` with the verb after the name that replaced `match` agreeing with it: "the
    latter suffers" -> "Deng et al. suffer" (a name of several authors is plural)."""
    name = paper_name(paper)
    if not (name.endswith("et al.") or " & " in name):
        return rewritten
    end = match.start() + len(name)
    verb = re.match(r"(\s+)([a-z]+s)\b", rewritten[end:])
    if verb is None or not {"VERB", "AUX"} & parts_of_speech(verb.group(2)):
        return rewritten
    at = end + len(verb.group(1))
    return rewritten[:at] + agree(verb.group(2), True) + rewritten[at + len(verb.group(2)) :]


def _each_place(
    text: str, turns: Sequence[Turn], resolve: Resolver | None
) -> list[tuple[re.Match[str], Paper]]:
    """Each ordinal of `text` with the paper at that place of the list on screen (`shown_list`),
    when every one has a place in it ("the second one ... the first"); none otherwise."""
    listed = shown_list(turns)
    markers = cited_numbers(listed) if listed is not None else []
    out = []
    for match in ORDINAL.finditer(text):
        place = ordinal_place(match, len(markers))[1]
        if listed is None or not 1 <= place <= len(markers):
            return []
        paper = paper_cited(listed, markers[place - 1], resolve)
        if paper is None:
            return []
        out.append((match, paper))
    return out


def _with_name(question: str, span: tuple[int, int], papers: Sequence[Paper]) -> str:
    names = " and ".join(paper_name(p) for p in papers)
    if question[span[0] : span[1]].lower() in ("its", "their"):  # "its main contribution"
        names = _owning(names)
    return question[: span[0]] + names + question[span[1] :]


def rule_rewrite(
    question: str,
    turns: Sequence[Turn],
    resolve: Resolver | None = None,
    topic_spans: Spans = word_spans,
) -> Condensed:
    """Rewrite a follow-up with the deterministic rule (see the module docstring);
    `topic_spans` tells where a question's topic words stand."""
    question = question.strip()
    last = last_answer(turns)
    if (
        last is not None
        and last.nearest
        and (asks_past_shown(question) or OTHERS_REF.search(question))
    ):
        # "anything else on X?", "and the others?" after an abstention: its nearest papers were
        # no answer to go past, so they are read as before it listed any.
        return rule_rewrite(question, answers_only(turns), resolve, topic_spans)
    if last is not None and asks_past_shown(question):
        # "anything else on label noise?", "any other papers on this?": the collection's papers
        # on its words (on the set's question when it names no topic), less those shown.
        cited = tuple(papers_of(last, resolve))
        listed = set_turn(turns)
        if cited and not topic_spans(question) and listed is not None:
            # The set's question again, less every paper shown since it was asked: after "the
            # first one's limitation?", the set's other paper was shown too.
            since = turns[next(i for i, t in enumerate(turns) if t is listed) :]
            since_shown = unique(p for t in since for p in papers_of(t, resolve))
            return Condensed(listed.question, question, "rule", excluded=tuple(since_shown))
        if cited:
            return Condensed(question, question, "rule", excluded=cited)
    if last is None or not (depends_on_history(question) or WHICH_SUBJECT.search(question)):
        return Condensed(question, question)
    compared_only = bool(COMPARED_OPENING.match(question)) and not refers_back(question)
    if compared_only and (beside := papers_of(last, resolve)):
        # "vs TreePO?" after an answer on Deng et al.: "Deng et al. vs TreePO?", of both
        # (the paper it names joins in the pipeline, rag/answer/resolution.py); "compared to
        # GRPO, is this cheaper?" points back itself, as the rules below read it
        names = " and ".join(paper_name(p) for p in beside)
        return Condensed(f"{names} {question.strip()}", question, "rule", tuple(beside))
    numbers = cited_numbers(last)
    text = EXPLETIVE_IT.sub(lambda m: " " * len(m.group()), question)  # keeps the spans

    several = PLACES_REF.search(text)
    if several:  # "compare the first two": those places of the list on screen, as it was listed
        listed = shown_list(turns)
        markers = cited_numbers(listed) if listed is not None else []
        places = places_named(several, len(markers))
        if listed is not None and markers and max(places) > len(markers):
            # after an answer on one paper: of the latest list that long, as "the second one"
            longer = list_as_long(turns, max(places))
            if longer is None:
                word = place_word(max(places))
                return _no_such_place(question, len(markers), word)
            listed, markers = longer, cited_numbers(longer)
            places = places_named(several, len(markers))
        if listed is not None and markers and all(1 <= k <= len(markers) for k in places):
            chosen = unique(paper_cited(listed, markers[k - 1], resolve) for k in places)
            if chosen:
                rewritten = _with_name(question, several.span(), chosen)
                return Condensed(rewritten, question, "rule", tuple(chosen))
    match = ORDINAL.search(text)
    number_match = NUMBER_REF.search(text)
    paper = None
    if match:  # "the second one": the second paper of the list on screen, as it was listed
        listed = shown_list(turns)
        markers = cited_numbers(listed) if listed is not None else []
        word, place = ordinal_place(match, len(markers))
        if listed is not None and markers and place > len(markers):
            # "the second one" after an answer on one paper: of the latest list that has one
            # (the answer before it listed two)
            longer = list_as_long(turns, place)
            if longer is not None:
                listed, markers = longer, cited_numbers(longer)
        if listed is not None and 1 <= place <= len(markers):
            paper = paper_cited(listed, markers[place - 1], resolve)
        elif listed is not None and markers and place > len(markers):
            # "the third one" after two papers: saying so beats answering of another paper.
            return _no_such_place(question, len(markers), word)
    elif number_match:  # "[2]", "paper 2": the marker in the last answer's text
        paper = paper_cited(last, int(number_match.group("a") or number_match.group("b")), resolve)
        match = number_match
    several_places = paper is not None and len(list(ORDINAL.finditer(text))) > 1
    named = _each_place(text, turns, resolve) if several_places else []
    if len(named) > 1:
        # "how does the second one compare to the first?": each place its paper
        rewritten = question
        for where, one in sorted(named, key=lambda x: -x[0].start()):
            rewritten = _with_name(rewritten, where.span(), [one])
        return Condensed(rewritten, question, "rule", tuple(unique(p for _, p in named)))
    if paper is not None and match is not None:
        rewritten = _with_name(question, match.span(), [paper])
        ranked = COMPARES.search(text) or RANKED_AGAINST.search(text)
        it = it_beside(text, match) if ranked else None
        just_shown = unique(paper_cited(last, k, resolve) for k in numbers[:1]) if it else []
        if it is not None and len(numbers) == 1 and just_shown and just_shown[0].id != paper.id:
            # "how does it compare to the first?": the paper just shown beside the first
            rewritten = _with_name(rewritten, it.span(), just_shown)
            return Condensed(rewritten, question, "rule", (just_shown[0], paper))
        return Condensed(_verb_agreeing(rewritten, match, paper), question, "rule", (paper,))

    pick = PICKS.search(text) or WHICH_SUBJECT.search(text)
    if pick is not None:  # a choice among the set, judged on the question's own words
        papers = the_set(turns, resolve)
        listed = set_turn(turns)
        if len(papers) == 1 and listed is not None:
            # "which of the two is better?", "which of them has guarantees?" after two answers
            # of one paper each: a choice is among several, both of them
            papers = with_earlier(turns, listed, papers, resolve)
        words = " ".join((question[: pick.start()] + question[pick.end() :]).split())
        if not papers:  # the last answer showed no paper: the question's own words, searched
            return Condensed(words, question, "rule")
        names = " and ".join(paper_name(p) for p in papers)
        if len(papers) == 1 and (asked := _asked_of_one(question, pick, names)):
            rewritten = asked  # "Which of them uses X?" after one paper: "Does ICGNN use X?"
        elif pick.groupdict().get("ref"):  # "any of them" -> "any of ICGNN and CELL"
            rewritten = _with_name(question, pick.span("ref"), papers)
        else:  # "Which one" -> "Which of ICGNN and CELL"; "the one that" -> "the one of ..."
            lead = LEAD.match(pick.group())
            word = pick.group()[lead.end() :] if lead else pick.group()
            which = "the one of" if word.lower().startswith("the") else f"{word[0]}hich of"
            start = pick.start() + (lead.end() if lead else 0)
            rewritten = question[:start] + f"{which} {names}" + question[pick.end() :]
        return Condensed(rewritten, question, "rule", tuple(papers), pick=words)

    pair = PAIR_REF.search(text) or PAIR_PRONOUN.search(text)
    found = PLURAL_REF.search(text) or pair or SINGULAR_REF.search(text)
    # "who wrote it?" after an answer on several papers: "it" could be any, and each record is
    # a line, so each one's (the first alone looked like the answer's only paper's)
    ambiguous = found is not None and found.group().lower() in BARE_IT and record_fields(text)
    pointed = (
        numbers if found is None or PLURAL_REF.search(text) or pair or ambiguous else numbers[:1]
    )
    papers = unique(paper_cited(last, k, resolve) for k in pointed)
    the_others = found is not None and bool(OTHERS_REF.fullmatch(found.group()))
    if the_others:
        shown = {p.id for p in papers}
        topic = set_turn(turns)
        others = [p for p in papers_of(topic, resolve) if p.id not in shown]
        if not others and papers and topic is not None:
            # The set showed every paper it had: the others are the rest of the collection
            # on the set's own question ("graph neural networks with noisy labels").
            return Condensed(topic.question, question, "rule", excluded=tuple(papers))
        compared = it_beside(text, found) if found and others and COMPARES.search(text) else None
        if found is not None and compared is not None and len(papers) == 1:
            # "how does it compare to the other one?": "it" is the paper just shown, "the
            # other" the set's others, and the answer is about both
            rewritten = _with_name(question, found.span(), others)
            rewritten = _with_name(rewritten, compared.span(), papers)
            return Condensed(rewritten, question, "rule", (*papers, *others))
        papers = others or papers
    elif (
        len(papers) == 1
        and found is not None
        and (PLURAL_REF.fullmatch(found.group()) or found is pair)
        and (pair or COMPARES.search(text))
    ):
        # "is there another paper on fairness?" then "how do they compare?": the paper shown
        # last and the one shown before it
        papers = with_earlier(turns, last, papers, resolve)
    elif found is not None and records_of_them(text):
        # "give me a BibTeX for them" after "what did the second one find?": the records of a
        # plural after one paper of a set are the set's ("they" stays the authors: "what did
        # they use?"; "them" in "how could we address them?" the limitations just asked about)
        papers = set_of(turns, papers, resolve)
    # After an abstention, "its" is its topic's, as after one paper: it listed no answer.
    it = _topic_it(text, [] if last.nearest else numbers)
    asked_alone = _asked_on_its_own(turns, last) if it is not None else last
    asks_topic = (
        it is not None
        and not the_others
        and not record_fields(question)
        and not _asked_what_they_propose(last, asked_alone)
        # "does it beat standard GNNs?", "is it better than adversarial debiasing?": what
        # beats another is a method, a paper's, not the topic asked about
        and not RANKED_AGAINST.search(text)
    )
    subject = topic_of(asked_alone, topic_spans) if asks_topic else None
    if subject and asked_alone.found_none and not last.found_none:
        # "what about the second one?" after an abstention, then "is it fast?": "it" is the
        # paper that answer was about, since the topic has none.
        subject = None
    if it is not None and subject:
        # "privacy" or "what do we know about grokking?", then "how is it protected?", "why
        # does it happen?" or "how do they get it to scale?": "it" is the topic, not the
        # answer's first paper. Of several papers, the per-paper judgement picks those on it;
        # one paper stays the one asked about, named after the question; after no paper, the
        # topic is searched.
        rewritten = _with_topic(question, it.span(), subject)
        if not papers or last.found_none:
            # The collection had no paper on it: the topic is searched afresh, and the answer
            # found none on it before (`unanswered`) when that was the topic's own question.
            unanswered = subject if asked_alone.found_none else None
            return Condensed(rewritten, question, "rule", unanswered=unanswered)
        if len(numbers) > 1:
            papers = unique(paper_cited(last, k, resolve) for k in numbers)
            return Condensed(rewritten, question, "rule", tuple(papers), pick=rewritten)
        # "why does grokking happen (ExPLAIND)?" is searched; its sentences are judged on the
        # follow-up asked of the paper, as the rule read it before ("why does ExPLAIND
        # happen?", "how do Cao et al. try to avoid it?"), so that words the paper was already
        # chosen for do not make it look as if it answered a new aspect ("does it help with
        # image classification?" after "TRM trust region bounds").
        asked = _with_name(question, (found or it).span(), papers)
        own = [s for s in topic_spans(question) if s not in ((found or it).span(), it.span())]
        if not own and wanted(question) is not Want.DEFINITION:
            # "why does it happen?" asks nothing of the paper but of its topic: asked of the
            # paper ("why does ExPLAIND happen?", no word but the name), any of its sentences
            # passed, one saying nothing of grokking; they are judged on the follow-up with
            # the topic in place of "it" ("why does grokking happen?"). "how does it work?"
            # asks how the paper's method does (judged on the topic, it got the background
            # sentence naming the topic again).
            return replace(asked_of(rewritten, papers), original=question, pick=rewritten)
        if any(paper_name(p).lower() in rewritten.lower() for p in papers):  # "about ConPress"
            return Condensed(rewritten, question, "rule", tuple(papers), asked=asked)
        return replace(asked_of(rewritten, papers), original=question, asked=asked)
    if not papers and (found is not None or it is not None):
        # "does it lose accuracy?" after "which is the fastest?" found none among a list: the
        # pronoun is of the list the choice was among.
        listed = set_turn(turns)
        if listed is not None and listed is not last:
            papers = list(papers_of(listed, resolve))
    if not papers:  # the previous answer cited nothing: there is nothing to refer to
        return Condensed(question, question)
    if found is not None:
        rewritten = _with_name(question, found.span(), papers)
    elif last.nearest:  # "why not?" after an abstention points at none of the papers it listed
        return Condensed(question, question)
    else:  # no subject of its own ("Why?", "Tell me more."): about the previous papers
        return asked_of(question, papers)
    return Condensed(rewritten, question, "rule", tuple(papers))


def _no_such_place(question: str, listed: int, word: str) -> Condensed:
    """The reply to `question`, which points at place `word` ("third") of a list of `listed`."""
    reply = prompts.NO_SUCH_PLACE.format(
        papers=f"{listed} paper{'s' if listed != 1 else ''}",
        word=word,
        them="them" if listed != 1 else "it",
    )
    return Condensed(question, question, "rule", reply=reply)


def asked_of(question: str, papers: Sequence[Paper], method: str = "rule") -> Condensed:
    """`question` asked of `papers`: "Why?" -> "Why (CELL)?", "main limitation?" -> "main
    limitation (CELL)?"; a name the question writes already is not repeated."""
    unnamed = [
        n
        for n in map(paper_name, papers)
        if not re.search(rf"(?<!\w){re.escape(n)}(?!\w)", question)
    ]
    if not unnamed:  # "how much does ConPress reduce tokens?" names it already
        return Condensed(question, question, method, tuple(papers))
    names = " and ".join(unnamed)
    return Condensed(f"{question.rstrip(' ?.!')} ({names})?", question, method, tuple(papers))


_AUXILIARIES = frozenset("is was can could will would should".split())  # noqa: SIM905
_PARTICIPLES = frozenset(
    "been shown done made found got gotten led won seen taken given run become proven".split()  # noqa: SIM905
)
# Words ending in -s that are not a verb agreeing with "which" ("Which of them always uses X?").
_NOT_VERBS = frozenset("always sometimes perhaps thus this its less various previous".split())  # noqa: SIM905


def _asked_of_one(question: str, pick: re.Match[str], name: str) -> str | None:
    """A "which" choice that opens the question, asked of the one paper the set holds: "Which
    of them uses X?" -> "Does ICGNN use X?", "Which one is about Y?" -> "Is ICGNN about Y?"
    (None: another kind of choice, or no verb this can turn follows it)."""
    if question[: pick.start()].strip() or not pick.group().lower().startswith("which"):
        return None
    verb = re.match(r"\s*([A-Za-z]+)\b(.*)$", question[pick.end() :], re.DOTALL)
    if verb is None:
        return None
    word, rest = verb.group(1), verb.group(2)
    low = word.lower()
    if low in ("has", "have"):  # "has been tested" -> "Has X been"; "has theory" -> "Does X have"
        after = re.match(r"\s+(?:not\s+)?([a-z]+)", rest)
        past = after is not None and (
            after.group(1) in _PARTICIPLES or after.group(1).endswith(("ed", "en"))
        )
        return f"Has {name}{rest}" if past else f"Does {name} have{rest}"
    if low in ("are", "were"):  # "Which of them are about X?" -> "Is X about ..."
        return f"{agree(low, False).capitalize()} {name}{rest}"
    if low in _AUXILIARIES:
        return f"{low.capitalize()} {name}{rest}"
    if low in _NOT_VERBS or not low.endswith("s") or low.endswith(("ss", "us", "is")):
        return None  # "does" as a main verb, a bare plural verb, not a verb: left as it was
    return f"Does {name} {agree(word, True)}{rest}"
