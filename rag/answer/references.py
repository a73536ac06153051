"""How a follow-up points back at the previous answer: ordinals, places, pronouns, choices.

Text patterns only, read from the message itself; which papers they then name is
`rag/answer/history.py`'s and `rag/answer/rewrite.py`'s."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from rag.answer.pair_words import COMPARES, PAIR, PAIR_PRONOUN, PAIR_REF
from rag.text import CONTENT_WORD, content_stems, parts_of_speech

ORDINALS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
    "fifth": 5, "5th": 5, "former": 1,
    # "what is the closest one then?" after an abstention: its list is nearest first
    "closest": 1, "nearest": 1,
}  # fmt: skip
ONE_WORDS = "one paper method approach work study model framework source reference article"
_ONE = rf"(?:{'|'.join(ONE_WORDS.split())})"
_NOUN = rf"(?:{_ONE}|papers)"
_ORD = rf"(?:{'|'.join(ORDINALS)}|last|latter)"
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
    n: w for w, n in ORDINALS.items() if w.isalpha() and w not in ("former", "closest", "nearest")
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


def places_named(match: re.Match[str], listed: int) -> list[int]:
    """The places (1-based) a `_PLACES` match points at in a list of `listed` papers."""
    if match.group("end"):
        count = _COUNTS.get(match.group("count").lower()) or int(match.group("count"))
        if match.group("end").lower() == "last":
            return list(range(max(1, listed - count + 1), listed + 1))
        return list(range(1, count + 1))
    if match.group("one"):
        words = (match.group("one").lower(), match.group("two").lower())
        return [listed if w in ("last", "latter") else ORDINALS[w] for w in words]
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


ORDINAL = _Ordinals()
PLACES_REF = _PlacesRef()
NUMBER_REF = re.compile(
    rf"(?:\b(?:the\s+)?{_NOUN}\s*(?:number\s*|no\.?\s*)?\[?(?P<a>\d)\]?(?!\d)|\[(?P<b>\d)\])",
    re.IGNORECASE,
)
# "this paper", "that method", "it"; "the paper" too, but not "the work on X" or "the papers":
# a noun the question goes on to describe, or a plural after "the"/"these", is the collection's.
SINGULAR_REF = re.compile(
    rf"\b(?:(?:this|that)\s+{_ONE}|the\s+{_ONE}(?!\s+(?:on|about|in|regarding|for|of|that|"
    rf"which|from|with)\b)|it|its|itself)\b(?!\s*\[)",
    re.IGNORECASE,
)
# Of `SINGULAR_REF`'s matches, those that name no noun.
BARE_IT = frozenset({"it", "itself", "its"})
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
ASKS_FOR_ONE = re.compile(
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
# "the others", "the rest", "the other one": the papers of the set (see `history.the_set`) that the
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
LEAD = re.compile(rf"^{_LEADING}", re.IGNORECASE)
WHICH_SUBJECT = re.compile(
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
OTHERS_REF = re.compile(_OTHERS, re.IGNORECASE)
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
PLURAL_REF = re.compile(
    # a noun after "their" or "those" is what they point at; after "they" a verb ("they work")
    rf"\b(?:they|them|theirs)\b|\b(?:their|those)(?:\s+{_NOUN})?\b|\b(?:both|all)\s+of\s+them\b"
    rf"|{PAIR}|{_WHICH_ONE}|{_OTHERS}",
    re.IGNORECASE,
)
# A choice among the set's papers, however long the question: "Which one ...?", and a partitive
# over "them", "those" or "these (papers)": "Which of those ...?", "Are any of them ...?", "Does
# either of them ...?". "these papers" alone, "the papers" and "all of them" are not a choice.
PICKS = re.compile(
    rf"{_WHICH_ONE}"
    r"|\b(?:which|any|either|neither|none|one|some|how\s+many)\s+of\s+"
    # A noun follows "those" or "these", never "them": in "which of them studies X" it is a verb.
    r"(?P<ref>them|(?:(?:those|these|the)\s+(?:two|three|four|five)|those|these|the\s+above)"
    r"(?:\s+(?:papers|ones|methods|approaches|studies|articles|models))?|both)\b",
    re.IGNORECASE,
)
# "Is it true that ...", "it is known that ...": an "it" that refers to nothing.
EXPLETIVE_IT = re.compile(
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
_SHORT = 5  # content words: a question with a pronoun and this many or fewer leans on the last


def ordinal_place(match: re.Match[str], listed: int) -> tuple[str, int]:
    """The ordinal `match` ("the second one", "the latter") names and the place it points at in
    a list of `listed` papers (1 first; "last" and "latter" its end)."""
    word = (match.groupdict().get("a") or match.group("b")).lower()
    return word, listed if word in ("last", "latter") else ORDINALS[word]


# "it" ranked against something: "does it beat X?", "it outperforms X?", "is it better than X?";
# not "why does it happen more often than expected?" nor "is it harder than short-horizon
# reasoning?", which rank the topic.
RANKED_AGAINST = re.compile(
    r"\bit\s+(?:beats?|outperforms?|surpass(?:es)?)\b"
    r"|\b(?:does|did|can|could|would|will)\s+it\s+(?:beat|outperform|surpass)\b"
    r"|\b(?:is|was)\s+it\s+(?:better|worse)\s+than\b",
    re.IGNORECASE,
)


def it_beside(text: str, others: re.Match[str]) -> re.Match[str] | None:
    """The bare "it" before another reference in `text` ("how does it compare to the other
    one?", "is it faster than the first?")."""
    for match in SINGULAR_REF.finditer(text, 0, others.start()):
        if match.group().lower() in BARE_IT:
            return match
    return None


def _own_words(question: str) -> list[str]:
    """Return the content words of `question` that are not requests for more, its acronyms of
    two letters too ("top 3 papers on RL" asks about RL: it was told it pointed at an earlier
    answer, a new user)."""
    short = [a.lower() for a in _SHORT_ACRONYM.findall(question) if a not in _NOT_TOPICS]
    return [w for w in content_stems(question) if w not in _no_subject_stems()] + short


# Two capitals ("RL", "KV", "AI"), which `content_stems` leaves out with every two-letter word;
# not a two-letter word typed in capitals ("NO, the second one") nor chat shorthand ("TL;DR",
# "PS: ..."), which name no topic.
_SHORT_ACRONYM = re.compile(r"\b[A-Z]{2}s?\b")
_NOT_TOPICS = frozenset(
    {"OK", "TL", "DR", "PS", "NB", "AM", "PM", "AN", "AS", "AT", "BE", "BY", "DO", "GO", "HE"}
    | {"IF", "IN", "IS", "IT", "ME", "MY", "NO", "OF", "OH", "ON", "OR", "SO", "TO", "UP", "US"}
    | {"WE"}
)


@functools.cache
def _no_subject_stems() -> frozenset[str]:
    return frozenset(content_stems(_NO_SUBJECT))


def refers_back(question: str) -> bool:
    """Return whether `question` points at the previous answer's papers: an ordinal ("the
    second one"), a number, "the others", a choice ("which of them"), or in a short question a
    pronoun or "this paper"."""
    text = EXPLETIVE_IT.sub(" ", question)
    return _names_its_place(text) or _points_by_pronoun(text)


def points_back_only(question: str) -> bool:
    """Return whether `question` only points at earlier papers and asks nothing of its own
    ("the second one", "and the others?", "that one")."""
    return refers_back(question) and not _own_words(without_reference(question))


def opens_on_a_pointer(question: str) -> bool:
    """Return whether `question` opens on a place in a list alone (an ordinal, a number, "the
    former", "the latter") before a dash, colon, semicolon or comma, and asks the rest of it:
    "the second one - what is its main limitation?", "paper 2: does it use RL?" (the rest is
    about the paper pointed at, which needs an earlier answer). A choice that opens it is no
    pointer: "Which one - DPO or PPO?" names its options."""
    lead = _LEAD.match(question)
    text = lead.group("lead") if lead else ""
    place = ORDINAL.search(text) or NUMBER_REF.search(text)
    return bool(place) and points_back_only(text)


# The part of a message before its first dash, colon, semicolon or comma, when the rest goes on.
_LEAD = re.compile(
    r"^\s*(?P<lead>[^?,:;\u2013\u2014-]{1,60}?)"
    r"(?:\s*(?:--|[-\u2013\u2014])\s+|[:;]\s+|,\s+)(?=\w)"
)


def first_reference(question: str) -> int | None:
    """Return where `question`'s first pointer at the previous answer's papers starts (a
    pronoun, "this paper", an ordinal, "the others", a choice; `refers_back` reads the same),
    or None when it has none."""
    text = EXPLETIVE_IT.sub(lambda m: " " * len(m.group()), question)
    if not refers_back(text):
        return None
    references = (*_PLACE_REFERENCES, *_PRONOUN_REFERENCES)
    return min((m.start() for r in references if (m := r.search(text))), default=None)


# What points at the last answer's papers by their place in it (`_names_its_place`) and by a
# pronoun or demonstrative (`_points_by_pronoun`).
_PLACE_REFERENCES = (PLACES_REF, ORDINAL, NUMBER_REF, OTHERS_REF, PICKS)
_PRONOUN_REFERENCES = (PLURAL_REF, PAIR_PRONOUN, SINGULAR_REF, _DEMONSTRATIVE)


def refers_by_pronoun(question: str) -> bool:
    """Return whether `question` points at the previous answer's papers by a pronoun alone
    ("love it", "what do they find?"), not by an ordinal, "the others" or a choice."""
    text = EXPLETIVE_IT.sub(" ", question)
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
# papers on X are asked for, whatever the last answer was about; so they are after a lead of any
# words that ends in a colon, dash, comma or full stop ("ok, different topic: anything on RAG
# prefilling?" was asked of the DPO paper just shown).
_ANY_ON = re.compile(
    r"(?:^|[:;,.!?\u2013\u2014]|\s-+\s)\s*(?:(?:ok(?:ay)?|so|and|also|well|hmm|thanks|great|cool|now)\W+)*"
    r"(?P<core>(?:(?:is|are)\s+there\s+)?any(?:thing|\s+(?:papers?|work|works|studies|research|articles))"
    r"\s+(?:on|about|regarding)\b)",
    re.IGNORECASE,
)


def asks_for_any(question: str) -> bool:
    """Whether `question` asks the collection for anything on a topic ("anything on safety?")."""
    return bool(_ANY_ON.search(question))


def lead_end(question: str) -> int:
    """Where what `question` asks starts after a lead of words of its own before "anything on
    X?" ("ok back to papers - anything on compressing LLM weights?", "For graph neural
    networks, anything on OOD detection?"); 0 when there is no such lead. Of the lead, the words
    no paper holds are not what is asked about ("back" made the answer only the nearest, and
    the next turn's "it" the whole message), while those the papers hold still restrict it
    (`rag.answer.abstention`)."""
    match = _ANY_ON.search(question)
    if match is None or not _own_words(question[: match.start("core")]):
        return 0
    return match.start("core")


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


# A message that is nothing but what it sets the last answer beside: "vs TreePO?", "versus
# RLHF", "compared to ICGNN?", "as opposed to PPO?" (its first term is the last answer's
# paper); not a question that goes on ("Compared to PPO, does GRPO converge faster?", "versus
# what baseline does ConPress compare?").
COMPARED_OPENING = re.compile(
    r"^\W*(?:and\s+|but\s+)?(?:vs\.?|versus|compared\s+(?:to|with)|as\s+opposed\s+to|"
    r"relative\s+to)\s+(?P<beside>(?!(?:what|which|how)\b)[^,;:?]+)\?*\s*$",
    re.IGNORECASE,
)


def depends_on_history(question: str) -> bool:
    """Return whether `question` needs the previous answer to be understood (see module doc).

    Used to decide whether to rewrite at all, by the rule and before any LLM rewrite.
    """
    compared = bool(COMPARED_OPENING.match(question))
    return refers_back(question) or not _own_words(question) or compared


_REFERENCES = (
    PLACES_REF, ORDINAL, NUMBER_REF, OTHERS_REF, PLURAL_REF, PAIR_PRONOUN, SINGULAR_REF,
)  # fmt: skip


def without_reference(question: str) -> str:
    """Return `question` without the phrases that point at earlier papers ("the second one",
    "paper 2", "the others", "their", "this paper"): what is left is what it asks of them
    ("what did the second one find?" asks for findings, not for "second")."""
    spans = [m.span() for ref in _REFERENCES for m in ref.finditer(question)]
    kept = "".join(c for i, c in enumerate(question) if not any(a <= i < b for a, b in spans))
    return " ".join(kept.split())


def asks_of_a_pair(question: str) -> bool:
    """Whether `question` refers to two papers at once: "the two (papers)", "both", "each of
    them", "either paper", "they" beside a comparison ("how do they differ?"), or a "which"
    that is the subject of an auxiliary ("Which is better?")."""
    words = (opens_with_which(question) or "").split()
    return bool(
        PAIR_REF.search(question)
        or PAIR_PRONOUN.search(question)
        or (PLURAL_REF.search(question) and COMPARES.search(question))
        # "Which is better?", "which has guarantees?": a choice, among more than one
        or (words and words[0].lower() in _AUXILIARY.split())
    )
