"""How a paper is cut into passages for the dense index, and the text BM25 indexes for it.

Abstracts are 150-350 words, and all-MiniLM-L6-v2 reads at most 256 word pieces (about 180
words), so a long abstract is cut into overlapping windows of whole sentences; each window is
prefixed with the title when there is one, so that every passage knows what the paper is about.
A title-only record (the source gave no abstract) is one passage: its title and keywords.

Measured on SciFact train (nDCG@10 of the best passage's cosine per paper, alone and then fused
with BM25 as `rag.index.retrieve` does): 120-word windows 0.683 and 0.746; 80-word windows 0.696 and
0.744; the whole paper as one text (cut at 256 word pieces) 0.660 and 0.737; single sentences
without the title 0.658 and 0.736. The same 120-word windows pooled from one pass over the whole
text (`rag.index.late_chunking`, `passage_vectors = "late"`) reach 0.675 and 0.745 through the index
(bench/retrieval/retrieval.py --passages late).
"""

from __future__ import annotations

from dataclasses import dataclass

from rag.records import Paper
from rag.text import split_sentences

WINDOW_WORDS = 120
OVERLAP_SENTENCES = 1


@dataclass(frozen=True)
class Passages:
    """A paper's passages, and where each lies in the paper's whole text.

    `document` is what late chunking encodes once: the title prefix ("Title. "), then the
    abstract as given. Each passage has its text (as stored and shown) and the character span
    of its sentences in `document`; `title_end` is where the title prefix ends (0 without);
    `sentence_starts` is where each sentence of `document` starts, the title's included.
    """

    document: str
    texts: list[str]
    spans: list[tuple[int, int]]
    title_end: int = 0
    sentence_starts: tuple[int, ...] = (0,)


def chunk_paper(
    paper: Paper, window_words: int = WINDOW_WORDS, overlap: int = OVERLAP_SENTENCES
) -> list[str]:
    """Return the passages of a paper: sentence windows of about `window_words` words."""
    return passages(paper, window_words, overlap).texts


def passages(
    paper: Paper, window_words: int = WINDOW_WORDS, overlap: int = OVERLAP_SENTENCES
) -> Passages:
    """Return the passages of a paper with the span of each in the paper's whole text."""
    if paper.title_only:
        text = ". ".join(p for p in (paper.title, paper.area) if p) or paper.label
        return Passages(text, [text], [(0, len(text))])
    sentences = split_sentences(paper.abstract) or [paper.abstract]
    windows: list[list[int]] = []  # sentence numbers
    current: list[int] = []
    words = 0
    for number, sentence in enumerate(sentences):
        n = len(sentence.split())
        if current and words + n > window_words:
            windows.append(current)
            current = current[-overlap:] if overlap else []
            words = sum(len(sentences[i].split()) for i in current)
        current.append(number)
        words += n
    if current and (not windows or current != windows[-1][-len(current) :]):
        windows.append(current)
    prefix = f"{paper.title}. " if paper.title else ""
    where = _sentence_spans(paper.abstract, sentences, len(prefix))
    return Passages(
        document=prefix + paper.abstract,
        texts=[prefix + " ".join(sentences[i] for i in w) for w in windows],
        spans=[(where[w[0]][0], where[w[-1]][1]) for w in windows],
        title_end=len(prefix),
        sentence_starts=tuple(sorted({0, *(start for start, _ in where)})),
    )


def _sentence_spans(text: str, sentences: list[str], shift: int) -> list[tuple[int, int]]:
    """Return where each sentence (a stripped piece of `text`, in order) lies, plus `shift`."""
    spans = []
    at = 0
    for sentence in sentences:
        start = text.find(sentence, at)
        if start < 0:  # not a piece of the text (never for split_sentences): take the rest
            start = at
        at = start + len(sentence)
        spans.append((shift + start, shift + min(at, len(text))))
    return spans
