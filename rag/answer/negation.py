"""Which words a paper says it does without: "without external teachers ... or reinforcement
learning", "rather than fine-tuning the model parameters", "a rehearsal-free manner".

A paper that holds a question's word only there does not hold it as the question asks: ConPress
names reinforcement learning once, as what it does without, and "which papers use reinforcement
learning to train LLMs?" listed it, quoting a sentence on prompting. `negated_only_stems`
returns the stems a paper's title and abstract hold only inside such spans;
`rag.answer.abstention.term_coverage` does not count a question's word for a paper that holds it
only so.

A span opens at "without", "rather than", "instead of", "free of", "no", "not" (not "not only",
which adds), "never", "neither" or "nor", and runs over the next `SCOPE_WORDS` words, to the end
of the clause: a comma ends it unless a list goes on ("X, Y, or Z"). The word before "-free"
("training-free", "backpropagation-free") is in one. Verbs such as "avoid" or "eliminate" open
none: a paper that avoids the curse of dimensionality is about it.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable

from rag.records import Paper

SCOPE_WORDS = 12
LIST_ITEM_WORDS = 4
_CUE = re.compile(
    r"\b(?:without|rather\s+than|instead\s+of|free\s+of|never|neither|nor|no|not(?!\s+only\b))\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"\w+|[.;:!?]|,")
_CLAUSE_END = frozenset(".;:!?")
_LIST_GOES_ON = frozenset({"or", "and", "nor"})
_FREE = re.compile(r"(\w+)-free\b", re.IGNORECASE)
# Of the cues, those that say what a paper does without ("without", "rather than", "instead of",
# "free of"): "neither implicit bias alone minimizes the generalization error for diagonal linear
# networks" denies a claim about the networks the paper is about, not the networks.
_WITHOUT_CUE = re.compile(r"\b(?:without|rather\s+than|instead\s+of|free\s+of)\b", re.IGNORECASE)


def negated_spans(text: str, cues: re.Pattern[str] = _CUE) -> list[tuple[int, int]]:
    """Return the character spans of `text` that a negation governs (see the module); with
    `cues`, only those opened by its matches (and "-free")."""
    spans = [(m.start(1), m.end(1)) for m in _FREE.finditer(text)]
    for cue in cues.finditer(text):
        tokens = list(_TOKEN.finditer(text, cue.end()))
        end = cue.end()
        words = 0
        for i, token in enumerate(tokens):
            value = token.group()
            if value in _CLAUSE_END:
                break
            if value == ",":
                if not _list_goes_on(tokens[i + 1 :]):
                    break
                continue
            words += 1
            end = token.end()
            if words >= SCOPE_WORDS:
                break
        spans.append((cue.end(), end))
    return spans


def _list_goes_on(tokens: list[re.Match[str]]) -> bool:
    """Whether the words after a comma go on a list ("X, Y, or Z"): a conjunction next, or a
    short item (`LIST_ITEM_WORDS` words at most) before the next comma."""
    values = [t.group().lower() for t in tokens]
    if values and values[0] in _LIST_GOES_ON:
        return True
    for item, value in enumerate(values):
        if value == "," or value in _CLAUSE_END:
            return value == "," and item > 0
        if item >= LIST_ITEM_WORDS:
            return False
    return False


# Per stemmer (an index's BM25), each paper's stems held only in negated spans.
_negated: weakref.WeakKeyDictionary[object, dict[tuple[str, bool], frozenset[str]]] = (
    weakref.WeakKeyDictionary()
)


def negated_only_stems(
    paper: Paper, stem: Callable[[str], str], owner: object, done_without: bool = False
) -> frozenset[str]:
    """Return the stems `paper`'s title and abstract hold only inside negated spans, by `stem`
    (cached per `owner`, the object whose stemmer it is, and paper id); with `done_without`,
    only inside those that say what it does without (`_WITHOUT_CUE`)."""
    cache = _negated.setdefault(owner, {})
    if (paper.id, done_without) not in cache:
        inside, outside = _stems_in_spans(paper, stem, _WITHOUT_CUE if done_without else _CUE)
        cache[(paper.id, done_without)] = frozenset(inside - outside)
    return cache[(paper.id, done_without)]


def _stems_in_spans(
    paper: Paper, stem: Callable[[str], str], cues: re.Pattern[str]
) -> tuple[set[str], set[str]]:
    """The stems of `paper`'s title and abstract inside the spans `cues` open, and outside."""
    inside: set[str] = set()
    outside: set[str] = set()
    for text in (paper.title or "", paper.abstract):
        spans = negated_spans(text, cues)
        for word in re.finditer(r"\w\w+", text):
            held = any(a <= word.start() < b for a, b in spans)
            (inside if held else outside).add(stem(word.group()))
    return inside, outside


_CONTRACTED = re.compile(
    r"\b(do|does|did|is|are|was|were|has|have|had|ca|wo|would|could|should|need|must)"
    r"n['\u2019]t\b",
    re.IGNORECASE,
)
_CONTRACTED_FORMS = {"ca": "can", "wo": "will"}
# What asks the opposite, before the words it governs: "do not", "don't use", "without".
_ASKING_NOT = re.compile(
    r"^\s*(?:(?:have|has)\s+no|lacks?|lacking)\s+|"
    r"^\s*(?:(?:do|does|did|is|are|was|were|has|have|had|can|will|would|could|should|need|"
    r"must)\s+)?"
    r"(?:not(?!\s+only\b)|never|no\s+longer)\s+|^\s*cannot\s+|"
    # "need no training", "needs no training", "works without labels": a verb in any person
    # ("which of them needs ...?" was read as a choice on "training"), not a copula ("is no
    # better than ...")
    r"^\s*(?:(?!(?:is|are|was|were|be|been|being)\b)[a-z]+\s+|rel(?:y|ies)\s+on\s+)?"
    # not a comparison: "performs no better than GRPO", "takes no longer than an hour"
    r"(?:no\s+(?!(?:better|worse|more|less|fewer|longer|shorter|faster|slower|larger|smaller|"
    r"higher|lower|greater|different)\b)|without\s+)",
    re.IGNORECASE,
)


def asked_the_opposite(words: str) -> str | None:
    """The words of a choice that asks for the papers that do not do something ("which of them
    do not use RL?", "which ones don't need training?", "which are not about graphs?", "any
    without fine-tuning?"), without the negation ("use RL"); None for any other choice. Only
    the choice's opening is read: "which uses RL, not supervision?" picks those using RL."""
    text = _CONTRACTED.sub(
        lambda m: f"{_CONTRACTED_FORMS.get(m.group(1).lower(), m.group(1))} not", words
    )
    found = _ASKING_NOT.match(text)
    if found is None:
        return None
    rest = text[found.end() :].strip(" ?.!")
    return rest or None


def done_without_stems(paper: Paper, stem: Callable[[str], str]) -> frozenset[str]:
    """Return the stems of `paper`'s title and abstract that stand where it says what it does
    without ("without requiring target sensitive labels": "requir", "target", "sensit",
    "label"), said elsewhere too or not."""
    return frozenset(_stems_in_spans(paper, stem, _WITHOUT_CUE)[0])
