"""Misspelled query words, read as the collection's word they were meant to be.

"graph nueral netwroks" or "federaed lerning privacy" find nothing by BM25, and MiniLM splits
the misspelled words into word pieces that no abstract shares, so such a question was answered
"no paper on this" while the collection has several. A query word is corrected when:

- it is a plain lowercase word of `MIN_LENGTH` letters or more (acronyms, names, method and
  gene names such as GRPO, ConPress, Qwen or brca1 are never touched);
- neither the collection (its BM25 vocabulary) nor an English word list (the frequency
  dictionary symspellpy ships, 82,765 words) holds it;
- one slip of the keyboard away, a letter missing, doubled or two letters swapped, it is a word
  the collection holds (if several are, an English word first, then the one in most papers).

The question's first word counts as lowercase when only its first letter is a capital
("Nueral networks on graphs?"); it keeps its capital.

A different letter in its place is not read as a slip: on SciFact's 809 training claims that
edit turned real terms the collection lacks into other words ("tegmental" into "segmental",
"exopolymer" into "biopolymer"), while the typos there and in the seed questions were all
missing, extra or swapped letters; below six letters, gene names such as "polm" and "nexin"
were read as other words (`bench/answers/spelling.py`, `bench/results/spelling.md`). An
off-topic word stays as typed unless the collection holds a word one slip from it. A word BM25
already matches through its stem ("clusterring" stems as "clustering" does) is left as typed:
spelling such words out also rewrote correct terms the English list lacks ("cytokine",
"kinases") on SciFact.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rag.index.paper_index import Index

MIN_LENGTH = 6  # shorter words have too many neighbours: 'polm' (a gene) is one slip from 'polym'
_WORD = re.compile(r"[A-Za-z0-9]+")  # "brca1", "gpt4": one token, never corrected
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@functools.cache
def _english() -> frozenset[str]:
    """The English words of symspellpy's frequency dictionary."""
    import symspellpy

    path = Path(symspellpy.__file__).with_name("frequency_dictionary_en_82_765.txt")
    with path.open(encoding="utf-8") as lines:
        return frozenset(line.split(" ", 1)[0] for line in lines)


def slips(word: str) -> set[str]:
    """Every word one slip from `word`: a letter dropped, a letter added, two letters swapped."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return (
        {a + b[1:] for a, b in splits if b}
        | {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
        | {a + c + b for a, b in splits for c in _LETTERS}
    ) - {word}


def correction(index: Index, word: str) -> str | None:
    """Return the collection's word that `word` misspells, or None to leave it as typed."""
    if len(word) < MIN_LENGTH or not (word.isalpha() and word.islower()):
        return None
    bm25 = index.bm25()

    def papers_with(candidate: str) -> int:
        return len(bm25.documents_with(bm25.stem(candidate)))

    if papers_with(word) or word in _english():
        return None
    found = [(papers_with(c), c) for c in slips(word) if len(c) >= MIN_LENGTH - 1]
    found = [(n, c) for n, c in found if n]
    if not found:
        return None
    return max(found, key=lambda nc: (nc[1] in _english(), nc[0], nc[1]))[1]


def corrected(index: Index, text: str) -> str:
    """Return `text` with each misspelled word replaced by the collection's word (see module)."""
    if not index.papers:
        return text

    def fix(match: re.Match[str]) -> str:
        word = match.group()
        if match.start() == 0 and word[:1].isupper() and word[1:].islower():
            read = correction(index, word.lower())
            return read.capitalize() if read else word
        return correction(index, word) or word

    return _WORD.sub(fix, text)
