"""Everyday talk is told so, not answered from the papers ("whats 18 times 27").

With the real MiniLM over the seeds (the judgement is fitted on labelled messages by
bench/answers/everyday_model.py); the messages are ones new users typed.
"""

from __future__ import annotations

import pytest

from rag import api, prompts
from rag.answer.everyday import reads_everyday
from rag.index.paper_index import Index
from tests.answer.chat_turns import chat, first_authors

EVERYDAY_REPLY = prompts.EVERYDAY.split("{")[0]


@pytest.mark.slow
@pytest.mark.parametrize(
    "message",
    [
        "whats 18 times 27",  # answered from ten papers on inference time (a new user, stop 66)
        "what time is it?",  # answered from papers on time series and inference time
    ],
)
def test_everyday_talk_the_papers_would_answer_is_told_it_is_not_for_them(
    real_seed_index: Index, message: str
) -> None:
    answer = api.ask(message, index=real_seed_index, backend="extractive")
    assert answer.answer.startswith(EVERYDAY_REPLY), answer.answer
    assert answer.abstained and not answer.citations


@pytest.mark.slow
@pytest.mark.parametrize(
    "message",
    [
        "how tall is the eiffel tower?",
        "sourdough bread recipe",
        "best pizza in naples",
    ],
)
def test_everyday_talk_that_abstains_anyway_says_which_words_no_paper_uses(
    real_seed_index: Index, message: str
) -> None:
    answer = api.ask(message, index=real_seed_index, backend="extractive")
    assert answer.abstained and not answer.citations and not answer.nearest, answer.answer
    assert answer.answer.startswith(prompts.NO_PAPER_ON_IT), answer.answer
    assert "No paper's title or abstract uses" in answer.answer, answer.answer
    assert prompts.NONE_NEAR in answer.answer, answer.answer


@pytest.mark.slow
def test_after_an_answer_everyday_talk_is_not_asked_of_its_paper(real_seed_index: Index) -> None:
    # "whats 18 times 27" was asked of CPO ("whats 18 times 27 (CPO)?") and quoted its finding
    # (a new user, stop 66); the talk goes on about CPO after it, the aside no referent
    first, aside_answer, then = chat(
        real_seed_index, ["What goes wrong with DPO?", "whats 18 times 27", "main limitation?"]
    )
    assert first_authors(first) == ["Yonggang Zhang"], first.answer
    told = aside_answer.answer
    assert told.startswith(EVERYDAY_REPLY) and not aside_answer.citations, told
    assert first_authors(then) == ["Yonggang Zhang"], then.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    "message",
    [
        "KV cache",
        "DPO vs RLHF",
        "main limitation?",
        "runtime on a laptop?",
        "how do transformers learn in-context?",
        # other fields' research reads as research too, over any collection
        "Is vitamin D linked to depression?",
        "what dose of aspirin prevents stroke?",
        "calcium imaging",
    ],
)
def test_research_in_any_field_does_not_read_as_everyday(
    real_seed_index: Index, message: str
) -> None:
    assert not reads_everyday(real_seed_index, message)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("message", "author"),
    [
        # read as everyday, yet BASIL comes near it: answered (a reviewer, stop 66)
        ("what's the best way to cluster my data?", "Luwei Wang"),
        ("graph neural networks", "Wei Ju"),
    ],
)
def test_a_message_a_paper_comes_near_is_answered(
    real_seed_index: Index, message: str, author: str
) -> None:
    answer = api.ask(message, index=real_seed_index, backend="extractive")
    assert not answer.answer.startswith(EVERYDAY_REPLY), answer.answer
    assert author in first_authors(answer), answer.answer


def test_with_another_embedder_no_message_reads_as_everyday(seed_index: Index) -> None:
    # the fitted weights read the bundled MiniLM's vectors only
    assert not reads_everyday(seed_index, "whats 18 times 27")


@pytest.mark.slow
def test_everyday_talk_is_no_referent_for_a_later_it(real_seed_index: Index) -> None:
    # read as a turn on its own, "how many does it skip?" after it was asked of its words
    # ("how many does 18 times 27 skip?"), as it was of "weather in Paris" (stop 66, on the way)
    first, aside, then = chat(
        real_seed_index,
        ["which papers skip layers at inference?", "whats 18 times 27", "how many does it skip?"],
    )
    assert "Ziyue Li" in first_authors(first), first.answer
    assert aside.abstained and not aside.citations, aside.answer
    assert then.standalone == "how many does PoLar skip?", then.standalone
