"""Words of a follow-up that refer to two papers at once.

After two answers of one paper each ("What is CELL?", then "What is DiP-G?"), "how do the two
differ?", "which is better?" or "Both use X - how do they differ?" ask of both papers; "what did
they find?" asks of the last one's authors. `rag.answer.rewrite` reads these words with the
patterns here: a pair ("the two papers", "both", "each of them", "either paper", "neither of
them", "they both"), a pronoun read with the next word's parts of speech (`PAIR_PRONOUN`: "the
two differ", not "the two datasets"), and a comparison (`COMPARES`), which makes "they" a pair.
Measured on blind chats: `bench/answers/pair_followups.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rag.text import parts_of_speech

# "the two papers", "these two", "both methods", "compare both": a pair, never a count of
# things of theirs ("the two datasets") nor "both X and Y".
_NOUN = r"(?:papers|ones|methods|approaches|studies|articles|works)"
PAIR = (
    rf"\b(?:the|these|those)\s+two\s+{_NOUN}\b"
    rf"|\b(?:the|these|those)\s+two(?=\s*(?:[?.!,;]|$))"
    rf"|\bboth(?:\s+{_NOUN})?(?=\s*(?:[?.!,;]|$))|\bboth\s+{_NOUN}\b"
    # "do both use X?", "are both about graphs?"
    r"|(?<=\bdo\s)both\b(?![^?.!]*\band\b)|(?<=\bare\s)both\b(?![^?.!]*\band\b)"
    r"|(?<=\bdid\s)both\b(?![^?.!]*\band\b)|(?<=\bcan\s)both\b(?![^?.!]*\band\b)"
    # "what does each of them propose?", "does either paper use real data?", "neither of them"
    r"|\b(?:each|either|neither)\s+(?:of\s+(?:them|these|those)|paper|one|method|approach|study)\b"
    # "they both deal with X", "both of these", "the two graph methods"
    r"|\b(?:they|them)\s+both\b|\bboth\s+of\s+(?:these|those)\b"
    rf"|\bthe\s+two\s+(?:[\w-]+\s+){{1,2}}{_NOUN}\b"
)
PAIR_REF = re.compile(PAIR, re.IGNORECASE)
_WORDS = re.compile(
    r"\b(?:the|these|those)\s+two(?=\s+(?P<next>[a-z]+)\b)"
    # "Both use symbolic methods - how do they differ?" (not "both images and text")
    r"|^\W*(?P<both>both)(?=\s+(?P<verb>[a-z]+)\b(?![^?.!-]*\band\b))"
    # "how much of each is theory?", "neither uses RL": standing for the papers ("these"
    # alone is not read so: "give me the whole list, not just these" asks the collection)
    r"|\b(?P<alone>each|neither)(?=\s*(?:[?.!,;]|$)|\s+(?P<after>[a-z]+)\b)",
    re.IGNORECASE,
)
# Words that may follow "the two" as no noun would: "do these two both use GNNs?"
_AFTER_A_PAIR = frozenset("both all each also really actually ever still just even".split())  # noqa: SIM905


class PairPronoun:
    """A pair: "the two" before a word that is no noun ("how do the two differ?", "could the
    two be combined?", "do these two both use GNNs?"), a question opening on "both" before a
    verb ("Both use X - how do they differ?"), or "each" or "neither" standing alone ("key
    contribution of each?"). Before a noun, they count or point at things ("the two datasets",
    "each client")."""

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        for match in _WORDS.finditer(text):
            if match.group("both"):
                if "VERB" in parts_of_speech(match.group("verb")):
                    yield match
                continue
            if match.group("alone"):  # a pronoun, not a determiner ("each client")
                after = (match.group("after") or "").lower()
                tags = parts_of_speech(after) if after else frozenset()
                if not after or after in _AFTER_A_PAIR or (tags and "NOUN" not in tags):
                    yield match
                continue
            word = match.group("next").lower()
            tags = parts_of_speech(word)
            if word in _AFTER_A_PAIR or (tags and "NOUN" not in tags):
                yield match

    def search(self, text: str) -> re.Match[str] | None:
        return next(self.finditer(text), None)


PAIR_PRONOUN = PairPronoun()

# A question that sets papers side by side: "how do they compare?", "what's the difference?"
COMPARES = re.compile(
    r"\b(?:compar\w*|contrast\w*|differ\w*|versus|vs|better|worse|same|similar\w*|alike|"
    r"agree\w*|disagree\w*)\b",
    re.IGNORECASE,
)
