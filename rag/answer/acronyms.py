"""Acronyms the collection defines: "large language models (LLMs)" makes LLM mean those words.

A researcher types "LLMs", "GNNs" or "PDEs"; an abstract may spell the words out and never use
the acronym again, or use it in the singular. The abstention's term coverage
(`rag/answer/abstention.py`) counts such a paper as holding the acronym.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Up to eight words, then the acronym in parentheses: "graph neural networks (GNNs)".
_DEFINITION = re.compile(
    r"((?:[A-Za-z][\w'-]*\s+){1,8})\(\s*([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)\s*\)"
)
_SMALL = frozenset(["of", "for", "and", "the", "a", "an", "in", "on", "to", "with", "via", "by"])


def singular(acronym: str) -> str:
    """Return "LLM" for "LLMs" (an acronym's plural is a lower-case s after capitals)."""
    if len(acronym) > 2 and acronym.endswith("s") and acronym[-2].isupper():
        return acronym[:-1]
    return acronym


def _spelled_out(words: list[str], acronym: str) -> list[str] | None:
    """Return the last words whose initials spell `acronym`'s capitals (small words skipped)."""
    letters = [c.lower() for c in acronym if c.isupper()]
    chosen: list[str] = []
    i = len(letters) - 1
    for word in reversed(words):
        if i < 0:
            break
        parts = [p for p in word.split("-") if p]
        initials = [p[0].lower() for p in parts]
        # "physics-informed" may stand for one letter (P) or two (PI).
        if len(initials) > 1 and initials == letters[i - len(initials) + 1 : i + 1]:
            chosen.insert(0, word)
            i -= len(initials)
        elif initials[0] == letters[i]:
            chosen.insert(0, word)
            i -= 1
        elif word.lower() in _SMALL and chosen:
            chosen.insert(0, word)
        else:
            return None
    return chosen if i < 0 else None


def definitions(texts: Iterable[str]) -> dict[str, set[tuple[str, ...]]]:
    """Return each defined acronym (singular, lower case) with the word lists it stands for."""
    found: dict[str, set[tuple[str, ...]]] = {}
    for text in texts:
        for match in _DEFINITION.finditer(text):
            acronym = singular(match.group(2))
            words = _spelled_out(match.group(1).split(), acronym)
            if words:
                key = acronym.lower()
                found.setdefault(key, set()).add(tuple(w.lower() for w in words))
    return found
