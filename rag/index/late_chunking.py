"""Late chunking: passage vectors pooled from one encoder pass over a paper's whole text.

Instead of encoding each sentence window on its own (about 2.5 forward passes per abstract,
as the windows overlap), the encoder reads the title and abstract once and each window's
vector is the mean of the token states inside its span, as the model's own mean pooling
would average them, then L2-normalized. The encoder reads at most `max_seq_length` word
pieces (256 for all-MiniLM-L6-v2): the part of a longer text past that limit is read by
further passes that start `overlap` word pieces before the previous one ends, so that no
token is read without context. A token read twice takes its state from the pass in which it
sits farther from an edge.

The token states and the offset mapping come from sentence-transformers and its tokenizer;
only the pooling is written here.

Measured on SciFact train (bench/retrieval/late_chunking.py, fused with BM25 as search does):
120-word windows, plain means, reach nDCG@10 0.742, against 0.746 for the same windows encoded
one by one and 0.737 for one whole-abstract vector. Adding the title's tokens to every window
(0.737-0.741), blending each window with the whole text's mean state (0.739-0.742) and other
window sizes (40-160 words: 0.737-0.741) did no better, so `Pooling()` is plain. Less overlap
reads fewer pieces but loses quality (no overlap: 0.739, bench/results/late_chunking_overlap.md).
Passes of 128 pieces (`pass_tokens`), the length MiniLM was trained on, give 0.740 with
120-word windows and 0.744 with 40- or 60-word ones (bench/results/late_chunking_128.md);
not adopted until measured through the index and bench/ingest/ingest_speed.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

OVERLAP_TOKENS = 32  # word pieces a further pass re-reads before its new part


@dataclass(frozen=True)
class LateDocument:
    """A text to encode once, and the character spans to pool into passage vectors.

    Args:
        text: the paper's whole text (title prefix, then abstract).
        spans: one (start, end) character span per passage.
        title_end: where the title prefix ends in `text` (0 without a title).
    """

    text: str
    spans: Sequence[tuple[int, int]]
    title_end: int = 0


@dataclass(frozen=True)
class Pooling:
    """How a passage's vector is made from token states.

    Args:
        title_weight: weight of the mean title state added to each window's mean (0: none).
        document_weight: weight of the whole text's mean state added to each (normalized)
            window vector before the final normalization (0: none).
    """

    title_weight: float = 0.0
    document_weight: float = 0.0


def plan_passes(word_starts: Sequence[bool], limit: int, overlap: int) -> list[tuple[int, int]]:
    """Return the token ranges the encoder reads: the first `limit`, then overlapping rests.

    Each further pass starts `overlap` tokens before the previous one ended, moved back to
    the first piece of a word so that the pass's text tokenizes as it does in the whole.
    """
    n = len(word_starts)
    passes = [(0, min(n, limit))]
    while passes[-1][1] < n:
        first, last = passes[-1]
        start = max(first + 1, last - overlap)
        while start > first + 1 and not word_starts[start]:
            start -= 1
        passes.append((start, min(n, start + limit)))
    return passes


def pool(
    states: np.ndarray,
    offsets: np.ndarray,
    spans: Sequence[tuple[int, int]],
    title_end: int = 0,
    pooling: Pooling = Pooling(),
) -> np.ndarray:
    """Return one L2-normalized vector per span: the mean of the token states inside it.

    Args:
        states: (tokens, dim) token states of the whole text, special tokens left out.
        offsets: (tokens, 2) character start and end of each token in the text.
        spans: (start, end) character spans; a token counts when it overlaps the span.
        title_end: where the title prefix ends (for `pooling.title_weight`).
        pooling: title and whole-text weights.
    """
    if not len(states):  # a text with no word piece (never for a real paper)
        return np.eye(len(spans), states.shape[1], dtype=np.float32)
    starts, ends = offsets[:, 0], offsets[:, 1]
    title = ends <= title_end
    title_mean = states[title].mean(axis=0) if title_end and title.any() else None
    whole = _unit(states.mean(axis=0))
    vectors = []
    for start, end in spans:
        inside = (starts < end) & (ends > start)
        if not inside.any():  # an empty span (never for real passages): the whole text
            inside = np.ones(len(states), dtype=bool)
        vector = states[inside].mean(axis=0)
        if pooling.title_weight and title_mean is not None:
            vector = vector + pooling.title_weight * title_mean
        vector = _unit(vector)
        if pooling.document_weight:
            vector = _unit(vector + pooling.document_weight * whole)
        vectors.append(vector)
    return np.stack(vectors).astype(np.float32)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def token_states(
    model: Any,
    texts: Sequence[str],
    *,
    batch_size: int = 32,
    overlap: int = OVERLAP_TOKENS,
    pass_tokens: int | None = None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Return the token states and character offsets of each whole text, from one encode.

    Args:
        model: a loaded `SentenceTransformer` (its tokenizer must be a fast one, with offsets).
        texts: the texts.
        batch_size: passes per encoder batch.
        overlap: word pieces a further pass re-reads (see `plan_passes`).
        pass_tokens: word pieces a pass reads, special tokens included (default and at most:
            the model's `max_seq_length`).

    Returns:
        Per text, (tokens, dim) float32 states and (tokens, 2) offsets, special tokens left
        out.
    """
    tokenizer = model.tokenizer
    width = min(pass_tokens or int(model.max_seq_length), int(model.max_seq_length))
    limit = width - tokenizer.num_special_tokens_to_add()
    # Past the model's limit on purpose (the passes cut it): verbose=False keeps the
    # tokenizer from warning about it.
    whole = tokenizer(
        list(texts), add_special_tokens=False, return_offsets_mapping=True, verbose=False
    )
    jobs: list[tuple[int, int, int, int]] = []  # text, first token, last token, char start
    pass_texts: list[str] = []
    for t, text in enumerate(texts):
        offsets = whole["offset_mapping"][t]
        words = whole.word_ids(t)
        word_starts = [i == 0 or words[i] != words[i - 1] for i in range(len(words))]
        for first, last in plan_passes(word_starts, limit, overlap) if offsets else [(0, 0)]:
            start = offsets[first][0] if offsets else 0
            end = offsets[last - 1][1] if offsets else len(text)
            jobs.append((t, first, last, start))
            pass_texts.append(text[start:end])
    encoded = model.encode(
        pass_texts,
        output_value="token_embeddings",
        batch_size=batch_size,
        show_progress_bar=False,
        convert_to_numpy=False,
    )
    pieces = tokenizer(
        pass_texts,
        return_offsets_mapping=True,
        truncation=True,
        max_length=width,
    )
    result: list[tuple[np.ndarray, np.ndarray]] = []
    dim = int(encoded[0].shape[-1]) if len(encoded) else 0
    for t in range(len(texts)):
        offsets = np.asarray(whole["offset_mapping"][t], dtype=np.int64).reshape(-1, 2)
        result.append((np.zeros((len(offsets), dim), dtype=np.float32), offsets))
    centrality = [np.full(len(o), -1, dtype=np.int64) for _, o in result]
    for j, (t, first, last, start) in enumerate(jobs):
        states, offsets = result[t]
        got = _to_numpy(encoded[j])
        mine = np.asarray(pieces["offset_mapping"][j], dtype=np.int64).reshape(-1, 2) + start
        rows = _rows_of(mine, offsets, first, last)
        kept = rows >= 0
        rows = rows[kept]
        # How far each token sits from an edge of this pass that cuts the text.
        score = np.full(len(rows), len(offsets), dtype=np.int64)
        if first > 0:
            score = np.minimum(score, rows - first)
        if last < len(offsets):
            score = np.minimum(score, last - 1 - rows)
        better = score > centrality[t][rows]
        centrality[t][rows[better]] = score[better]
        states[rows[better]] = got[kept][better]
    return result


def _rows_of(pieces: np.ndarray, offsets: np.ndarray, first: int, last: int) -> np.ndarray:
    """Return, per piece of a pass, its token in the whole text (-1: special or split otherwise).

    A pass starting at a word tokenizes as the whole does: then its pieces (between the
    special tokens) are tokens `first:last`; else they are matched by their offsets.
    """
    rows = np.full(len(pieces), -1, dtype=np.int64)
    inner = slice(1, 1 + last - first)
    if len(pieces) == last - first + 2 and np.array_equal(pieces[inner], offsets[first:last]):
        rows[inner] = np.arange(first, last)
        return rows
    where = {(int(a), int(b)): i for i, (a, b) in enumerate(offsets[first:last], start=first)}
    for k, (a, b) in enumerate(pieces):
        if b > a:
            rows[k] = where.get((int(a), int(b)), -1)
    return rows


def _to_numpy(states: Any) -> np.ndarray:
    if hasattr(states, "detach"):
        states = states.detach().float().cpu().numpy()
    return np.asarray(states, dtype=np.float32)


def late_vectors(
    model: Any,
    documents: Sequence[LateDocument],
    *,
    batch_size: int = 32,
    overlap: int = OVERLAP_TOKENS,
    pooling: Pooling = Pooling(),
) -> list[np.ndarray]:
    """Return each document's passage vectors, (passages, dim), from one encode of its text."""
    states = token_states(
        model, [d.text for d in documents], batch_size=batch_size, overlap=overlap
    )
    return [
        pool(s, o, d.spans, d.title_end, pooling)
        for (s, o), d in zip(states, documents, strict=True)
    ]
