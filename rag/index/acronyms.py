"""Acronyms and what they stand for, as the collection defines them, for the lexical index.

An abstract that writes "large language models" and never "LLMs" held no term of the query
"LLMs", so BM25 could not find it, nor tell the per-paper judgement that it is on the question
(IndexGuard, on federated fine-tuning of large language models, was said to be "not about LLMs").
The collection defines its own acronyms ("large language models (LLMs)", read by
`rag.text.definitions`, after Schwartz and Hearst's rule that the words' initials spell the
capitals); a paper that spells out a defined acronym's words in order (any hyphenation, either
number) and never names the acronym gets the acronym added to what BM25 reads of it. Only the
acronym is added, and only to papers: "language" or "model" added to a paper that writes "LLM"
would weigh in every query holding those common words, and a query's words read as an acronym
find the papers using it in another sense ("PD"; on SciFact's 809 training claims the query side
lowered BM25's nDCG@10 from 0.696 to 0.688, the paper side alone keeps it, 0.696, and lifts the
hybrid search's from 0.7463 to 0.7469).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rag.text import definitions

_TOKEN = re.compile(r"[a-z0-9]+")
_PLAIN = re.compile(r"\b[a-z]+\b")  # a word as typed in lower case


def _norm(word: str) -> str:
    """A word as compared: lower case, in the singular ("networks", "studies": "network",
    "study")."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def defined(texts: Sequence[str]) -> dict[str, list[str]]:
    """Return each acronym the texts define (lower case, singular) with the phrases it stands
    for, as typed in its definitions ("llm": ["large language model", "large language models"]).

    Left out: an acronym whose digits its words do not hold ("STAT3" for "signal transducer and
    activator of transcription" would name papers on STAT1 or STAT5), and one the texts also
    use as a plain lower-case word ("MAP", "AGE", "GAP"), which a query word would then match.
    """
    words = {w for t in texts for w in _PLAIN.findall(t)}
    out: dict[str, list[str]] = {}
    for acronym, spelled in sorted(definitions(texts).items()):
        phrases = sorted(" ".join(w) for w in spelled)
        digits = re.sub(r"\D", "", acronym)
        if acronym in words or (digits and not any(digits in p for p in phrases)):
            continue
        out[acronym] = phrases
    return out


class Expander:
    """Adds to a paper's text the defined acronyms whose words it spells out but never names."""

    def __init__(self, acronyms: Mapping[str, Sequence[str]]) -> None:
        # First word of each phrase -> (the phrase's words, its acronym).
        self._starts: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for acronym, phrases in acronyms.items():
            for phrase in phrases:
                words = tuple(map(_norm, _TOKEN.findall(phrase.lower())))
                if len(words) > 1:  # "beginning-of-sequence" splits; a lone word is no phrase
                    self._starts.setdefault(words[0], []).append((words, acronym))

    def missing(self, text: str) -> list[str]:
        """Return the acronyms `text` spells out and does not name, in order of first use."""
        if not self._starts:
            return []
        raw = _TOKEN.findall(text.lower())
        words = list(map(_norm, raw))
        # As typed, or without a plural's "s" ("GWAS", "DCs" for "dc"): the text names it.
        named = {*raw, *words, *(w[:-1] for w in raw if w.endswith("s"))}
        found: list[str] = []
        for i, word in enumerate(words):
            for phrase, acronym in self._starts.get(word, ()):
                if (
                    acronym not in named
                    and acronym not in found
                    and tuple(words[i : i + len(phrase)]) == phrase
                ):
                    found.append(acronym)
        return found

    def expand(self, text: str) -> str:
        """Return `text` with the acronyms it spells out but does not name appended."""
        extra = self.missing(text)
        return f"{text} {' '.join(a.upper() for a in extra)}" if extra else text
