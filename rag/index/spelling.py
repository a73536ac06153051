"""Misspelled query words, read as the collection's word they were meant to be.

"graph nueral netwroks" or "federaed lerning privacy" find nothing by BM25, and MiniLM splits
the misspelled words into word pieces that no abstract shares, so such a question was answered
"no paper on this" while the collection has several. A query word is corrected when:

- it is a plain lowercase word of `MIN_LENGTH` letters or more (acronyms, names, method and
  gene names such as GRPO, ConPress, Qwen or brca1 are never touched);
- neither the collection (its BM25 vocabulary) nor an English word list (the frequency
  dictionary symspellpy ships, 82,765 words) holds it;
- one slip of the keyboard away, a letter missing, doubled or two letters swapped, it is a word
  of `MIN_READ_LENGTH` letters or more the collection holds (if several are, an English word
  first, then the one in most papers).

The question's first word counts as lowercase when only its first letter is a capital
("Nueral networks on graphs?"); it keeps its capital.

A different letter in its place is not read as a slip: on SciFact's 809 training claims that
edit turned real terms the collection lacks into other words ("tegmental" into "segmental",
"exopolymer" into "biopolymer"), while the typos there and in the seed questions were all
missing, extra or swapped letters. Below five letters, gene names such as "polm" were read as
other words, and so was a five-letter one read as a four-letter word ("nexin" as "nexi"); the
five-letter typos read as five-letter words ("cahce", "afine", "nosiy") were all meant, at the
cost of one typo read as another word ("baise", meant "base", as "basie")
(`bench/answers/spelling.py`, `bench/results/spelling.md`). An
off-topic word stays as typed unless the collection holds a word one slip from it.

A word BM25 already matches through its stem ("reinforcment" stems as "reinforcement" does: the
slip is in the ending the stemmer strips) is read only as an English word one slip away with
that same stem, and only when no paper writes the word as typed and it is no word plus a plural
"s". Left as typed, "reinforcment learning atari" found the papers by BM25 but MiniLM read
word pieces, and the question was answered "no paper on this". Spelling out every such word
rewrote correct terms the English list lacks on SciFact ("cytokine", "kinases"), and the other
conditions keep what its claims hold: a term the papers write ("statin", which is one slip from
"stating"), a plural ("mosquitos", "coinfections", "metalloproteases"), a word read as another
stem ("constitue" would be "constitute": left as typed), a word of no English list
("diresidue"). On SciFact it reads "engagment" only; on the seed typo questions "reinforcment",
"clusterring" and "revenu" (`bench/results/spelling.md`).

Before those slips (and English words too, which they never touch), a word in British or
American spelling that the collection lacks, while it holds the other spelling, is read as the
collection spells it: "optimisation" as "optimization", "behaviour" as "behavior", "labelled",
"tumour", "oestrogen", and the other way for a collection written in British English
(`spelling_variants`: the endings -ise/-ize, -yse/-yze, -our/-or, -tre/-ter, -ogue/-og,
-ence/-ense, a doubled l after a single vowel before -ed/-ing, and "ae"/"oe" for "e" in words
of six letters or more: "being" is no "boeing", "filled" no "filed"). Before, the British form
found fewer papers or none: on the labelled seed questions asked in both spellings, 42 of 48
got the same papers, 46 after (`bench/answers/british_spelling.py`). Nothing is fitted: a
spelling is only read as another that the collection holds.

A compound typed joined, hyphenated or apart otherwise than the collection writes it
("finetuning", "over-parameterized") is read as the collection writes it, before these slips
(`rag.index.compounds`).

A clipped word is read as the word it clips: "math reasoning" as "mathematics reasoning",
"config" as "configuration". Without that, "math" counted as a topic word no paper uses and the
question was answered "no paper on this" while three papers are on mathematical reasoning. A
lowercase word of `CLIP_MIN_LENGTH` letters or more is read so when no paper holds it, it is no
English word ("hand" is no clipping of "handle"; so "maths", "stats" and "info" stay as typed),
and it is not joined by a hyphen ("intra-tumoural"). It is read as the English word (same word
list) that starts with it or with its stem, whose stem the collection holds, or as a word of the
papers' own that does (a term the list lacks: "backprop" as "backpropagation"), whose MiniLM
vector is nearest its own, when that cosine reaches `CLIP_MIN_COSINE`: the nearest word is how a
prefix the collection holds in several families gets the one meant. That threshold was chosen
on the fitting part of labelled pairs ("repo"/"report" no, "repo"/"repository" yes;
bench/data/clipped_words.jsonl, bench/answers/spelling.py, bench/results/spelling.md).
"""

from __future__ import annotations

import bisect
import difflib
import functools
import importlib.util
import re
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from rag.index.compounds import read_compounds, split_form
from rag.text import CHAT_WORDS, FRAME_WORDS, STOPWORDS, spelling_variants

if TYPE_CHECKING:
    from rag.index.paper_index import Index

CLIP_MIN_LENGTH = 4  # "lab", "doc", "app": too many English words start with three letters
# The least cosine between a clipped word and the word read for it: the best F0.5 on the fitting
# pairs of bench/data/clipped_words.jsonl (precision 0.886, recall 0.425; held out 1.000 and
# 0.333: bench/answers/spelling.py, bench/results/spelling.md).
CLIP_MIN_COSINE = 0.3
CLIP_FAMILIES = 40  # the most frequent stems tried for one clipped word
MIN_LENGTH = 5  # shorter words have too many neighbours: 'polm' (a gene) is one slip from 'polym'
# An English word no paper holds is read as a word of how questions are asked ("discus" as
# "discuss") only when that word is this many times as common in English (symspellpy's counts):
# "discus" (47 times rarer than "discuss"), not "three" or "round" (3 times rarer than "there",
# "around"), whose reading would drop a word that may name the question's topic.
FRAME_WORD_MORE_COMMON = 20
MIN_READ_LENGTH = 5  # 'nexin' (a gene) is one slip from 'nexi'
_WORD = re.compile(r"[A-Za-z0-9]+")  # "brca1", "gpt4": one token, never corrected
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _word_list() -> Path:
    """symspellpy's English frequency dictionary (found without importing the package)."""
    spec = importlib.util.find_spec("symspellpy")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("symspellpy")
    return Path(spec.origin).with_name("frequency_dictionary_en_82_765.txt")


@functools.cache
def _frequencies() -> dict[str, int]:
    """The English words of symspellpy's frequency dictionary, with their counts."""
    with _word_list().open(encoding="utf-8") as lines:
        return {word: int(count) for word, count in (line.split() for line in lines)}


@functools.cache
def _english() -> frozenset[str]:
    """The English words of symspellpy's frequency dictionary, read without their counts: most
    questions need only these (`_slip_in_ending` asks of every word BM25 knows)."""
    return frozenset(_word_list().read_text(encoding="utf-8").split()[0::2])


def english_word(word: str) -> bool:
    """Whether `word` (lowercase) is in the English word list."""
    return word in _english()


@functools.cache
def _english_sorted() -> tuple[str, ...]:
    return tuple(sorted(_frequencies()))


def english_slips(word: str) -> list[str]:
    """The English words of `MIN_READ_LENGTH` letters or more one slip from `word`, most common
    first, when `word` (lowercase, `MIN_LENGTH` letters or more) is no English word itself:
    "hapen" -> "happen", ... (what a word no paper holds may have been meant as)."""
    if len(word) < MIN_LENGTH or not (word.isalpha() and word.islower()) or word in _english():
        return []
    counts = _frequencies()
    found = [c for c in slips(word) if len(c) >= MIN_READ_LENGTH and c in counts]
    return sorted(found, key=lambda c: (-counts[c], c))


def slips(word: str) -> set[str]:
    """Every word one slip from `word`: a letter dropped, a letter added, two letters swapped."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return (
        {a + b[1:] for a, b in splits if b}
        | {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
        | {a + c + b for a, b in splits for c in _LETTERS}
    ) - {word}


def correction(index: Index, word: str, *, clip: bool = True) -> str | None:
    """Return the collection's word that `word` misspells (or clips, with `clip`), or None."""
    if len(word) < CLIP_MIN_LENGTH or not (word.isalpha() and word.islower()):
        return None
    bm25 = index.bm25()
    if len(bm25.documents_with(bm25.stem(word))):
        return _slip_in_ending(index, word)
    return (
        _variant_of(index, word)
        or split_form(index, word, _english())
        or _slip_of(index, word)
        or _asking_slip(word)
        or (clipped(index, word) if clip else None)
    )


def _asking_slip(word: str) -> str | None:
    """Return the word of how questions are asked (`rag.text.FRAME_WORDS`: "discuss", "papers")
    one slip from `word`, or None. An English word is read so only when that word is
    `FRAME_WORD_MORE_COMMON` times as common ("discus" as "discuss", not "sports" as "sorts")."""
    if len(word) < MIN_LENGTH or word in FRAME_WORDS:
        return None
    found = sorted(c for c in slips(word) if c in FRAME_WORDS and len(c) >= MIN_READ_LENGTH)
    if found and word in _english():
        counts = _frequencies()
        least = counts.get(word, 0) * FRAME_WORD_MORE_COMMON
        found = [c for c in found if counts.get(c, 0) >= least]
    return found[0] if found else None


def _variant_of(index: Index, word: str) -> str | None:
    """Return the spelling of `word` the collection uses when it has another (British or
    American: `spelling_variants`), the one in most papers; None when it holds none."""
    if len(word) < MIN_LENGTH:
        return None
    bm25 = index.bm25()
    held = [(len(bm25.documents_with(bm25.stem(v))), v) for v in spelling_variants(word)]
    held = [(n, v) for n, v in held if n]
    return max(held)[1] if held else None


def clipped(index: Index, word: str) -> str | None:
    """Return the English word `word` clips ("math": "mathematics"), or None (see module).

    Candidates start with `word` (or its stem) and are longer by two letters or more; the
    collection must hold their stem. One word per stem (the most frequent), the
    `CLIP_FAMILIES` most frequent stems, the nearest by cosine if it reaches `CLIP_MIN_COSINE`.
    """
    if len(word) < CLIP_MIN_LENGTH or word in _english() or word in STOPWORDS:
        return None  # "hand" is a word, no clipping of "handle"; "what" none of "whatever"
    if word in CHAT_WORDS.split():
        return None
    bm25 = index.bm25()
    prefix = min(word, bm25.stem(word), key=len)
    if len(prefix) < CLIP_MIN_LENGTH - 1:
        return None
    counts = _frequencies()
    families: dict[str, str] = {}
    for candidate in _starting_with(_english_sorted(), prefix):
        stem = bm25.stem(candidate)
        if len(candidate) < len(word) + 2 or not len(bm25.documents_with(stem)):
            continue
        if stem not in families or counts[candidate] > counts[families[stem]]:
            families[stem] = candidate
    tried = sorted(families.values(), key=lambda c: -counts[c])[:CLIP_FAMILIES]
    # A term the English list lacks is read from the papers' own words: "backprop" as
    # "backpropagation", which the list does not hold.
    own: dict[str, str] = {}
    for candidate in _starting_with(collection_words(index), prefix):
        stem = bm25.stem(candidate)
        if len(candidate) >= len(word) + 2 and stem not in families:
            own.setdefault(stem, candidate)
    tried += sorted(own.values())[:CLIP_FAMILIES]
    if not tried:
        return None
    vectors = index.embedder.embed([word, *tried])
    cosines = vectors[1:] @ vectors[0]
    best = int(cosines.argmax())
    return tried[best] if float(cosines[best]) >= CLIP_MIN_COSINE else None


def _starting_with(words: tuple[str, ...], prefix: str) -> list[str]:
    """The words of sorted `words` that start with `prefix`."""
    found = []
    for candidate in words[bisect.bisect_left(words, prefix) :]:
        if not candidate.startswith(prefix):
            break
        found.append(candidate)
    return found


# Each index's words, with the catalog they were read from (read again when it changes).
_collection_words: weakref.WeakKeyDictionary[Index, tuple[object, tuple[str, ...]]] = (
    weakref.WeakKeyDictionary()
)


def collection_words(index: Index) -> tuple[str, ...]:
    """The lowercase words of the papers' titles and abstracts, sorted, once per catalog."""
    papers = index.papers
    cached = _collection_words.get(index)
    if cached is None or cached[0] is not papers:
        words = {
            w.lower()
            for paper in papers.values()
            for w in _WORD.findall(f"{paper.title or ''} {paper.abstract}")
            if w.isalpha()
        }
        cached = (papers, tuple(sorted(words)))
        _collection_words[index] = cached
    return cached[1]


def _slip_of(index: Index, word: str) -> str | None:
    """Return the collection's word one slip from `word` (see module), or None."""
    if len(word) < MIN_LENGTH or word in _english():
        return None
    bm25 = index.bm25()

    def papers_with(candidate: str) -> int:
        return len(bm25.documents_with(bm25.stem(candidate)))

    found = [(papers_with(c), c) for c in slips(word) if len(c) >= MIN_READ_LENGTH]
    found = [(n, c) for n, c in found if n]
    if not found:
        return None
    best = max(found, key=lambda nc: (nc[1] in _english(), nc[0], nc[1]))[1]
    if best in _english() or _written(index, best):
        return best
    # Only its stem is the collection's ("federeted" is one slip from "federented", which
    # stems as "federated" does): the word a paper writes with that stem, nearest as typed,
    # not a new misspelling shown as what was searched (a new user). BM25 also reads authors
    # and areas, which no title or abstract may write ("mondorff": an author's "Mondorf").
    written = written_with_stem(index, bm25.stem(best))
    return min(written, key=lambda w: (_distance(w, word), w)) if written else best


def written_with_stem(index: Index, stem: str) -> list[str]:
    """The words the papers' titles and abstracts write (`collection_words`) that stem as
    `stem` (each starts with the stem's first three letters, as an English stem does)."""
    bm25 = index.bm25()
    return [w for w in _starting_with(collection_words(index), stem[:3]) if bm25.stem(w) == stem]


def _distance(a: str, b: str) -> float:
    """How unlike two words are, 0 alike (difflib's ratio, turned round)."""
    return 1.0 - difflib.SequenceMatcher(None, a, b).ratio()


def _written(index: Index, word: str) -> bool:
    """Whether a paper's title or abstract writes `word` as it is (any case)."""
    words = collection_words(index)
    at = bisect.bisect_left(words, word)
    return at < len(words) and words[at] == word


def _slip_in_ending(index: Index, word: str) -> str | None:
    """Return the English word one slip from `word` that stems as it does ("reinforcment" as
    "reinforcement"), for a word BM25 already matches through its stem; None when a paper
    writes `word`, when it is a word plus a plural "s" ("mosquitos", "statins"), or when no
    such word is one slip away (see module)."""
    if len(word) < MIN_LENGTH or word in _english():
        return None
    bm25 = index.bm25()
    stem = bm25.stem(word)
    found = [
        c
        for c in slips(word)
        if len(c) >= MIN_READ_LENGTH and c in _english() and bm25.stem(c) == stem
    ]
    if not found or _written(index, word):
        return None
    base = word.removesuffix("s")
    if base != word and (base in _english() or _written(index, base)):
        return None
    counts = _frequencies()
    return max(found, key=lambda c: (counts[c], c))


def corrected(index: Index, text: str) -> str:
    """Return `text` with each misspelled word replaced by the collection's word (see module)."""
    if not index.papers:
        return text
    text = read_compounds(index, text)

    def fix(match: re.Match[str]) -> str:
        word = match.group()
        if text[match.end() : match.end() + 1] in ("'", "\u2019"):  # "couldn't", "Ju's"
            return word
        # "intra-tumoural", "multi-modal": a word joined by a hyphen is a prefix, no clipping
        clip = "-" not in (text[match.start() - 1 : match.start()], text[match.end() :][:1])
        if match.start() == 0 and word[:1].isupper() and word[1:].islower():
            read = correction(index, word.lower(), clip=clip)
            return read.capitalize() if read else word
        return correction(index, word, clip=clip) or word

    return _WORD.sub(fix, text)
