"""Misspelled query words, read as the collection's word they were meant to be.

"graph nueral netwroks" or "federaed lerning privacy" find nothing by BM25, and MiniLM splits
the misspelled words into word pieces that no abstract shares, so such a question was answered
"no paper on this" while the collection has several. A query word is corrected when:

- it is a plain lowercase word of `MIN_LENGTH` letters or more (acronyms, names, method and
  gene names such as GRPO, ConPress, Qwen or brca1 are never touched);
- neither the collection (its BM25 vocabulary) nor an English word list (symspellpy's
  frequency dictionary) holds it;
- the collection holds a word within `max_distance` edits of it (SymSpell, Damerau-Levenshtein),
  and no English word is nearer: "recipies" stays as it is (the English "recipes" is one edit
  away, the collection has no word within one), so an off-topic question is not turned into an
  on-topic one.

The collection's speller (the words of titles and abstracts) is built once per collection
fingerprint, and only when a query holds a word that neither list knows. symspellpy does the
look-ups; only the rule above is ours.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from symspellpy import SymSpell

    from rag.index.paper_index import Index

MIN_LENGTH = 4
_WORD = re.compile(r"[A-Za-z0-9]+")  # "brca1", "gpt4": one token, never corrected


def max_distance(word: str) -> int:
    """Edits allowed for a word: one up to six letters, two beyond (as spell checkers do)."""
    return 1 if len(word) <= 6 else 2


@functools.cache
def _english() -> frozenset[str]:
    """The English words of symspellpy's frequency dictionary (82,765 words)."""
    import symspellpy

    path = Path(symspellpy.__file__).with_name("frequency_dictionary_en_82_765.txt")
    with path.open(encoding="utf-8") as lines:
        return frozenset(line.split(" ", 1)[0] for line in lines)


def _one_edit(word: str) -> set[str]:
    """Every string one deletion, transposition, replacement or insertion away from `word`."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return (
        {a + b[1:] for a, b in splits if b}
        | {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
        | {a + c + b[1:] for a, b in splits if b for c in letters}
        | {a + c + b for a, b in splits for c in letters}
    )


_collections: dict[str, SymSpell] = {}


def _collection(index: Index) -> SymSpell:
    """A speller of the collection's title and abstract words, kept per collection fingerprint."""
    from symspellpy import SymSpell

    key = index.bm25().fingerprint
    if key not in _collections:
        counts: Counter[str] = Counter()
        for paper in index.papers.values():
            counts.update(w.lower() for w in _WORD.findall(f"{paper.title} {paper.abstract}"))
        speller = SymSpell(max_dictionary_edit_distance=2)
        for word, count in counts.items():
            if len(word) >= MIN_LENGTH:
                speller.create_dictionary_entry(word, count)
        _collections.clear()
        _collections[key] = speller
    return _collections[key]


def _nearest(speller: SymSpell, word: str) -> tuple[str, int] | None:
    from symspellpy import Verbosity

    found = speller.lookup(word, Verbosity.TOP, max_edit_distance=max_distance(word))
    return (found[0].term, found[0].distance) if found else None


def correction(index: Index, word: str) -> str | None:
    """Return the collection's word that `word` misspells, or None to leave it as typed."""
    if len(word) < MIN_LENGTH or not (word.isalpha() and word.islower()):
        return None
    bm25 = index.bm25()
    if len(bm25.documents_with(bm25.stem(word))) or word in _english():
        return None
    ours = _nearest(_collection(index), word)
    if ours is None:
        return None
    if ours[1] > 1 and not _one_edit(word).isdisjoint(_english()):
        return None  # an English word is nearer than the collection's
    return ours[0]


def corrected(index: Index, text: str) -> str:
    """Return `text` with each misspelled word replaced by the collection's word (see module)."""
    if not index.papers:
        return text

    def fix(match: re.Match[str]) -> str:
        return correction(index, match.group()) or match.group()

    return _WORD.sub(fix, text)
