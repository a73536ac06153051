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

import functools
import html
import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rag import prompts
from rag.answer.abstention import word_count, word_spans
from rag.answer.citations import strip_markers
from rag.answer.discourse import agree
from rag.answer.pair_words import COMPARES, PAIR, PAIR_PRONOUN, PAIR_REF
from rag.answer.record_questions import names_only_fields, record_fields
from rag.backends.base import Backend, Prompt
from rag.errors import BackendError
from rag.ingest.naming import method_name
from rag.ingest.wanted import Want, question_tags, wanted
from rag.records import Paper
from rag.text import CONTENT_WORD, content_stems, parts_of_speech, split_sentences

log = logging.getLogger(__name__)

_ORDINALS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
    "fifth": 5, "5th": 5, "former": 1,
    # "what is the closest one then?" after an abstention: its list is nearest first
    "closest": 1, "nearest": 1,
}  # fmt: skip
_ONE_WORDS = "one paper method approach work study model framework source reference article"
_ONE = rf"(?:{'|'.join(_ONE_WORDS.split())})"
_NOUN = rf"(?:{_ONE}|papers)"
_ORD = rf"(?:{'|'.join(_ORDINALS)}|last|latter)"
# A bare "the second" or "the other" ends its phrase: punctuation or a verb follows ("did the
# second use?"), not a noun ("the first stage", "on the other hand").
_ENDS_PHRASE = (
    r"(?=\s*(?:[?.,;:!\u2013\u2014]|\s-\s|$|['\u2019]s\b|\s+(?:did|does|do|is|was|has|had|uses?|used|"
    r"propose[sd]?|shows?|reports?|finds?|found|says?|means?|claims?|achieves?|evaluates?|"
    r"compares?|beats?|outperforms?)\b))"
)
# "the second one/paper/method", or a bare "the second".
_ORDINAL_REF = re.compile(
    rf"\b(?:the\s+)?(?P<a>{_ORD})\s+{_NOUN}\b|\bthe\s+(?P<b>{_ORD})\b{_ENDS_PHRASE}",
    re.IGNORECASE,
)
# "the former" and "the latter" point back even before a verb the list above lacks ("what does
# the former get wrong?"), though not before a noun they describe ("the latter half").
_FORMER_LATTER = re.compile(r"\bthe\s+(?P<b>former|latter)\b(?=(?:\s+(?P<next>[a-z]+))?)", re.I)

_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5}
# "second" for 2: the ordinals' words, read back
_PLACE_WORDS = {
    n: w for w, n in _ORDINALS.items() if w.isalpha() and w not in ("former", "closest", "nearest")
}
_COUNT = rf"(?:{'|'.join(_COUNTS)}|[2-9])"


def place_word(n: int) -> str:
    """How place `n` (1-based) of a list is said: "second", or "number 7" past the ordinals."""
    return _PLACE_WORDS.get(n, f"number {n}")


# Several papers by their places: "the first two", "the top 3 papers", "the last two ones",
# "the first and third", "papers 1 and 3", "[1] and [2]".
_NOUNS = rf"(?:{_ONE}(?:e?s)?|papers|studies)"  # "the first two approaches"
_PLACES = re.compile(
    rf"\b(?:the\s+)?(?P<end>first|top|last)\s+(?P<count>{_COUNT})(?:\s+{_NOUNS}\b"
    rf"|(?=(?:\s+(?P<next>[a-z]+))?))"
    rf"|\b(?:the\s+)?(?P<one>{_ORD})(?:\s+{_ONE})?\s*(?:,|and|&)\s*(?:the\s+)?(?P<two>{_ORD})"
    rf"(?:\s+{_NOUNS})?\b"
    rf"|(?:\b(?:{_NOUNS}\s+)|\[)(?P<n1>[1-9])\]?\s*(?:,|and|&)\s*\[?(?P<n2>[1-9])\b\]?",
    re.IGNORECASE,
)


class _PlacesRef:
    """`_PLACES`' matches but a count before a noun it describes ("the first two stages"; a
    plural after a count is a noun, where "the first two differ" has a verb)."""

    def finditer(self, text: str) -> Iterable[re.Match[str]]:
        for m in _PLACES.finditer(text):
            after = (m.group("next") or "") if m.group("end") else ""
            plural = after.lower().endswith("s") and not after.lower().endswith("ss")
            if not (_names_a_noun(after or None) or (plural and "NOUN" in parts_of_speech(after))):
                yield m

    def search(self, text: str) -> re.Match[str] | None:
        return next(iter(self.finditer(text)), None)


def _places(match: re.Match[str], listed: int) -> list[int]:
    """The places (1-based) a `_PLACES` match points at in a list of `listed` papers."""
    if match.group("end"):
        count = _COUNTS.get(match.group("count").lower()) or int(match.group("count"))
        if match.group("end").lower() == "last":
            return list(range(max(1, listed - count + 1), listed + 1))
        return list(range(1, count + 1))
    if match.group("one"):
        words = (match.group("one").lower(), match.group("two").lower())
        return [listed if w in ("last", "latter") else _ORDINALS[w] for w in words]
    return [int(match.group("n1")), int(match.group("n2"))]


class _Ordinals:
    """`_ORDINAL_REF`'s matches, and the bare "the former/latter" that `_FORMER_LATTER` finds
    before no noun: one `search` and `finditer` for both."""

    def finditer(self, text: str) -> Iterable[re.Match[str]]:
        yield from _ORDINAL_REF.finditer(text)
        for m in _FORMER_LATTER.finditer(text):
            if not _ORDINAL_REF.match(text, m.start()) and not _names_a_noun(m.group("next")):
                yield m

    def search(self, text: str) -> re.Match[str] | None:
        return min(self.finditer(text), key=lambda m: m.start(), default=None)


def _names_a_noun(word: str | None) -> bool:
    """Whether `word` can be a noun and not a verb ("half", not "get")."""
    if word is None:
        return False
    tags = parts_of_speech(word)
    return "NOUN" in tags and "VERB" not in tags


_ORDINAL = _Ordinals()
_PLACES_REF = _PlacesRef()
_NUMBER_REF = re.compile(
    rf"(?:\b(?:the\s+)?{_NOUN}\s*(?:number\s*|no\.?\s*)?\[?(?P<a>\d)\]?(?!\d)|\[(?P<b>\d)\])",
    re.IGNORECASE,
)
# "this paper", "that method", "it"; "the paper" too, but not "the work on X" or "the papers":
# a noun the question goes on to describe, or a plural after "the"/"these", is the collection's.
_SINGULAR_REF = re.compile(
    rf"\b(?:(?:this|that)\s+{_ONE}|the\s+{_ONE}(?!\s+(?:on|about|in|regarding|for|of|that|"
    rf"which|from|with)\b)|it|its|itself)\b(?!\s*\[)",
    re.IGNORECASE,
)
# Of `_SINGULAR_REF`'s matches, those that name no noun.
_BARE_IT = frozenset({"it", "itself", "its"})
# A question asking for a paper or method: "which (new) paper ...", "what's the method that
# ...", "is there a foundation model for ...", "recommend a paper on ...", "which papers ...".
# "which of the methods ...", "is there work on ...", "what do these papers say ..." ask about
# a topic.
_ENTITY = (
    r"(?:paper|method|approach|model|framework|technique|tool|algorithm|work|study|scheme|"
    r"system|reference|article|abstract|defen[cs]e|one)"
)
# Words before the noun of the same phrase ("a good method", "the post-training compression
# approach"), not across a preposition ("any work on model design").
_MODIFIERS = r"(?:(?!(?:on|about|of|in|for|with|regarding|to)\b)[\w-]+\s+)"
_ASKS_FOR_ONE = re.compile(
    rf"\b(?:which|what(?:'s|\u2019s|\s+is|\s+was)?\s+the|whats\s+the|is\s+there\s+(?:a|an|one)|"
    rf"(?:know|recommend|suggest|find|show|give)\s+(?:me\s+|us\s+)?(?:a|an|one))\s+"
    rf"(?:[\w-]+\s+){{0,3}}?{_ONE}\b"
    rf"|\bwhich\s+(?:[\w-]+\s+)?{_ONE}s\b"
    # one described by what it does: "the paper that replaces ...", "a framework which ..."
    rf"|\b{_ENTITY}\s+(?:that|which)\b"
    # a request for one: "I'm looking for the paper ...", "point me to the work on ...", "got
    # a reference for ...", "I recall a framework ...", "there was a scheme ...", "any paper
    # on X?", "what method do people use for X?"
    rf"|\b(?:looking\s+for|point\s+me\s+to|recall|remember|need|want|got|have|there\s+(?:was|is))"
    rf"\s+(?:a|an|the|any|one)\s+{_MODIFIERS}{{0,4}}?{_ENTITY}\b(?!s)"
    # but "any work on X?", "any study of X?" ask for work on X, a topic
    rf"|^\W*(?:any|a|an)\s+{_MODIFIERS}{{0,2}}?(?!work\b|study\b){_ENTITY}\b(?!s)"
    rf"|\b(?:which|what)\s+{_ENTITY}\b(?!s)",
    re.IGNORECASE,
)
# "that" or "this" standing alone for what the last answer said: at the end of a clause ("how
# do the papers fix that?", "what causes this?") or as the subject of a short clause after an
# auxiliary ("how is that fixed?", "does this apply to PPO?"); not "that" opening a clause
# ("is it true that ...", "papers that use graphs") nor "this bot" ("how does this bot work").
_CLAUSE_END = r"(?=\s*(?:[?.!,;:)]|$))"
_DEMONSTRATIVE = re.compile(
    rf"\b(?:that|this){_CLAUSE_END}"
    r"|\b(?:is|was|are|were|does|did|do|can|could|would|will|has|have|had|should|might|may)"
    rf"\s+(?:that|this)\s+\w+(?:{_CLAUSE_END}|\s+(?:to|for|on|in|with|from|than|by|into|over|"
    r"under|after|before|without|across|beyond|at|as|too|also|here|now)\b)",
    re.IGNORECASE,
)
# "the others", "the rest", "the other one": the papers of the set (see `_the_set`) that the
# last answer left out.
_OTHERS = (
    rf"\bthe\s+(?:others\b|rest\b|remaining\s+{_ONE}s?\b"
    # "the other one", "the other fairness paper" (not "on the other hand the model ...")
    rf"|other(?:(?:\s+(?!(?:the|an?|of|on|in|hand|side)\b)[a-z][\w-]*)?\s+{_ONE}s?\b"
    rf"|\b{_ENDS_PHRASE}))"
)
# "Which one ...?" (not "which one of the methods"): a choice among the papers just cited.
_WHICH_ONE = r"\bwhich\s+ones?\b(?!\s+(?:of|paper|papers|method|methods)\b)"
# After an answer, so is a "which" that opens the question followed by an auxiliary ("which is
# on graphs?", "and which has a proof?", "which is the fastest?"), not by a noun ("which
# datasets ...?" asks for datasets), nor "which are the main challenges in X?", nor a choice
# between things it names ("which is better, DPO or PPO?"); and "the one that/about ...". After
# another word ("which uses tree search?") "which" may be either: a message the follow-up
# judgement takes for one is then a choice too (`opens_with_which`, rag/answer/pipeline.py).
_AUXILIARY = "is are was were does do did has have can could would will should might may"
# What may come before such a "which", kept when it is rewritten ("and which of ...").
_LEADING = r"\W*(?:(?:and|so|ok|okay|then|but)\W+)?"
_LEAD = re.compile(rf"^{_LEADING}", re.IGNORECASE)
_WHICH_SUBJECT = re.compile(
    rf"^(?!.*\b(?:or|vs|versus)\b){_LEADING}which"
    rf"(?=\s+(?:{'|'.join(_AUXILIARY.split())})\b"
    r"(?!\s+(?:all\s+)?(?:the\s+|any\s+|some\s+)?(?:papers?|works?|studies|articles)\b)"
    r"(?!\s+the\s+(?!(?:most|least|best|worst|one|ones|\w+est)\b))"
    r"|\s+works\s+(?:on|with|for|in)\b)"
    # "the one that connects attention to smoothing", "the one about causal inference"
    r"|\bthe\s+one(?=\s+(?:that|which|about|on|with|using|where|for|in)\b)",
    re.IGNORECASE,
)
# A possessive right after the verb of an opening "which": "which checks its proofs?"
_WHICH_POSSESSIVE = re.compile(rf"^({_LEADING}which\s+\w+\s+)(?:its|their)\b", re.IGNORECASE)
# "which" opening a question, before a word that is not one asking for papers.
_OPENING_WHICH = re.compile(
    rf"^{_LEADING}which\s+"
    r"(?!(?:papers?|works?|studies|articles|methods?|ones?|of)\b)(?=\w)",
    re.IGNORECASE,
)
_OTHERS_REF = re.compile(_OTHERS, re.IGNORECASE)
# A follow-up that asks past the papers just shown: other or more of the collection's papers, work
# or approaches ("any other papers on RL collapse?", "more continual learning work?", "other long
# context stuff?"), "more on" a topic, or "anything else", "who else", "what else is there";
# not other things of the papers shown ("any other gains?", "what other tools are in the
# pipeline?", "why aren't other augmentation methods good enough?"), nor "the other one".
_PAST_SHOWN = re.compile(
    r"(?<!\bthe\s)\b(?:other|another|more|alternative)\s+(?:[\w-]+\s+){0,4}?"
    r"(?:papers?|works?|studies|research|stuff|articles|approaches|ways|techniques|ideas|ones|"
    r"variants)\b"
    r"|\bmore\s+(?:on|about)\b|\belse\b"
    # "any others?", "are there others?" (but "the others" are the set's: `_OTHERS`)
    r"|(?<!\bthe\s)\bothers\b",
    re.IGNORECASE,
)
_PLURAL_REF = re.compile(
    # a noun after "their" or "those" is what they point at; after "they" a verb ("they work")
    rf"\b(?:they|them|theirs)\b|\b(?:their|those)(?:\s+{_NOUN})?\b|\b(?:both|all)\s+of\s+them\b"
    rf"|{PAIR}|{_WHICH_ONE}|{_OTHERS}",
    re.IGNORECASE,
)
# A choice among the set's papers, however long the question: "Which one ...?", and a partitive
# over "them", "those" or "these (papers)": "Which of those ...?", "Are any of them ...?", "Does
# either of them ...?". "these papers" alone, "the papers" and "all of them" are not a choice.
_PICKS = re.compile(
    rf"{_WHICH_ONE}"
    r"|\b(?:which|any|either|neither|none|one|some|how\s+many)\s+of\s+"
    # A noun follows "those" or "these", never "them": in "which of them studies X" it is a verb.
    r"(?P<ref>them|(?:(?:those|these|the)\s+(?:two|three|four|five)|those|these|the\s+above)"
    r"(?:\s+(?:papers|ones|methods|approaches|studies|articles|models))?|both)\b",
    re.IGNORECASE,
)
# "Is it true that ...", "it is known that ...": an "it" that refers to nothing.
_EXPLETIVE_IT = re.compile(
    r"\b(?:(?:is|was)\s+it|it\s+(?:is|was)|it's)\s+(?:\w+\s+)?(?:true|possible|known|"
    r"feasible|worth|necessary|hard|easy|better|common|likely|important|useful|the\s+case)\b"
    # only before what it stands for: "is it hard to ...", "is it worth reading", not "why is
    # it hard?" nor "so it's better?", where "it" is what was asked about
    r"(?=\s+(?:to|that|whether|if|for|\w+ing)\b)",
    re.IGNORECASE,
)
# Words that ask for more without naming a subject: "Tell me more.", "Why?", "Any details?"
_NO_SUBJECT = (
    "tell more detail details explain elaborate why how please anything else what about go "
    "further expand summarize summarise summary"
)
# Of those, the words that ask to go on or go deeper ("Tell me more.", "Why?", "go on"), not the
# question words and fillers a greeting or a question about the collection has too ("how are
# you?", "what else do you have?", "please").
_MORE = frozenset(
    """tell more detail details explain elaborate why go further expand summarize summarise
    summary""".split()  # noqa: SIM905  # a word list reads better as text
)
_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")  # "- ", "* ", "2. " before a list line
_SHORT = 5  # content words: a question with a pronoun and this many or fewer leans on the last
_MAX_LLM_WORDS = 40


@dataclass(frozen=True)
class Turn:
    """One earlier exchange: the question, the answer text, and the papers it cited.

    The paper cited as `[n]` in `answer` is `cited[n - 1]`; `cited` is empty when only the
    text is known (chat messages), and the papers are then looked up by their sentences.
    `typed` is the question as the user typed it, when `question` is what was searched.
    """

    question: str
    answer: str = ""
    cited: tuple[Paper, ...] = ()
    typed: str = ""
    # An abstention's nearest papers, in the order it listed them: what "the second one" or
    # "them" points at after it, though they are no answer (`found_none`).
    nearest: tuple[Paper, ...] = ()

    @property
    def found_none(self) -> bool:
        """Whether the answer found no paper on its question: an abstention. Not an answer that
        said it quotes only the nearest papers (`prompts.NEAREST_ONLY`, `NEAREST_WEAK`): that
        hedge is often wrong of a paper on the question ("ways to shorten CoT traces?" hedged
        on ConPress), and a follow-up would then be told ConPress is "not a paper on it"."""
        return self.answer.lstrip().startswith(_ABSTAINED)


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
    # "does it handle long sentences?" after an answer that found no paper on "sequence-to-
    # sequence learning with LSTMs": that topic, which the answer must find a paper on or say
    # again that the collection has none (rag/answer/pipeline.py).
    unanswered: str | None = None


Resolver = Callable[[str], "Paper | None"]

# How an answer that found no paper on its question opens (`Turn.found_none`), read from its
# text, so that a chat's rendered messages say it as the Answer does.
_ABSTAINED = prompts.ABSTAIN.split(". ")[0]


# The page's marks around an answer: a badge before a turn ("English only", "No paper on
# this") and the line giving what was searched; not what the answer said.
_TURN_LABEL = re.compile(r'<span class="(?:turn-label|searched)[^"]*">[^<]*</span>\s*')


def _plain(content: Any) -> str:
    """Return the text of a chat message's content (Gradio gives a string or parts)."""
    if isinstance(content, list):
        content = " ".join(
            str(p.get("text", "")) if isinstance(p, Mapping) else str(p) for p in content
        )
    text = str(content or "")
    text = text.split("\n\n*", 1)[0]  # a notice appended in italics after the answer
    text = _TURN_LABEL.sub("", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"\\(.)", r"\1", text)  # Markdown escapes
    text = html.unescape(text)
    # Lines stay apart: a "which papers" answer is one "- " line per paper.
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def to_turns(history: Sequence[Any] | None) -> list[Turn]:
    """Return the earlier exchanges from any history form we accept.

    Args:
        history: `Turn`s; (question, Answer) pairs; or chat messages
            ({"role": "user"|"assistant", "content": ...}) as the UI keeps them.

    Returns:
        The turns, oldest first.
    """
    turns: list[Turn] = []
    pending: str | None = None
    for item in history or []:
        if isinstance(item, Turn):
            turns.append(item)
        elif isinstance(item, Mapping):
            role, text = item.get("role"), _plain(item.get("content"))
            if role == "user":
                if pending is not None:
                    turns.append(Turn(pending))
                pending = text
            elif role == "assistant" and pending is not None:
                turns.append(Turn(pending, text))
                pending = None
        elif isinstance(item, Sequence) and not isinstance(item, str) and len(item) == 2:
            question, answer = item
            citations = getattr(answer, "citations", ())
            text = getattr(answer, "answer", answer if isinstance(answer, str) else "")
            ordered = sorted(citations, key=lambda c: c.n)
            # `cited[n-1]` must be paper [n]; numbering is 1..k by construction.
            asked = getattr(answer, "standalone", None) or str(question)
            cited = tuple(c.hit.paper for c in ordered)
            turn = Turn(asked, str(text), cited, str(question))
            # An abstention's nearest papers, not those of "none of the papers listed earlier"
            # or "no other paper", which were listed as a choice's or the others' leftovers.
            if getattr(answer, "abstained", False) and turn.found_none:
                turn = replace(turn, nearest=tuple(h.paper for h in answer.nearest))
            turns.append(turn)
    if pending is not None:
        turns.append(Turn(pending))
    return turns


def paper_name(paper: Paper) -> str:
    """Return a short name for a paper: its method name, title or label."""
    return method_name(paper.abstract) or paper.title or paper.label or paper.citation_key


def _cited(turn: Turn, n: int, resolve: Resolver | None) -> Paper | None:
    """Return the paper cited as [n] in `turn`'s answer (an abstention's: listed nth)."""
    if 1 <= n <= len(turn.cited):
        return turn.cited[n - 1]
    if 1 <= n <= len(turn.nearest):
        return turn.nearest[n - 1]
    if turn.cited or resolve is None:
        return None
    sentences = (
        s for line in turn.answer.splitlines() for s in split_sentences(_LIST_ITEM.sub("", line))
    )
    for sentence in sentences:
        text, numbers = strip_markers(sentence)
        if n in numbers and text:
            return resolve(text)
    return None


# The replies to a message that named no topic ("got it, thanks", "what's in here?").
_NO_TOPIC_REPLIES = tuple(
    reply.split("{")[0]
    for reply in (
        prompts.NO_TOPIC,
        prompts.NO_MATCH_TOPIC,
        prompts.NO_TOPIC_AGAIN,
        prompts.NO_TOPIC_EMPTY,
        prompts.THANKED,
        prompts.THANKED_AGAIN,
    )
)


# Nor is the reply to a question the bundled models could not read (one in Chinese).
_NOT_ANSWERS = (*_NO_TOPIC_REPLIES, prompts.ENGLISH_ONLY)


def last_answer(turns: Sequence[Turn]) -> Turn | None:
    """Return the last answered turn that is not the reply to a message naming no topic, nor
    in a language the models cannot read (else the last answered one): after "got it,
    thanks", "it" still means the papers shown before. An answer that said the collection has
    no paper on a question is the last answer."""
    answered = [t for t in turns if t.answer]
    on_topic = [t for t in answered if not t.answer.lstrip().startswith(_NOT_ANSWERS)]
    last = on_topic or answered
    return last[-1] if last else None


def _cited_numbers(turn: Turn) -> list[int]:
    if turn.cited or turn.nearest:
        return list(range(1, len(turn.cited or turn.nearest) + 1))
    return sorted({int(n) for n in re.findall(r"\[(\d+)\]", turn.answer)})


Spans = Callable[[str], list[tuple[int, int]]]  # where a question's topic words stand


def topic_of(turn: Turn, spans: Spans = word_spans) -> str | None:
    """What a later "it" stands for when `turn` asked about a topic rather than for a paper
    (None: it asked for one paper or method, or names nothing).

    A few bare words ("privacy", "graph neural networks") are the topic as typed. Else its
    span from the first to the last word that says what it asks about (`spans`: "what do
    these papers tell us about grokking" -> "grokking", "is there work on compressing LLMs with
    SVD?" -> "compressing LLMs with SVD"); but a question asking for one paper or method
    ("which paper compresses reasoning?", "is there a method that spots backdoored clients?")
    found that paper, and "it" is the paper."""
    typed = (turn.typed or turn.question).strip()
    tags = question_tags(typed)
    every = word_spans(typed)
    bare = "q:statement" in tags and "q:short" in tags
    if bare and every and len(every) == word_count(typed):
        return typed[every[0][0] : every[-1][1]]  # all on the topic ("federated lerning")
    if _ASKS_FOR_ONE.search(typed):
        return None
    words = spans(typed)
    return typed[words[0][0] : words[-1][1]] if words else None


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
    found = list(_SINGULAR_REF.finditer(text))
    if any(m.group().lower() not in _BARE_IT for m in found):
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


def _place(match: re.Match[str], listed: int) -> tuple[str, int]:
    """The ordinal `match` ("the second one", "the latter") names and the place it points at in
    a list of `listed` papers (1 first; "last" and "latter" its end)."""
    word = (match.groupdict().get("a") or match.group("b")).lower()
    return word, listed if word in ("last", "latter") else _ORDINALS[word]


def _each_place(
    text: str, turns: Sequence[Turn], resolve: Resolver | None
) -> list[tuple[re.Match[str], Paper]]:
    """Each ordinal of `text` with the paper at that place of the set, when every one has a
    place in it ("the second one ... the first"); none otherwise."""
    listed = _set_turn(turns)
    markers = _cited_numbers(listed) if listed is not None else []
    out = []
    for match in _ORDINAL.finditer(text):
        place = _place(match, len(markers))[1]
        if listed is None or not 1 <= place <= len(markers):
            return []
        paper = _cited(listed, markers[place - 1], resolve)
        if paper is None:
            return []
        out.append((match, paper))
    return out


# "it" ranked against something: "does it beat X?", "it outperforms X?", "is it better than X?";
# not "why does it happen more often than expected?" nor "is it harder than short-horizon
# reasoning?", which rank the topic.
_RANKED_AGAINST = re.compile(
    r"\bit\s+(?:beats?|outperforms?|surpass(?:es)?)\b"
    r"|\b(?:does|did|can|could|would|will)\s+it\s+(?:beat|outperform|surpass)\b"
    r"|\b(?:is|was)\s+it\s+(?:better|worse)\s+than\b",
    re.IGNORECASE,
)


def _it_beside(text: str, others: re.Match[str]) -> re.Match[str] | None:
    """The bare "it" before another reference in `text` ("how does it compare to the other
    one?", "is it faster than the first?")."""
    for match in _SINGULAR_REF.finditer(text, 0, others.start()):
        if match.group().lower() in _BARE_IT:
            return match
    return None


def _with_name(question: str, span: tuple[int, int], papers: Sequence[Paper]) -> str:
    names = " and ".join(paper_name(p) for p in papers)
    if question[span[0] : span[1]].lower() in ("its", "their"):  # "its main contribution"
        names = _owning(names)
    return question[: span[0]] + names + question[span[1] :]


def _own_words(question: str) -> list[str]:
    """Return the content words of `question` that are not requests for more."""
    return [w for w in content_stems(question) if w not in _no_subject_stems()]


@functools.cache
def _no_subject_stems() -> frozenset[str]:
    return frozenset(content_stems(_NO_SUBJECT))


def refers_back(question: str) -> bool:
    """Return whether `question` points at the previous answer's papers: an ordinal ("the
    second one"), a number, "the others", a choice ("which of them"), or in a short question a
    pronoun or "this paper"."""
    text = _EXPLETIVE_IT.sub(" ", question)
    return _names_its_place(text) or _points_by_pronoun(text)


def first_reference(question: str) -> int | None:
    """Return where `question`'s first pointer at the previous answer's papers starts (a
    pronoun, "this paper", an ordinal, "the others", a choice; `refers_back` reads the same),
    or None when it has none."""
    text = _EXPLETIVE_IT.sub(lambda m: " " * len(m.group()), question)
    if not refers_back(text):
        return None
    references = (*_PLACE_REFERENCES, *_PRONOUN_REFERENCES)
    return min((m.start() for r in references if (m := r.search(text))), default=None)


# What points at the last answer's papers by their place in it (`_names_its_place`) and by a
# pronoun or demonstrative (`_points_by_pronoun`).
_PLACE_REFERENCES = (_PLACES_REF, _ORDINAL, _NUMBER_REF, _OTHERS_REF, _PICKS)
_PRONOUN_REFERENCES = (_PLURAL_REF, PAIR_PRONOUN, _SINGULAR_REF, _DEMONSTRATIVE)


def refers_by_pronoun(question: str) -> bool:
    """Return whether `question` points at the previous answer's papers by a pronoun alone
    ("love it", "what do they find?"), not by an ordinal, "the others" or a choice."""
    text = _EXPLETIVE_IT.sub(" ", question)
    return _points_by_pronoun(text) and not _names_its_place(text)


def _names_its_place(text: str) -> bool:
    """An ordinal, a number, "the others" or a choice ("Which one doesn't need ...?")."""
    return any(reference.search(text) for reference in _PLACE_REFERENCES)


def _points_by_pronoun(text: str) -> bool:
    """A pronoun, "this paper" or a "that" standing alone in a short question; not a possessive
    right after the verb of a "which" that opens it, which is what it refers to ("which checks
    its proofs in Lean?", while in "which datasets did their experiments use?" "their" is the
    last answer's)."""
    text = _WHICH_POSSESSIVE.sub(r"\g<1> ", text)
    short = len(content_stems(text)) <= _SHORT
    return short and (
        any(reference.search(text) for reference in _PRONOUN_REFERENCES) or _that_as_subject(text)
    )


# "does that need retraining?", "can this run on a phone?": "that" or "this" after an auxiliary,
# before a word lemminflect's dictionary knows as a verb, is the subject; before a noun it is
# that noun's ("does this bot work?", "can this tool export citations?").
_AUXILIARY_THAT = re.compile(
    r"\b(?:does|do|did|can|could|would|will|should|might|may)\s+(?:that|this)\s+([a-z]+)\b",
    re.IGNORECASE,
)


def _that_as_subject(text: str) -> bool:
    return any(
        "VERB" in parts_of_speech(word := m.group(1)) and not _ENTITY_NOUN.fullmatch(word)
        for m in _AUXILIARY_THAT.finditer(text)
    )


# The nouns of `_ENTITY` ("tool", "model", "method"), verbs too in the dictionary: after "this"
# they are its noun ("can this tool export citations?").
_ENTITY_NOUN = re.compile(rf"{_ENTITY}s?", re.IGNORECASE)


def opens_with_which(question: str) -> str | None:
    """The words after a "which" that opens `question` as its subject ("which uses tree
    search?" -> "uses tree search?"), None when it does not ("which papers use X?")."""
    found = _OPENING_WHICH.match(question)
    return question[found.end() :] if found else None


def asks_for_more(question: str) -> bool:
    """Return whether `question` has no subject of its own and asks for more ("Why?", "Tell
    me more.", "go on"); "ok", "how are you?" or an emoji have no subject either, but ask for
    nothing of the last answer."""
    words = {w.lower() for w in CONTENT_WORD.findall(question)}
    return not _own_words(question) and bool(words & _MORE)


# "anything on safety?", "ok, any work on DPO?", "is there anything about X?": the collection's
# papers on X are asked for, whatever the last answer was about.
_ANY_ON = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|so|and|also|well|hmm|thanks|great|cool|now)\W+)*"
    r"(?:(?:is|are)\s+there\s+)?any(?:thing|\s+(?:papers?|work|works|studies|research|articles))"
    r"\s+(?:on|about|regarding)\b",
    re.IGNORECASE,
)


def asks_for_any(question: str) -> bool:
    """Whether `question` asks the collection for anything on a topic ("anything on safety?")."""
    return bool(_ANY_ON.search(question))


def asks_past_shown(question: str) -> bool:
    """Return whether `question` asks for papers besides those just shown (`_PAST_SHOWN`), not
    for more of them: it points at them by no pronoun ("what else did they find?", "how does it
    compare to other methods?") nor "the others"."""
    return bool(_PAST_SHOWN.search(question)) and not refers_back(_OF_THE_TOPIC.sub(" ", question))


# "any other papers on that?", "more about this?": the pronoun is the topic, not the papers (but
# "what else is like it?" asks for papers like the one shown).
_OF_THE_TOPIC = re.compile(
    r"\b(?:on|about|regarding)\s+(?:that|this)\b(?=\s*[?.!]*\s*$)",
    re.IGNORECASE,
)


def depends_on_history(question: str) -> bool:
    """Return whether `question` needs the previous answer to be understood (see module doc).

    Used to decide whether to rewrite at all, by the rule and before any LLM rewrite.
    """
    return refers_back(question) or not _own_words(question)


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
        and (asks_past_shown(question) or _OTHERS_REF.search(question))
    ):
        # "anything else on X?", "and the others?" after an abstention: its nearest papers were
        # no answer to go past, so they are read as before it listed any.
        return rule_rewrite(question, _answers_only(turns), resolve, topic_spans)
    if last is not None and asks_past_shown(question):
        # "anything else on label noise?", "any other papers on this?": the collection's papers
        # on its words (on the set's question when it names no topic), less those shown.
        cited = tuple(papers_of(last, resolve))
        listed = _set_turn(turns)
        if cited and not topic_spans(question) and listed is not None:
            return Condensed(listed.question, question, "rule", excluded=cited)
        if cited:
            return Condensed(question, question, "rule", excluded=cited)
    if last is None or not (depends_on_history(question) or _WHICH_SUBJECT.search(question)):
        return Condensed(question, question)
    numbers = _cited_numbers(last)
    text = _EXPLETIVE_IT.sub(lambda m: " " * len(m.group()), question)  # keeps the spans

    several = _PLACES_REF.search(text)
    if several:  # "compare the first two": those places of the set, as it was listed
        listed = _set_turn(turns)
        markers = _cited_numbers(listed) if listed is not None else []
        places = _places(several, len(markers))
        if listed is not None and markers and max(places) > len(markers):
            # after an answer on one paper: of the latest list that long, as "the second one"
            longer = _list_as_long(turns, max(places))
            if longer is None:
                word = place_word(max(places))
                return _no_such_place(question, len(markers), word)
            listed, markers = longer, _cited_numbers(longer)
            places = _places(several, len(markers))
        if listed is not None and markers and all(1 <= k <= len(markers) for k in places):
            chosen = _unique(_cited(listed, markers[k - 1], resolve) for k in places)
            if chosen:
                rewritten = _with_name(question, several.span(), chosen)
                return Condensed(rewritten, question, "rule", tuple(chosen))
    match = _ORDINAL.search(text)
    number_match = _NUMBER_REF.search(text)
    paper = None
    if match:  # "the second one": the second paper of the set, as it was listed
        listed = _set_turn(turns)
        markers = _cited_numbers(listed) if listed is not None else []
        word, place = _place(match, len(markers))
        if listed is not None and markers and place > len(markers):
            # "the second one" after an answer on one paper: of the latest list that has one
            # (the answer before it listed two)
            longer = _list_as_long(turns, place)
            if longer is not None:
                listed, markers = longer, _cited_numbers(longer)
        if listed is not None and 1 <= place <= len(markers):
            paper = _cited(listed, markers[place - 1], resolve)
        elif listed is not None and markers and place > len(markers):
            # "the third one" after two papers: saying so beats answering of another paper.
            return _no_such_place(question, len(markers), word)
    elif number_match:  # "[2]", "paper 2": the marker in the last answer's text
        paper = _cited(last, int(number_match.group("a") or number_match.group("b")), resolve)
        match = number_match
    several_places = paper is not None and len(list(_ORDINAL.finditer(text))) > 1
    named = _each_place(text, turns, resolve) if several_places else []
    if len(named) > 1:
        # "how does the second one compare to the first?": each place its paper
        rewritten = question
        for where, one in sorted(named, key=lambda x: -x[0].start()):
            rewritten = _with_name(rewritten, where.span(), [one])
        return Condensed(rewritten, question, "rule", tuple(_unique(p for _, p in named)))
    if paper is not None and match is not None:
        rewritten = _with_name(question, match.span(), [paper])
        ranked = COMPARES.search(text) or _RANKED_AGAINST.search(text)
        it = _it_beside(text, match) if ranked else None
        just_shown = _unique(_cited(last, k, resolve) for k in numbers[:1]) if it else []
        if it is not None and len(numbers) == 1 and just_shown and just_shown[0].id != paper.id:
            # "how does it compare to the first?": the paper just shown beside the first
            rewritten = _with_name(rewritten, it.span(), just_shown)
            return Condensed(rewritten, question, "rule", (just_shown[0], paper))
        return Condensed(_verb_agreeing(rewritten, match, paper), question, "rule", (paper,))

    pick = _PICKS.search(text) or _WHICH_SUBJECT.search(text)
    if pick is not None:  # a choice among the set, judged on the question's own words
        papers = _the_set(turns, resolve)
        listed = _set_turn(turns)
        if len(papers) == 1 and listed is not None:
            # "which of the two is better?", "which of them has guarantees?" after two answers
            # of one paper each: a choice is among several, both of them
            papers = _with_earlier(turns, listed, papers, resolve)
        words = " ".join((question[: pick.start()] + question[pick.end() :]).split())
        if not papers:  # the last answer showed no paper: the question's own words, searched
            return Condensed(words, question, "rule")
        names = " and ".join(paper_name(p) for p in papers)
        if len(papers) == 1 and (asked := _asked_of_one(question, pick, names)):
            rewritten = asked  # "Which of them uses X?" after one paper: "Does ICGNN use X?"
        elif pick.groupdict().get("ref"):  # "any of them" -> "any of ICGNN and CELL"
            rewritten = _with_name(question, pick.span("ref"), papers)
        else:  # "Which one" -> "Which of ICGNN and CELL"; "the one that" -> "the one of ..."
            lead = _LEAD.match(pick.group())
            word = pick.group()[lead.end() :] if lead else pick.group()
            which = "the one of" if word.lower().startswith("the") else f"{word[0]}hich of"
            start = pick.start() + (lead.end() if lead else 0)
            rewritten = question[:start] + f"{which} {names}" + question[pick.end() :]
        return Condensed(rewritten, question, "rule", tuple(papers), pick=words)

    pair = PAIR_REF.search(text) or PAIR_PRONOUN.search(text)
    found = _PLURAL_REF.search(text) or pair or _SINGULAR_REF.search(text)
    # "who wrote it?" after an answer on several papers: "it" could be any, and each record is
    # a line, so each one's (the first alone looked like the answer's only paper's)
    ambiguous = found is not None and found.group().lower() in _BARE_IT and record_fields(text)
    wanted = (
        numbers if found is None or _PLURAL_REF.search(text) or pair or ambiguous else numbers[:1]
    )
    papers = _unique(_cited(last, k, resolve) for k in wanted)
    the_others = found is not None and bool(_OTHERS_REF.fullmatch(found.group()))
    if the_others:
        shown = {p.id for p in papers}
        topic = _set_turn(turns)
        others = [p for p in papers_of(topic, resolve) if p.id not in shown]
        if not others and papers and topic is not None:
            # The set showed every paper it had: the others are the rest of the collection
            # on the set's own question ("graph neural networks with noisy labels").
            return Condensed(topic.question, question, "rule", excluded=tuple(papers))
        compared = _it_beside(text, found) if found and others and COMPARES.search(text) else None
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
        and (_PLURAL_REF.fullmatch(found.group()) or found is pair)
        and (pair or COMPARES.search(text))
    ):
        # "is there another paper on fairness?" then "how do they compare?": the paper shown
        # last and the one shown before it
        papers = _with_earlier(turns, last, papers, resolve)
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
        and not _RANKED_AGAINST.search(text)
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
            papers = _unique(_cited(last, k, resolve) for k in numbers)
            return Condensed(rewritten, question, "rule", tuple(papers), pick=rewritten)
        # "why does grokking happen (ExPLAIND)?" is searched; its sentences are judged on the
        # follow-up asked of the paper, as the rule read it before ("why does ExPLAIND
        # happen?", "how do Cao et al. try to avoid it?"), so that words the paper was already
        # chosen for do not make it look as if it answered a new aspect ("does it help with
        # image classification?" after "TRM trust region bounds").
        asked = _with_name(question, (found or it).span(), papers)
        if any(paper_name(p).lower() in rewritten.lower() for p in papers):  # "about ConPress"
            return Condensed(rewritten, question, "rule", tuple(papers), asked=asked)
        return replace(asked_of(rewritten, papers), original=question, asked=asked)
    if not papers and (found is not None or it is not None):
        # "does it lose accuracy?" after "which is the fastest?" found none among a list: the
        # pronoun is of the list the choice was among.
        listed = _set_turn(turns)
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


# A paper named by what it is about: "the compression paper", "the fairness one", "the logic
# verification method" (up to three words before the noun; "the one about X" is a choice,
# `_PICKS`; "the diffusion model" is a model, not a paper). Not words that place or qualify a
# paper rather than say its topic.
_DESCRIPTION = re.compile(
    r"\b(?P<back>(?:go(?:ing)?\s+)?back\s+to\s+|return(?:ing)?\s+to\s+)?the\s+"
    r"(?P<words>(?:[A-Za-z][\w-]*\s+){0,2}[A-Za-z][\w-]*)\s+"
    r"(?P<noun>papers?|ones?|methods?|approach(?:es)?|works?|study|studies|frameworks?|articles?)\b",
    re.IGNORECASE,
)
_NOT_TOPICS = frozenset(
    """same other proposed new original above previous last latter former first second third
    whole main best following current present earlier next each every this that these those
    only one two three your my our their its another final actual latest newest recent
    oldest earliest most least key seminal important relevant related similar different
    existing prior""".split()  # noqa: SIM905
) | frozenset(_ORDINALS)  # "the second paper" is a place


_REFERRING_NOUNS = frozenset(
    f"""{_ONE_WORDS} papers methods models works studies approaches framework technique tool
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
    turns = _answers_only(to_turns(history))
    shown = _unique(p for turn in reversed(turns) for p in papers_of(turn, resolve))
    if not shown:
        return None
    return Condensed(
        question, question, "described", tuple(shown),
        described=described.group("words"), described_span=described.span(),
    )  # fmt: skip


def _described(text: str) -> re.Match[str] | None:
    """The first description of a paper by its topic in `text` (`_DESCRIPTION`), if any."""
    for match in _DESCRIPTION.finditer(text):
        words = set(match.group("words").lower().split())
        nouns = words & _REFERRING_NOUNS  # "the method work", "the model open source"
        # "Summarize the fairness papers", "the clustering work": the collection's, unless
        # the message goes back to them ("going back to the federated papers, ...")
        many = match.group("noun").lower() not in _SINGULAR_NOUNS
        topical = not words & _NOT_TOPICS and not nouns
        if topical and (match.group("back") or not many):
            return match
    return None


def _list_as_long(turns: Sequence[Turn], place: int) -> Turn | None:
    """The latest turn whose answer cited at least `place` papers (None: none did)."""
    return next((t for t in reversed(turns) if len(_cited_numbers(t)) >= place), None)


def _no_such_place(question: str, listed: int, word: str) -> Condensed:
    """The reply to `question`, which points at place `word` ("third") of a list of `listed`."""
    reply = prompts.NO_SUCH_PLACE.format(
        papers=f"{listed} paper{'s' if listed != 1 else ''}",
        word=word,
        them="them" if listed != 1 else "it",
    )
    return Condensed(question, question, "rule", reply=reply)


_REFERENCES = (
    _PLACES_REF, _ORDINAL, _NUMBER_REF, _OTHERS_REF, _PLURAL_REF, PAIR_PRONOUN, _SINGULAR_REF,
)  # fmt: skip


def without_reference(question: str) -> str:
    """Return `question` without the phrases that point at earlier papers ("the second one",
    "paper 2", "the others", "their", "this paper"): what is left is what it asks of them
    ("what did the second one find?" asks for findings, not for "second")."""
    spans = [m.span() for ref in _REFERENCES for m in ref.finditer(question)]
    kept = "".join(c for i, c in enumerate(question) if not any(a <= i < b for a, b in spans))
    return " ".join(kept.split())


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


def last_answer_papers(
    history: Sequence[Any] | None, resolve: Resolver | None, question: str = ""
) -> list[Paper]:
    """Return the papers the last answer in `history` cited, in its order (none: empty); a
    reply to a message naming no topic is not that answer (`last_answer`). When `question`
    asks of a pair (`asks_of_a_pair`) and that answer cited one paper, the paper an earlier
    answer cited comes first ("Both use symbolic methods - how do they differ?"). An
    abstention cited none: a message that does not point at the papers it listed ("main
    limitation?", "authors?", "results?") is not asked of them."""
    turns = _answers_only(to_turns(history))
    last = last_answer(turns)
    papers = papers_of(last, resolve)
    if len(papers) == 1 and last is not None and asks_of_a_pair(question):
        return _with_earlier(turns, last, papers, resolve)
    return papers


def asks_of_a_pair(question: str) -> bool:
    """Whether `question` refers to two papers at once: "the two (papers)", "both", "each of
    them", "either paper", "they" beside a comparison ("how do they differ?"), or a "which"
    that is the subject of an auxiliary ("Which is better?")."""
    words = (opens_with_which(question) or "").split()
    return bool(
        PAIR_REF.search(question)
        or PAIR_PRONOUN.search(question)
        or (_PLURAL_REF.search(question) and COMPARES.search(question))
        # "Which is better?", "which has guarantees?": a choice, among more than one
        or (words and words[0].lower() in _AUXILIARY.split())
    )


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


def _unique(papers: Iterable[Paper | None]) -> list[Paper]:
    """Return the papers that are there, each once, in order."""
    return list({p.id: p for p in papers if p is not None}.values())


def _with_earlier(
    turns: Sequence[Turn], last: Turn, papers: list[Paper], resolve: Resolver | None
) -> list[Paper]:
    """`papers` (one, of `last`) and the first paper an earlier answer showed that is not it:
    what a plural asked of a pair ("the two papers", "how do they compare?") refers to."""
    upto = list(turns[: turns.index(last)]) if last in turns else []
    for turn in reversed(upto):
        earlier = [p for p in papers_of(turn, resolve) if p.id != papers[0].id]
        if earlier:
            return [earlier[0], *papers]
    return papers


def _answers_only(turns: Sequence[Turn]) -> list[Turn]:
    """`turns` without the nearest papers abstentions listed: what a message reads that does
    not point at them by a pronoun, a place or a choice."""
    return [replace(t, nearest=()) if t.nearest else t for t in turns]


def papers_of(turn: Turn | None, resolve: Resolver | None) -> list[Paper]:
    """The papers `turn`'s answer cited, in its order (an abstention's: those it listed)."""
    if turn is None:
        return []
    return _unique(_cited(turn, n, resolve) for n in _cited_numbers(turn))


def _the_set(turns: Sequence[Turn], resolve: Resolver | None) -> list[Paper]:
    """Return the papers that a choice ("which of them") or "the others" ranges over, in the
    order they were cited (see `_set_turn`)."""
    return papers_of(_set_turn(turns), resolve)


def _set_turn(turns: Sequence[Turn]) -> Turn | None:
    """Return the turn whose papers a choice, an ordinal or "the others" range over.

    That is the latest answer to a question of its own, or to "the others" when it cited more
    than one paper: answers that chose among those papers since ("Which one is on graphs?")
    narrow nothing for the next choice. With no such answer citing a paper, the last answer.
    """
    for turn in reversed(turns):
        typed = turn.typed or turn.question
        own = not depends_on_history(typed)
        rest = bool(_OTHERS_REF.search(typed)) and not _PICKS.search(typed)
        cited = len(_cited_numbers(turn)) if turn.answer else 0
        if (own and cited) or (rest and cited > 1):
            return turn
    return next((t for t in reversed(turns) if t.answer), None)


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
    named = {n: p for n in _cited_numbers(last) if (p := _cited(last, n, resolve)) is not None}
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
