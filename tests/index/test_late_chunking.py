"""Late chunking: passage vectors are the mean of the right token states of one encoder pass."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rag.index.late_chunking import (
    PASS_TOKENS,
    POOLING,
    LateDocument,
    Pooling,
    late_vectors,
    plan_balanced,
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


def test_balanced_passes_read_each_token_once_and_cut_at_sentences() -> None:
    words = [i % 3 != 2 for i in range(600)]  # every third piece continues a word
    sentences = [i % 37 == 0 for i in range(600)]
    assert plan_balanced(words, sentences, limit=600) == [(0, 600)]
    plan = plan_balanced(words, sentences, limit=254)
    assert len(plan) == 3  # the fewest passes of at most 254
    assert plan[0][0] == 0 and plan[-1][1] == 600
    for (_, end), (start, _) in itertools.pairwise(plan):
        assert start == end and sentences[start]  # no token read twice; cut at a sentence
    lengths = [b - a for a, b in plan]
    assert max(lengths) <= 254 and min(lengths) >= 150  # near-equal, no short remnant


def test_balanced_passes_cut_at_a_word_when_no_sentence_fits() -> None:
    words = [i % 2 == 0 for i in range(300)]
    plan = plan_balanced(words, [i == 0 for i in range(300)], limit=200)
    (_, cut), (start, end) = plan
    assert cut == start == 150 and end == 300 and words[cut]


def test_each_window_has_its_span_in_the_whole_text() -> None:
    abstract = " ".join(f"Sentence number {i} says something about topic {i}." for i in range(40))
    paper = Paper(id="p", authors=("A. Author",), abstract=abstract, title="A title")
    cut = passages(paper)
    assert len(cut.texts) > 1 and cut.document == "A title. " + abstract
    assert cut.title_end == len("A title. ")
    for text, (start, end) in zip(cut.texts, cut.spans, strict=True):
        assert text == "A title. " + cut.document[start:end]  # the window's sentences


@pytest.mark.slow
def test_each_pass_reads_the_title_then_whole_sentences_as_encoding_that_text_would() -> None:
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
    sentences = [int(a) in cut.sentence_starts for a, _ in offsets]
    title = int((offsets[:, 1] <= cut.title_end).sum())
    plan = plan_balanced(starts[title:], sentences[title:], PASS_TOKENS - 2 - title)
    plan = [(a + title if a else 0, b + title) for a, b in plan]
    assert len(plan) >= 3 and all(sentences[a] for a, _ in plan[1:])  # cut at sentences

    batches: list[int] = []
    original = model.encode
    forward = model.forward

    def counting(features, **kwargs):  # type: ignore[no-untyped-def]
        batches.append(int(features["input_ids"].shape[0]))
        return forward(features, **kwargs)

    model.forward = counting
    try:
        (vectors,) = embedder.embed_late(
            [LateDocument(cut.document, cut.spans, cut.title_end, cut.sentence_starts)]
        )
    finally:
        del model.forward
    assert batches == [len(plan)]  # one encoder batch, one pass each
    assert vectors.shape == (len(cut.texts), embedder.dim)

    ((states, _),) = token_states(
        model,
        [cut.document],
        pass_tokens=PASS_TOKENS,
        sentence_starts=[cut.sentence_starts],
        title_ends=[cut.title_end],
        bfloat16=False,
    )
    for first, last in plan[1:]:
        a, b = int(offsets[first][0]), int(offsets[last - 1][1])
        alone = original(
            cut.document[: cut.title_end] + cut.document[a:b], output_value="token_embeddings"
        )
        alone = alone.float().numpy()[1:-1]
        assert len(alone) == title + last - first  # the title's pieces, then the pass's own
        assert np.allclose(states[first:last], alone[title:], atol=1e-4)
    expected = pool(states, offsets, cut.spans, cut.title_end, POOLING)
    # ingest runs in bfloat16 where the CPU has it: the same vectors within rounding
    assert np.min(np.sum(vectors * expected, axis=1)) > 0.9999


@pytest.mark.slow
def test_bfloat16_passes_give_the_float32_vectors_within_rounding() -> None:
    from rag.index.embedding import load_embedder

    model = load_embedder()._model
    abstract = " ".join(
        f"Dose {i} of drug {i} lowered blood pressure by {i} mmHg." for i in range(30)
    )
    cut = passages(Paper(id="p", authors=("A. Author",), abstract=abstract, title="Doses"))
    document = [LateDocument(cut.document, cut.spans, cut.title_end, cut.sentence_starts)]
    (exact,) = late_vectors(model, document, bfloat16=False)
    (rounded,) = late_vectors(model, document, bfloat16=True)
    assert len(exact) > 1 and not np.array_equal(exact, rounded)
    assert np.min(np.sum(exact * rounded, axis=1)) > 0.9999


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
    (late,) = embedder.embed_late(
        [LateDocument(cut.document, cut.spans, cut.title_end, cut.sentence_starts)]
    )
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
