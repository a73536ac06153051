"""A compound typed joined, split or hyphenated otherwise than the collection writes it.

"Fastest finetuning of big models?" was told the collection has no paper on it: eight abstracts
say "fine-tuning", which BM25 reads as "fine" and "tuning", and none "finetuning". The other
way, "over-parameterized models" found neither paper on overparameterized models, and
"multi-modal large language models" missed one that says "multimodal". A query word is read as
the collection writes it when:

- typed joined (`split_form`): no paper holds it, it is no English word (symspellpy's list,
  as `rag.index.spelling` reads it), and it is two words that some paper's indexed text
  (`rag.index.lexical.paper_text`) writes side by side, with a hyphen or a space
  ("fine-tuning", "multi view"): read as the form most papers use (of several ways to cut it,
  the one in most papers);
- typed as two (`joined_form`), hyphenated or spaced ("over-parameterized", "multi modal"):
  the collection holds the joined word and no abstract writes the two side by side. Two
  words apart by a space are joined only when neither is a stop word ("any one" stays).

Nothing is fitted: a compound is only read in a form the collection itself uses, and checked
on the labelled seed questions and the SciFact training claims (`bench/answers/spelling.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from rag.index.lexical import paper_text, stop_words

if TYPE_CHECKING:
    from rag.index.paper_index import Index

MIN_PART = 2  # "co-training", "re-ranking"
MIN_JOINED = 6  # shorter joined words are mostly English words or names ("into", "cannot")
_WORD = re.compile(r"\b[A-Za-z]{2,}\b")


def split_form(index: Index, word: str, english: frozenset[str]) -> str | None:
    """Return how the collection writes `word` (lower case, typed joined) as two words, or
    None (see module)."""
    if len(word) < MIN_JOINED or word in english or not word.isalpha():
        return None
    best: tuple[int, str] | None = None
    for cut in range(MIN_PART, len(word) - MIN_PART + 1):
        first, second = word[:cut], word[cut:]
        for form, count in _side_by_side(index, first, second).items():
            if best is None or count > best[0]:
                best = (count, form)
    return best[1] if best else None


def joined_form(index: Index, first: str, gap: str, second: str) -> str | None:
    """Return the collection's joined word for `first` and `second` typed apart by `gap`
    ("-" or " "), or None (see module)."""
    if not (first.isalpha() and first[1:].islower() and second.isalpha() and second.islower()):
        return None  # a name or an acronym ("GPT-style", "Qwen models")
    joined = (first + second).lower()
    if not _written(index, joined):
        return None
    if gap == " " and (first.lower() in stop_words() or second in stop_words()):
        return None
    if _side_by_side(index, first.lower(), second):
        return None
    return first[0] + joined[1:]  # keeps a capital the question opened with


def read_compounds(index: Index, text: str) -> str:
    """Return `text` with each pair of words the collection writes joined read so."""
    out, end = [], 0
    for start, stop, joined in joined_pairs(index, text):
        out += [text[end:start], joined]
        end = stop
    return "".join([*out, text[end:]])


def joined_pairs(index: Index, text: str) -> Iterator[tuple[int, int, str]]:
    """Yield where each pair of words of `text` that the collection writes joined stands, and
    the joined word (every pair of neighbours is tried: "graph multi modal" joins "multi
    modal")."""
    words = list(_WORD.finditer(text))
    i = 0
    while i < len(words) - 1:
        first, second = words[i], words[i + 1]
        gap = text[first.end() : second.start()]
        joined = (
            joined_form(index, first.group(), gap, second.group()) if gap in ("-", " ") else None
        )
        if joined:
            yield first.start(), second.end(), joined
            i += 1
        i += 1


def _written(index: Index, word: str) -> bool:
    """Whether some paper writes `word` itself (its endings aside): its stem alone would let
    "model size" be read as "modelsize", which the stemmer cuts to "model"."""
    bm25 = index.bm25()
    written = re.compile(rf"\b{re.escape(word)}", re.IGNORECASE)
    return any(
        (paper := index.papers.get(bm25.ids[int(row)])) is not None
        and written.search(paper_text(paper))
        for row in bm25.documents_with(bm25.stem(word))
    )


def _side_by_side(index: Index, first: str, second: str) -> dict[str, int]:
    """Return each way the papers write `first` and `second` side by side ("fine-tuning",
    "fine tuning") with how many papers write it so (none: an empty dict)."""
    bm25 = index.bm25()
    rows = [bm25.documents_with(bm25.stem(w)) for w in (first, second) if w not in stop_words()]
    if not rows or any(not len(r) for r in rows):
        return {}
    papers = index.papers
    together = re.compile(rf"\b{first}([- ]){second}\b", re.IGNORECASE)
    counts: dict[str, int] = {}
    for row in rows[0] if len(rows) == 1 else np.intersect1d(rows[0], rows[1]):
        paper = papers.get(bm25.ids[int(row)])
        gaps = {m.group(1) for m in together.finditer(paper_text(paper))} if paper else set()
        for gap in gaps:
            form = f"{first}{gap}{second}"
            counts[form] = counts.get(form, 0) + 1
    return counts
