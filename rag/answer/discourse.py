"""Make an abstract sentence stand on its own when it is quoted out of its abstract.

A sentence lifted from an abstract often opens with words whose referent stayed behind
("However,", "To address this,", "In this paper, we"). `standalone` removes those openers and
names who is speaking: "we propose X" becomes "Ju et al. (ICGNN) propose X", "our approach"
becomes "their approach". Nothing else changes: what the sentence claims is kept word for word,
so the citation check still passes it (the answer composer checks the result).

`dangling_opener` tells whether a text starts with such a connective, for tests and for the
composer's choice of sentence. `points_back` tells whether its subject refers to the sentence
before it ("However, these approaches assume X"): quoted alone under the paper's name, that
sentence reads as the paper's own claim (the paper argues against X), so it is shown with the
sentence it points back to, or not at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.text import split_sentences

# Connectives that only make sense after the sentence before them, at the start of a sentence.
# The strong ones open a sentence with or without a comma; the weak ones only with one
# ("First, we" goes, "First-order methods" stays).
_STRONG = (
    "more importantly|most importantly|more specifically|more precisely|more generally|"
    "however|additionally|moreover|furthermore|in addition|specifically|finally|at last|lastly|"
    "then|consequently|therefore|thus|hence|as a result|notably|importantly|crucially|"
    "meanwhile|in contrast|by contrast|on the other hand|instead|to this end|in particular|"
    "accordingly|subsequently|nevertheless|nonetheless|conversely|similarly|likewise|besides|"
    "to do so|for this purpose|to that end|towards? this end|in turn|in this way|in doing so|"
    "by doing so|"
    "in so doing|and|but|thereafter|afterwards|afterward"
)
_WEAK = (
    "first|firstly|second|secondly|third|thirdly|next|further|also|still|yet|overall|"
    "together|concretely|in practice|indeed|here|herein|as such|empirically|theoretically|"
    "experimentally|technically|intuitively|formally|altogether|in summary|in short|in sum|"
    # a summing-up connective read as summing up the answer's papers above it ("Taken together,
    # Xu et al. (CalM) propose ..." ended a list on training dynamics; a new user, stop 59)
    "taken together|collectively|in conclusion|to conclude|to summarize|to summarise|to sum up|"
    "all in all|in brief"
)
# Not when it governs what follows: "Similarly to results in mice, ...", "Instead of X, ...".
_OPENER = re.compile(
    rf"^(?:(?:{_STRONG})(?=[\s,])(?!\s+(?:to|of|with|as)\b)|(?:{_WEAK})(?=\s*,)"
    r"|here(?=\s+we\b))\s*,?\s*",
    re.IGNORECASE,
)
# "To address this challenge, ...", "Building on this insight, ...", "Based on these findings,"
# A leading clause that points back with this/these/such/it/them loses its referent.
_ANAPHORIC_CLAUSE = re.compile(
    r"^(?:to|building\s+on|based\s+on|motivated\s+by|inspired\s+by|guided\s+by|"
    r"in\s+light\s+of|given|with|by|from|against|beyond|unlike)\b[^,.;]{0,90}?"
    r"\b(?:this|these|that|those|such|it|them|the\s+above|the\s+(?:issue|problem|challenge|"
    r"gap|limitation|shortcoming|drawback)s?)\b[^,.;]{0,60},\s*",
    re.IGNORECASE,
)
# "(1) We show that ...", "(ii) we derive ...": the label of an item in the abstract's list.
_ITEM_LABEL = re.compile(r"^(?:\(\s*(?:\d{1,2}|[ivx]{1,4}|[a-h])\s*\)|(?:\d{1,2}|[ivx]{1,4})\))\s+")
# "in this paper we", "in this work, we": the frame goes, the "we" stays for the next step.
_FRAME = re.compile(
    r"^(?:in|within)\s+this\s+(?:paper|work|study|article|letter)\s*,?\s*", re.IGNORECASE
)
# The subject that the speaker's name replaces; an adverb may stand before the verb.
_WE = re.compile(r"^we\s+", re.IGNORECASE)
_THIS_PAPER = re.compile(
    r"^(?:this|the\s+present|our)\s+(?:paper|work|study|article|letter)\s+(?:hereby\s+)?",
    re.IGNORECASE,
)
_OUR_NOUN = re.compile(r"^our\s+(?=[A-Za-z])", re.IGNORECASE)
# "To further mitigate domain shift, we build ...": a leading clause, then "we".
_CLAUSE_WE = re.compile(r"^([^,;:]{3,140}),\s+(?=we\s)", re.IGNORECASE)
_VERB = re.compile(
    r"^((?:\w+ly\s+|also\s+|further\s+|then\s+|first\s+|here(?:in|by)?\s+)*)([a-z]+)\b"
)
# "we here propose", "we introduce here an approach": "here" places the sentence in the paper the
# speaker's name now stands for, and goes with "we".
_HERE = re.compile(r"\bhere(?:in|by)?\s+", re.IGNORECASE)
_HERE_AFTER = re.compile(
    r"^\s+here(?:in)?(?=\s+(?:an?|the|that|our|two|three|\w+ing)\b)", re.IGNORECASE
)
_PRONOUNS = [
    (re.compile(r"\bwe\b"), "they"),
    (re.compile(r"\bWe\b"), "They"),
    (re.compile(r"\bour\b"), "their"),
    (re.compile(r"\bOur\b"), "Their"),
    (re.compile(r"\bours\b"), "theirs"),
    (re.compile(r"\bus\b"), "them"),
    (re.compile(r"\bourselves\b"), "themselves"),
]
_IRREGULAR_PLURAL = {"is": "are", "has": "have", "does": "do", "was": "were"}
_IRREGULAR_SINGULAR = {v: k for k, v in _IRREGULAR_PLURAL.items()}
# Verbs that do not agree with their subject: modals and past tenses ("we found" is "Yüksel
# found", not "Yüksel founds"); a past tense ending in -ed is told by its ending.
_UNINFLECTED = frozenset(
    """can could may might must shall should will would found sought made took gave saw built
    held began led won chose drew wrote brought thought kept met got did had ran set put read
    left lost felt knew grew went came became undertook cut hit let split spread""".split()  # noqa: SIM905
)
_NOT_VERBS = {"the", "a", "an", "that", "this", "it", "to", "and", "also"}
# The paper itself, whom `standalone` names: "this paper", "in this work".
_SPEAKER = (
    r"(?:(?:position\s+)?paper|work|study|article|letter|thesis|review|survey|manuscript|research|"
    r"note|report|chapter)\b"
)
# A subject that stands for something said before: "These approaches ...", "This leads to ...",
# "Such methods ...", "They ...".
_POINTS_BACK = re.compile(rf"^(?:this|these|those|such|they|their|its)\b(?!\s+{_SPEAKER})", re.I)
# Or a demonstrative early in the sentence: "We prove this equivalence is conditional", "We
# characterize when this assumption is violated" (a new user's "DPO vs RLHF" got the latter
# alone under the CPO paper's name, "this assumption" named nowhere); not "such as". Later in
# a sentence one mostly names what the sentence itself said ("... improves accuracy ..., and
# these gains persist"; "even though fair ERM fails ..., this approach can be corrected").
_REFERS_BACK = re.compile(rf"\b(?:this|these|those|such)\s+(?!{_SPEAKER}|as\b|that\b)[a-z]", re.I)
REFERS_BACK_WITHIN = 10  # words


@dataclass(frozen=True)
class Standalone:
    """A sentence rewritten to stand alone, and what was done to it."""

    text: str
    stripped: str  # the opener that was removed ("" when none)
    named: bool  # the speaker's name replaced "we" / "this paper"


def dangling_opener(text: str) -> bool:
    """Return whether `text` starts with a connective whose referent is not in the text."""
    return _opener_at(text.strip()) is not None


def points_back(text: str) -> bool:
    """Return whether `text`, its lost openers removed, opens on a subject that refers to an
    earlier sentence ("However, these approaches assume ...") or names something it said with a
    demonstrative ("we prove this equivalence ..."), which it needs to be read right."""
    first = split_sentences(strip_openers(text)[0].strip())  # a line may go on from its referent
    kept = first[0] if first else ""
    early = " ".join(kept.split()[: REFERS_BACK_WITHIN + 1])  # the tenth and the word it names
    return bool(_POINTS_BACK.match(kept) or _REFERS_BACK.search(early))


def _opener_at(text: str) -> re.Match[str] | None:
    """The opener `text` starts with that loses its referent when quoted alone (None: none)."""
    return (
        _OPENER.match(text)
        or _ANAPHORIC_CLAUSE.match(text)
        or _FRAME.match(text)
        or _ITEM_LABEL.match(text)
    )


def strip_openers(sentence: str) -> tuple[str, str]:
    """Remove leading connectives and back-pointing clauses; return (rest, what was removed)."""
    text = sentence.strip()
    removed = ""
    for _ in range(4):  # "To address this, in this paper we ..." takes two steps
        match = _opener_at(text)
        if not match or match.end() >= len(text):
            break
        removed += match.group(0)
        text = text[match.end() :]
    return text, removed.strip()


def agree(verb: str, plural: bool) -> str:
    """Return `verb` (as written after "we" or "this paper") agreeing with the new subject."""
    low = verb.lower()
    if plural:
        if low in _IRREGULAR_PLURAL:
            return _IRREGULAR_PLURAL[low]  # "this paper is" -> "Pei et al. are"
        if low.endswith("ies") and len(low) > 4:
            return verb[:-3] + "y"
        if re.search(r"(?:ss|sh|ch|x|zz|o|cus)es$", low):  # "focuses" -> "focus"
            return verb[:-2]
        if low.endswith("s") and not low.endswith("ss"):
            return verb[:-1]
        return verb
    if low in _IRREGULAR_SINGULAR:
        return _IRREGULAR_SINGULAR[low]  # "we are" -> "Yüksel is"
    if low in _UNINFLECTED or (low.endswith("ed") and not low.endswith(("eed", "embed"))):
        return verb
    if low.endswith("s") and not low.endswith(("ss", "cus")):
        return verb  # already agrees ("this paper shows" read as "we shows")
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    return verb + "s"


def _name_subject(text: str, speaker: str, plural: bool) -> str | None:
    """Put `speaker` in place of a leading "we" / "this paper" (None: no such subject)."""
    if (clause := _CLAUSE_WE.match(text)) and not _WE.match(text):
        named = _name_subject(text[clause.end() :], speaker, plural)
        return None if named is None else f"{clause.group(1)}, {named}"
    if _OUR_NOUN.match(text):
        owner = re.sub(r"\s*\([^()]*\)$", "", speaker)  # "Ju et al.'s", not "Ju et al. (X)'s"
        return f"{owner}'s {text[_OUR_NOUN.match(text).end() :]}"  # type: ignore[union-attr]
    for pattern, from_plural in ((_WE, True), (_THIS_PAPER, False)):
        match = pattern.match(text)
        if not match:
            continue
        rest = text[match.end() :]
        verb = _VERB.match(rest)
        if not verb or verb.group(2).lower() in _NOT_VERBS:
            return None
        word = verb.group(2)
        if from_plural != plural:
            # "we propose" -> "Yüksel proposes"; "this paper studies" -> "Pei et al. study"
            word = agree(word, plural)
        before, after = _HERE.sub("", verb.group(1)), _HERE_AFTER.sub("", rest[verb.end() :])
        return f"{speaker} {before}{word}{after}"
    return None


def third_person(text: str) -> str:
    """The authors' "we" / "our" / "us" as "they" / "their" / "them": how a sentence reads after
    the paper's label ("Guan et al.: ... that their framework achieves ...")."""
    for pattern, repl in _PRONOUNS:
        text = pattern.sub(repl, text)
    return text


def _capitalise(text: str) -> str:
    if not text or not text[0].islower():
        return text
    # "mRNA", "iPhone", "pFedMe": a word with an inner capital or digit keeps its case.
    first = text.split(maxsplit=1)[0]
    if re.search(r"[A-Z0-9]", first[1:]):
        return text
    return text[0].upper() + text[1:]


def standalone(sentence: str, speaker: str = "", plural: bool = True) -> Standalone:
    """Return `sentence` without openers that lost their referent, naming its speaker.

    Args:
        sentence: one sentence of an abstract.
        speaker: who says it ("Ju et al. (ICGNN)"); "" keeps "we" as written.
        plural: whether `speaker` takes a plural verb ("Ju et al. propose").

    Returns:
        The rewritten sentence; its claim is unchanged.
    """
    text, removed = strip_openers(sentence)
    named = False
    if speaker:
        # A name already in the sentence ("called ICGNN") is not repeated in the subject.
        method = re.search(r"\(([^()]+)\)$", speaker)
        who = speaker
        if method and re.search(rf"\b{re.escape(method.group(1))}\b", text):
            who = speaker[: method.start()].rstrip()
        subject = _name_subject(text, who, plural)
        if subject is not None:
            text, named = third_person(subject), True
    return Standalone(_capitalise(text), removed, named)
