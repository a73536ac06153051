"""A message with no pronoun and no name after an answer: a follow-up, a new topic or off-topic.

"main limitation?" after an answer on CELL asks about CELL; "Markov chains" after one on ConPress
is a new topic; "best pizza in Naples?" is about nothing in the collection. One calibrated
judgement (rag/answer/continuation.py) tells them apart, from the message's own search.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from rag import prompts
from rag.answer import continuation
from rag.answer.pipeline import answer
from rag.index.model_files import BUNDLED_MODEL
from rag.index.paper_index import Index
from tests.answer.chat_turns import chat, first_authors
from tests.fakes import FakeLLM


def test_the_weights_match_the_features() -> None:
    weights = continuation.weights()
    assert weights["features"] == list(continuation.FEATURES)
    for key in ("mean", "scale", "coef"):
        assert len(weights[key]) == len(continuation.FEATURES)
    assert len(weights["aspect"]["coef"]) == 384  # MiniLM's vectors


def test_another_embedding_model_leaves_the_aspect_at_its_mean() -> None:
    def embed(texts: list[str]) -> np.ndarray:
        raise AssertionError("the bundled model's weights must not read another model's vector")

    index: Any = SimpleNamespace(
        settings=SimpleNamespace(embedding_model="/models/my-own"),
        embedder=SimpleNamespace(embed=embed),
    )
    assert (
        continuation.aspect(index, "main limitation?") == continuation.weights()["aspect"]["mean"]
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("What is CELL?", "what's the main limitation?"),
        ("Which papers make LLM reasoning shorter?", "is the accuracy hurt?"),
        ("Tell me about ZS-SVD", "compared to what?"),
        ("Which papers are about auctions?", "limitations?"),
    ],
)
def test_a_follow_up_naming_only_an_aspect_is_asked_of_the_last_answer_s_papers(
    real_seed_index: Index, first: str, second: str
) -> None:
    one, two = chat(real_seed_index, [first, second])
    assert not two.abstained, two.answer
    assert two.standalone not in (None, second)
    assert set(first_authors(two)) <= set(first_authors(one)), two.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "second", "gold"),
    [
        ("What is ConPress?", "Markov chains", "Oğuz Yüksel"),
        ("What is ICGNN?", "DPO vs RLHF", "Yonggang Zhang"),
        ("What is ICGNN?", "graph prompting", "Yumeng Zhao"),
        ("Which papers are about auctions?", "layer skipping", "Ziyue Li"),
    ],
)
def test_a_short_new_topic_after_an_answer_is_searched_as_typed(
    real_seed_index: Index, first: str, second: str, gold: str
) -> None:
    one, two = chat(real_seed_index, [first, second])
    assert two.standalone is None
    assert gold in first_authors(two)
    assert not set(first_authors(one)) & set(first_authors(two))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("What is CELL?", "best pizza in Naples?"),
        ("What is CELL?", "how do I renew my passport"),
        ("Which papers study transformers on Markov chains?", "robot arm grasp planning"),
    ],
)
def test_an_off_topic_message_after_an_answer_still_abstains(
    real_seed_index: Index, first: str, second: str
) -> None:
    _, two = chat(real_seed_index, [first, second])
    assert two.abstained, two.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("second", "gold"),
    [
        # before: asked of the long-context paper, quoting its "brittle position dependencies"
        ("anything on safety?", None),
        ("ok, any work on federated unlearning?", "Canran Xiao"),
    ],
)
def test_anything_on_a_topic_after_an_answer_asks_the_collection(
    real_seed_index: Index, second: str, gold: str | None
) -> None:
    _, two = chat(real_seed_index, ["what benchmarks are used for long context?", second])
    assert two.standalone is None, two.standalone
    if gold is None:
        assert two.abstained, two.answer
    else:
        assert first_authors(two) == [gold], two.answer


@pytest.mark.slow
def test_a_follow_up_its_paper_says_nothing_about_says_so(real_seed_index: Index) -> None:
    _, two = chat(real_seed_index, ["deep BSDE solvers for PDEs", "any experimental results?"])
    assert first_authors(two) == ["Jaemin Seo"]
    assert two.answer.startswith(prompts.NOT_ADDRESSED_ONE.format(who="Seo et al.").split(";")[0])


def test_an_embedder_of_another_size_leaves_the_aspect_at_its_mean() -> None:
    index: Any = SimpleNamespace(
        settings=SimpleNamespace(embedding_model=BUNDLED_MODEL),
        embedder=SimpleNamespace(embed=lambda texts: np.ones((len(texts), 64))),
    )
    assert (
        continuation.aspect(index, "main limitation?") == continuation.weights()["aspect"]["mean"]
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "second", "others"),
    [
        ("Which papers deal with noisy labels on graphs?", "anything about graphs?", "Hourun Li"),
        ("What is IDFT?", "any work on federated learning?", "Renxiang Guan"),
    ],
)
def test_a_broader_subject_after_an_answer_asks_the_collection(
    real_seed_index: Index, first: str, second: str, others: str
) -> None:
    # Before: "anything about graphs (ICGNN)?", kept to the first answer's paper.
    _, two = chat(real_seed_index, [first, second])
    assert two.standalone is None, two.standalone
    assert others in first_authors(two), two.answer


def test_a_message_is_sent_to_the_collection_only_when_the_aspect_can_be_read() -> None:
    def embed(texts: list[str]) -> np.ndarray:
        raise AssertionError("the bundled model's weights must not read another model's vector")

    index: Any = SimpleNamespace(
        settings=SimpleNamespace(embedding_model="/models/my-own"),
        embedder=SimpleNamespace(embed=embed),
    )
    decision: Any = SimpleNamespace(answerable=True)
    assert not continuation.asks_the_collection(index, "graphs", [], [], [], decision, 0.47)


@pytest.mark.slow
def test_a_follow_up_its_paper_says_nothing_about_is_not_answered_with_the_line_just_read(
    real_seed_index: Index,
) -> None:
    one, two = chat(
        real_seed_index, ["does self-distillation help with long inputs?", "GPU hours saved?"]
    )
    shown = one.answer.split(": ", 1)[-1].split(" [")[0]
    assert two.answer.startswith("The abstract of Li et al."), two.answer
    assert shown not in two.answer, two.answer


@pytest.mark.slow
def test_a_question_about_the_code_is_answered_with_where_the_code_is(
    real_seed_index: Index,
) -> None:
    _, two = chat(
        real_seed_index, ["Which papers work on graph neural networks?", "any code released?"]
    )
    assert "code is available in the supplementary materials" in two.answer, two.answer


@pytest.mark.slow
def test_a_follow_up_on_what_the_abstract_never_mentions_says_so(real_seed_index: Index) -> None:
    # Before: the TRM line just shown came back, as if TRM helped image classification.
    one, two = chat(
        real_seed_index, ["TRM trust region bounds", "does it help with image classification?"]
    )
    shown = one.answer.split(": ", 1)[-1].split(" [")[0]
    assert two.answer.startswith("The abstract of Li et al. (TRM) does not seem"), two.answer
    assert shown not in two.answer


@pytest.mark.slow
def test_a_follow_up_on_what_the_abstract_mentions_gets_no_such_note(
    real_seed_index: Index,
) -> None:
    # ConPress says it needs no reinforcement learning: that addresses the comparison.
    _, two = chat(
        real_seed_index,
        ["ConPress self-compression", "how does it compare with reinforcement learning?"],
    )
    assert "does not seem" not in two.answer
    assert "reinforcement learning" in two.answer


@pytest.mark.slow
def test_a_follow_up_with_no_words_of_its_own_is_not_told_the_abstract_lacks_them(
    real_seed_index: Index,
) -> None:
    # "how well does it work?" names nothing the abstract could lack: its results answer it.
    _, two = chat(real_seed_index, ["ConPress results", "how well does it work?"])
    assert "does not seem" not in two.answer, two.answer
    assert "59%" in two.answer, two.answer


@pytest.mark.slow
@pytest.mark.parametrize("asked", ["is the code available?", "is it open source?"])
def test_asked_if_the_code_is_out_an_abstract_that_does_not_say_is_named(
    real_seed_index: Index, asked: str
) -> None:
    # Before: ICGNN's line on its method came back as if it answered ("is it open source?":
    # a new user's, stop 56).
    _, two = chat(real_seed_index, ["noisy labels on graphs", asked])
    assert two.answer.startswith(
        "The abstract of Ju et al. (ICGNN) does not state whether its code is available"
    ), two.answer


@pytest.mark.slow
def test_where_the_code_is_is_asked_of_the_paper_just_shown(real_seed_index: Index) -> None:
    # Before, "where can I find the code?" was searched on its own words and quoted DiP-G's
    # background, then, once read as a question about code, every paper that has some.
    one, two = chat(
        real_seed_index, ["discrete prompting for graphs", "where can I find the code?"]
    )
    assert [c.hit.paper.id for c in two.citations] == [c.hit.paper.id for c in one.citations]
    assert "code is available in the supplementary materials" in two.answer, two.answer


@pytest.mark.slow
def test_a_model_sentence_that_does_not_say_where_the_code_is_is_no_answer_to_it(
    real_seed_index: Index,
) -> None:
    # The local model answered "where can I find the code?" with a paper's finding: supported
    # and on the paper, so it was shown, and the note that the abstract does not say was not.
    llm = FakeLLM()
    llm.enqueue(
        "With only 8k fine-tuning examples, ConPress reduces reasoning token usage by 59% on "
        "MATH500 and 33% on AIME25, while maintaining competitive accuracy [1]. Its code was "
        "trained on ImageNet with a thousand GPUs [1]."
    )
    result = answer(
        real_seed_index,
        "Is the code of ConPress available?",
        settings=real_seed_index.settings,
        backend=llm,
    )
    assert llm.history, "the model was asked"
    assert result.answer.startswith(
        "The abstract of Deng et al. (ConPress) does not state whether its code is available"
    ), result.answer
    # The reason given is the supported sentence that does not answer, not the other one.
    assert result.notice == prompts.MODEL_OFF_QUESTION, result.notice
