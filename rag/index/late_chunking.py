"""Late chunking: passage vectors pooled from one encoder pass over a paper's whole text.

Instead of encoding each sentence window on its own (about 2.5 forward passes per abstract,
as the windows overlap), the encoder reads the title and abstract once and each window's
vector is the mean of the token states inside its span, as the model's own mean pooling
would average them, blended with the whole text's mean (`POOLING`), then L2-normalized.

The text is tokenized once and read in passes of `PASS_TOKENS` (128) word pieces, the length
MiniLM was trained on: a longer text is cut into the fewest such passes, of near-equal length,
at sentence starts (`plan_balanced`), so each piece is read once and loses context only across
a sentence boundary; every pass after the first reads the title's pieces first, as context, as
each window encoded on its own reads the title. Short passes also make attention cheaper than
one 256-piece pass.

Measured on SciFact train (bench/retrieval/late_chunking.py, fused with BM25 as search does,
120-word windows): this plan 0.7445 nDCG@10 (0.7422 without the blend); the first plan, passes
of 256 pieces overlapping by 32 (`plan_passes`, still here for the benchmark), 0.742; the same
windows encoded one by one 0.746; one whole-abstract vector 0.737. Passes of 128 without the
title 0.741, balanced passes of 256 0.738 (bench/results/late_chunking_*.md).

The token states come from the sentence-transformers model's own forward pass over the word
pieces (`_forward`); only the pass plan and the pooling are written here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

OVERLAP_TOKENS = 32  # word pieces a further pass re-reads before its new part (overlap plan)
PASS_TOKENS = 128  # word pieces a pass reads, special tokens included: MiniLM's training length
# What an index records for passage vectors made by `late_vectors` (`rag.index.store`): the
# first late plan (passes of 256 overlapping by 32, recorded as "late") is not mixed with it.
METHOD = "late-sentences-128"


@dataclass(frozen=True)
class LateDocument:
    """A text to encode once, and the character spans to pool into passage vectors.

    Args:
        text: the paper's whole text (title prefix, then abstract).
        spans: one (start, end) character span per passage.
        title_end: where the title prefix ends in `text` (0 without a title).
        sentence_starts: where each sentence of `text` starts (passes are cut there).
    """

    text: str
    spans: Sequence[tuple[int, int]]
    title_end: int = 0
    sentence_starts: Sequence[int] = ()


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


def plan_balanced(
    word_starts: Sequence[bool], sentence_starts: Sequence[bool], limit: int
) -> list[tuple[int, int]]:
    """Return the fewest passes of at most `limit` tokens that read each token once.

    A text longer than `limit` is cut into `ceil(n / limit)` passes of near-equal length, each
    cut at the sentence start nearest its even share (a word start when no sentence start
    keeps every pass within `limit`), so that a token loses context only across a sentence
    boundary and no pass is a short remnant.
    """
    n = len(word_starts)
    parts = -(-n // limit) if n else 1
    passes: list[tuple[int, int]] = []
    start = 0
    for part in range(1, parts):
        left = parts - part  # passes still to come after this cut
        lowest, highest = max(start + 1, n - left * limit), min(start + limit, n - 1)
        target = start + round((n - start) / (left + 1))
        cut = _nearest(sentence_starts, lowest, highest, target)
        if cut is None:
            cut = _nearest(word_starts, lowest, highest, target)
        if cut is None:
            cut = min(start + limit, n)
        passes.append((start, cut))
        start = cut
    passes.append((start, n))
    return passes


def _nearest(starts: Sequence[bool], lowest: int, highest: int, target: int) -> int | None:
    """Return the index in [lowest, highest] where `starts` is true nearest `target`, if any."""
    found = [i for i in range(lowest, highest + 1) if starts[i]]
    return min(found, key=lambda i: (abs(i - target), i)) if found else None


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
    sentence_starts: Sequence[Sequence[int]] | None = None,
    title_ends: Sequence[int] | None = None,
    bfloat16: bool | None = None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Return the token states and character offsets of each whole text, from one encode.

    Each text is tokenized once; its passes are slices of those word pieces, wrapped in the
    model's special tokens and run through the model, so a pass reads exactly the pieces
    the whole text has.

    Args:
        model: a loaded `SentenceTransformer` (its tokenizer must be a fast one, with offsets).
        texts: the texts.
        batch_size: passes per encoder batch.
        overlap: word pieces a further pass re-reads (see `plan_passes`).
        pass_tokens: word pieces a pass reads, special tokens included (default and at most:
            the model's `max_seq_length`).
        sentence_starts: per text, the character offsets where its sentences start: when
            given, a long text is read in balanced passes cut at sentences (`plan_balanced`)
            and `overlap` is not used.
        title_ends: per text, where its title prefix ends: when given, every pass after the
            first reads the title's pieces before its own, as context (their states there
            are not kept), as each window encoded on its own reads the title.
        bfloat16: run the encoder in bfloat16 (default: when the CPU computes it natively,
            `native_bfloat16`).

    Returns:
        Per text, (tokens, dim) float32 states and (tokens, 2) offsets, special tokens left
        out.
    """
    tokenizer = model.tokenizer
    prefix, suffix = _special_tokens(tokenizer)
    width = min(pass_tokens or int(model.max_seq_length), int(model.max_seq_length))
    limit = width - len(prefix) - len(suffix)
    # Past the model's limit on purpose (the passes cut it): verbose=False keeps the
    # tokenizer from warning about it.
    whole = tokenizer(
        list(texts), add_special_tokens=False, return_offsets_mapping=True, verbose=False
    )
    jobs: list[tuple[int, int, int, int]] = []  # text, first token, last token, title tokens
    for t in range(len(texts)):
        offsets = whole["offset_mapping"][t]
        if not offsets:
            continue
        words = whole.word_ids(t)
        word_starts = [i == 0 or words[i] != words[i - 1] for i in range(len(words))]
        title = 0
        if title_ends is not None and len(offsets) > limit:
            title = sum(1 for _, end in offsets if end <= title_ends[t])
            title = title if title < limit // 4 else 0  # a title that long is no context
        # The abstract's pieces are cut into passes of `limit - title`; each pass reads the
        # title first (the first pass as its own start, the others as context).
        room = limit - title
        if sentence_starts is not None:
            sentences = _token_starts(offsets, sentence_starts[t])
            plan = plan_balanced(word_starts[title:], sentences[title:], room)
        else:
            plan = plan_passes(word_starts[title:], room, overlap)
        plan = [(first + title if first else 0, last + title) for first, last in plan]
        jobs.extend((t, first, last, title if first else 0) for first, last in plan)
    ids = whole["input_ids"]
    encoded = _forward(
        model,
        [
            prefix + list(ids[t][:title]) + list(ids[t][first:last]) + suffix
            for t, first, last, title in jobs
        ],
        batch_size,
        native_bfloat16() if bfloat16 is None else bfloat16,
    )
    dimension = getattr(model, "get_embedding_dimension", None)  # sentence-transformers 6
    dim = int((dimension or model.get_sentence_embedding_dimension)())
    result: list[tuple[np.ndarray, np.ndarray]] = []
    for t in range(len(texts)):
        offsets = np.asarray(whole["offset_mapping"][t], dtype=np.int64).reshape(-1, 2)
        result.append((np.zeros((len(offsets), dim), dtype=np.float32), offsets))
    centrality = [np.full(len(o), -1, dtype=np.int64) for _, o in result]
    for (t, first, last, title), got in zip(jobs, encoded, strict=True):
        states, offsets = result[t]
        got = got[len(prefix) + title : len(prefix) + title + last - first]
        rows = np.arange(first, last)
        # How far each token sits from an edge of this pass that cuts the text.
        score = np.full(len(rows), len(offsets), dtype=np.int64)
        if first > 0:
            score = np.minimum(score, rows - first)
        if last < len(offsets):
            score = np.minimum(score, last - 1 - rows)
        better = score > centrality[t][rows]
        centrality[t][rows[better]] = score[better]
        states[rows[better]] = got[better]
    return result


def _special_tokens(tokenizer: Any) -> tuple[list[int], list[int]]:
    """Return the ids the tokenizer puts before and after a text's own (e.g. [CLS], [SEP])."""
    inner = tokenizer("a", add_special_tokens=False)["input_ids"]
    wrapped = tokenizer("a")["input_ids"]
    at = next(i for i in range(len(wrapped)) if wrapped[i : i + len(inner)] == inner)
    return list(wrapped[:at]), list(wrapped[at + len(inner) :])


def native_bfloat16() -> bool:
    """Whether this CPU multiplies bfloat16 natively (AVX512-BF16 or AMX, read on Linux).

    There the encoder runs about twice as fast in bfloat16, and its passage vectors keep a
    cosine of 0.99997 or more with float32 ones; elsewhere bfloat16 is emulated and slower.
    """
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            flags = info.read()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def _forward(
    model: Any, sequences: list[list[int]], batch_size: int, bfloat16: bool = False
) -> list[np.ndarray]:
    """Return the token states of each id sequence, batched longest first to pad little."""
    import torch

    tokenizer = model.tokenizer
    model.eval()  # as `encode` does: no dropout
    order = sorted(range(len(sequences)), key=lambda j: -len(sequences[j]))
    states: list[np.ndarray] = [np.zeros((0, 0), dtype=np.float32)] * len(sequences)
    for begin in range(0, len(order), batch_size):
        batch = order[begin : begin + batch_size]
        longest = len(sequences[batch[0]])
        ids = torch.full((len(batch), longest), int(tokenizer.pad_token_id), dtype=torch.long)
        mask = torch.zeros((len(batch), longest), dtype=torch.long)
        for row, j in enumerate(batch):
            ids[row, : len(sequences[j])] = torch.tensor(sequences[j], dtype=torch.long)
            mask[row, : len(sequences[j])] = 1
        features = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in tokenizer.model_input_names:
            features["token_type_ids"] = torch.zeros_like(ids)
        precision = (
            torch.autocast("cpu", dtype=torch.bfloat16) if bfloat16 else contextlib.nullcontext()
        )
        with torch.inference_mode(), precision:
            out = model({k: v.to(model.device) for k, v in features.items()})
        got = out["token_embeddings"].float().cpu().numpy()
        for row, j in enumerate(batch):
            states[j] = got[row, : len(sequences[j])]
    return states


def _token_starts(offsets: Sequence[tuple[int, int]], chars: Sequence[int]) -> list[bool]:
    """Return, per token, whether it is the first token at or after one of `chars`."""
    begins = np.asarray([a for a, _ in offsets], dtype=np.int64)
    marks = [False] * len(begins)
    for i in np.searchsorted(begins, np.asarray(list(chars), dtype=np.int64)):
        if i < len(marks):
            marks[int(i)] = True
    return marks


# Each window's mean blended with the whole text's: with title-first passes of 128 pieces,
# 0.7445 fused nDCG@10 on SciFact train against 0.7422 plain (bench/retrieval/late_chunking.py).
POOLING = Pooling(document_weight=0.5)


def late_vectors(
    model: Any,
    documents: Sequence[LateDocument],
    *,
    batch_size: int = 32,
    pooling: Pooling = POOLING,
    bfloat16: bool | None = None,
) -> list[np.ndarray]:
    """Return each document's passage vectors, (passages, dim), from one encode of its text.

    Passes of `PASS_TOKENS` cut at sentences, each after the first reading the title first.
    """
    states = token_states(
        model,
        [d.text for d in documents],
        batch_size=batch_size,
        pass_tokens=PASS_TOKENS,
        sentence_starts=[d.sentence_starts for d in documents],
        title_ends=[d.title_end for d in documents],
        bfloat16=bfloat16,
    )
    return [
        pool(s, o, d.spans, d.title_end, pooling)
        for (s, o), d in zip(states, documents, strict=True)
    ]
