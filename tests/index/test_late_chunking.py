"""Late chunking: passage vectors are the mean of the right token states of one encoder pass."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rag.index.late_chunking import (
    OVERLAP_TOKENS,
    LateDocument,
    Pooling,
    plan_passes,
    pool,
    token_states,
)
from rag.ingest.chunking import passages
from rag.records import Paper


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def test_a_span_pools_the_tokens_it_overlaps_and_nothing_else() -> None:
    rng = np.random.default_rng(0)
    states = rng.normal(size=(6, 8)).astype(np.float32)
    # "Title. one two three four": tokens at these character spans
    offsets = np.array([[0, 5], [5, 6], [7, 10], [11, 14], [15, 20], [21, 25]])
    first, second = pool(states, offsets, [(7, 14), (15, 25)], title_end=7)
    assert np.allclose(first, _unit(states[2:4].mean(axis=0)), atol=1e-6)
    assert np.allclose(second, _unit(states[4:6].mean(axis=0)), atol=1e-6)

    (titled,) = pool(states, offsets, [(15, 25)], title_end=7, pooling=Pooling(title_weight=1))
    expected = _unit(states[4:6].mean(axis=0) + states[0:2].mean(axis=0))
    assert np.allclose(titled, expected, atol=1e-6)

    (blended,) = pool(states, offsets, [(15, 25)], pooling=Pooling(document_weight=0.5))
    whole = _unit(states.mean(axis=0))
    assert np.allclose(blended, _unit(_unit(states[4:6].mean(axis=0)) + 0.5 * whole), atol=1e-6)


def test_passes_cover_every_token_and_start_on_a_word() -> None:
    starts = [True, False, True, True, False, True, True, True, False, True]
    assert plan_passes(starts, limit=20, overlap=2) == [(0, 10)]
    plan = plan_passes(starts, limit=4, overlap=2)
    assert plan[0] == (0, 4) and plan[-1][1] == 10
    for (_, end), (start, _) in itertools.pairwise(plan):
        assert start < end and starts[start]  # overlapping, at a word's first piece
    covered = {i for a, b in plan for i in range(a, b)}
    assert covered == set(range(10))


def test_each_window_has_its_span_in_the_whole_text() -> None:
    abstract = " ".join(f"Sentence number {i} says something about topic {i}." for i in range(40))
    paper = Paper(id="p", authors=("A. Author",), abstract=abstract, title="A title")
    cut = passages(paper)
    assert len(cut.texts) > 1 and cut.document == "A title. " + abstract
    assert cut.title_end == len("A title. ")
    for text, (start, end) in zip(cut.texts, cut.spans, strict=True):
        assert text == "A title. " + cut.document[start:end]  # the window's sentences


@pytest.mark.slow
def test_one_pass_vectors_equal_the_mean_of_that_pass_token_states() -> None:
    from rag.index.embedding import load_embedder

    embedder = load_embedder()
    model, tokenizer = embedder._model, embedder._model.tokenizer
    words = [f"Claim {i}: protein kinase {i} regulates cell growth in mice." for i in range(27)]
    paper = Paper(id="p", authors=("A. Author",), abstract=" ".join(words), title="Kinases")
    cut = passages(paper, window_words=60)
    whole = tokenizer(cut.document, add_special_tokens=False, return_offsets_mapping=True)
    offsets = np.array(whole["offset_mapping"])
    ids = whole.word_ids()
    starts = [i == 0 or ids[i] != ids[i - 1] for i in range(len(ids))]
    plan = plan_passes(starts, model.max_seq_length - 2, OVERLAP_TOKENS)
    assert len(plan) == 2  # 254 word pieces, then the rest

    encoded: list[int] = []
    original = model.encode

    def counting(texts, **kwargs):  # type: ignore[no-untyped-def]
        encoded.append(len(texts))
        return original(texts, **kwargs)

    model.encode = counting
    try:
        (vectors,) = embedder.embed_late([LateDocument(cut.document, cut.spans, cut.title_end)])
    finally:
        del model.encode
    assert encoded == [2]  # one encoder call, one pass each
    assert vectors.shape == (len(cut.texts), embedder.dim)

    def mean_in_pass(first: int, last: int, span: tuple[int, int]) -> np.ndarray:
        """The mean state, within the pass over tokens first:last, of the span's tokens."""
        a, b = int(offsets[first][0]), int(offsets[last - 1][1])
        states = original(cut.document[a:b], output_value="token_embeddings")
        states = states.float().numpy()[1:-1]
        mine = tokenizer(cut.document[a:b], add_special_tokens=False, return_offsets_mapping=True)
        where = np.array(mine["offset_mapping"]) + a
        inside = (where[:, 0] < span[1]) & (where[:, 1] > span[0])
        assert inside.sum() > 20
        return _unit(states[inside].mean(axis=0))

    (_, end1), (start2, end2) = plan
    assert cut.spans[0][1] <= offsets[start2][0]  # the first window: only the first pass
    assert np.allclose(vectors[0], mean_in_pass(0, end1, cut.spans[0]), atol=1e-5)
    assert cut.spans[-1][0] >= offsets[end1][0]  # the last window: only the second pass
    assert np.allclose(vectors[-1], mean_in_pass(start2, end2, cut.spans[-1]), atol=1e-5)


@pytest.mark.slow
def test_late_vectors_stay_close_to_windows_encoded_on_their_own() -> None:
    from rag.index.embedding import load_embedder

    embedder = load_embedder()
    paper = Paper(
        id="p",
        authors=("A. Author",),
        title="Statins and heart disease",
        abstract="Statins lower cholesterol. In a trial of 4,000 patients, statins cut heart "
        "attacks by a third. Side effects were rare.",
    )
    cut = passages(paper)
    (late,) = embedder.embed_late([LateDocument(cut.document, cut.spans, cut.title_end)])
    alone = embedder.embed(cut.texts)
    assert float(late[0] @ alone[0]) > 0.9  # the same text read in context


@pytest.mark.slow
def test_shorter_passes_cover_every_token_and_stay_close_to_full_ones() -> None:
    from rag.index.embedding import load_embedder

    model = load_embedder()._model
    text = " ".join(
        f"Finding {i} links exposure {i} to outcome {i} in cohort {i}." for i in range(30)
    )
    ((full, offsets),) = token_states(model, [text])
    ((short, short_offsets),) = token_states(model, [text], pass_tokens=64, overlap=16)
    assert np.array_equal(offsets, short_offsets)  # the same tokens of the whole text
    assert len(offsets) > 2 * 64  # read in three or more passes of 64
    assert np.abs(short).sum(axis=1).min() > 0  # every token got a state from some pass
    assert not np.allclose(full, short, atol=1e-3)  # the passes did cut the context
    (close,) = pool(full, offsets, [(0, len(text))])
    (near,) = pool(short, short_offsets, [(0, len(text))])
    assert float(close @ near) > 0.9  # the same text, read in shorter pieces
