"""A question on a method's limitations is told when its abstract states none.

"what are the limitations of certified circuits?" was answered with the paper's accuracy gains,
"what are the weaknesses of ConPress?" with the sentence introducing ConPress.
"""

from __future__ import annotations

import pytest

from rag import api, prompts
from rag.answer.limitations import asks_limitations, states_limitation
from rag.index.paper_index import Index


@pytest.mark.parametrize(
    "question",
    [
        "what are the limitations of certified circuits?",
        "weaknesses of ConPress?",
        "any caveats?",
        "where does IndexGuard fall short?",
        "when does the method break down?",
        "cons of CalM?",
    ],
)
def test_questions_on_limitations(question: str) -> None:
    assert asks_limitations(question)


@pytest.mark.parametrize(
    "question",
    ["does ConPress fail on code?", "how do they prevent failure?", "what does ConPress do?"],
)
def test_other_questions(question: str) -> None:
    assert not asks_limitations(question)


def test_a_list_of_papers_on_limitations_stays_a_list() -> None:
    from rag.answer.compose import Kind, question_kind

    assert question_kind("which papers discuss the limitations of DPO?") is Kind.LIST
    assert question_kind("what are the limitations of ConPress?") is Kind.LIMITATION


def test_of_its_own_method_only_a_limitation_it_admits_counts() -> None:
    admits = "Despite the asymptotic nature of our findings, they capture moderate models."
    assert states_limitation(admits, "conclusion", own=True)
    # of others, not of the method asked about
    assert not states_limitation("They remain reliable where baselines degrade.", "result", True)
    assert not states_limitation("Existing methods are brittle.", "background", own=True)
    assert not states_limitation("We propose ConPress, a fine-tuning method.", "method", True)
    # asked of anything else, every sentence may answer
    assert states_limitation("We propose ConPress, a fine-tuning method.", "method", own=False)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "author", "who"),
    [
        ("what are the limitations of certified circuits?", "Alaa Anani", "Anani et al."),
        ("what are the weaknesses of ConPress?", "Jie Deng", "Deng et al."),
    ],
)
def test_the_answer_says_the_abstract_states_none(
    real_seed_index: Index, question: str, author: str, who: str
) -> None:
    answer = api.ask(question, index=real_seed_index, backend=None)
    first = answer.answer.splitlines()[0]
    assert first.startswith(f"The abstract of {who}") and "does not state" in first, answer.answer
    assert author in {c.hit.paper.authors[0] for c in answer.citations}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "author"),
    [
        ("what are the limitations of fair ERM?", "Xiaoyi MAI"),  # the approach the paper fixes
        ("Where does Adaptive Sequential Monte Carlo (ASMC) fail?", "Ke Wang"),  # it says
    ],
)
def test_a_limitation_an_abstract_states_is_the_answer(
    real_seed_index: Index, question: str, author: str
) -> None:
    answer = api.ask(question, index=real_seed_index, backend=None)
    assert "does not state" not in answer.answer, answer.answer
    assert prompts.NOT_STATED_ONE.split("{")[0] not in answer.answer.splitlines()[0]
    assert answer.citations[0].hit.paper.authors[0] == author, answer.answer


@pytest.mark.slow
def test_a_model_sentence_that_states_none_is_not_the_answer(real_seed_index: Index) -> None:
    from tests.fakes import FakeLLM

    llm = FakeLLM()  # the bundled model wrote the sentence that introduces ConPress
    llm.enqueue("ConPress is a lightweight self-supervised fine-tuning approach [1].")
    answer = api.ask("what are the weaknesses of ConPress?", index=real_seed_index, backend=llm)
    first = answer.answer.splitlines()[0]
    assert first.startswith("The abstract of Deng et al.") and "does not state" in first
    assert answer.notice is not None  # the model's answer was replaced, and the page says so


def _after(index: Index, first: str, then: str) -> api.Answer:
    previous = api.ask(first, index=index, backend=None)
    history = [
        {"role": "user", "content": first},
        {"role": "assistant", "content": previous.answer},
    ]
    return api.ask(then, index=index, backend=None, history=history)


@pytest.mark.slow
@pytest.mark.parametrize("then", ["limitations?", "any weaknesses?"])
def test_a_terse_follow_up_on_limitations_is_of_the_papers_method(
    real_seed_index: Index, then: str
) -> None:
    # A new user's "limitations?" after ConPress quoted "ConPress identify a reproducible ...
    # phenomenon" as if it were one: asked of the paper, it is asked of its own method.
    answer = _after(real_seed_index, "what is ConPress?", then)
    first = answer.answer.splitlines()[0]
    assert first.startswith("The abstract of Deng et al.") and "does not state" in first, (
        answer.answer
    )


@pytest.mark.parametrize(
    "question",
    ["numbers?", "any numbers?", "so, any hard numbers?", "what numbers do they report?", "stats"],
)
def test_a_terse_request_for_numbers_asks_for_a_number(question: str) -> None:
    from rag.answer.compose import Kind, question_kind

    assert question_kind(question) is Kind.NUMBER
    assert question_kind(f"{question.rstrip('?')} (ConPress)?") is Kind.NUMBER


def test_numbers_as_a_topic_word_is_not_a_request_for_them() -> None:
    from rag.answer.compose import Kind, question_kind

    assert question_kind("which papers handle large numbers of clients?") is Kind.LIST
    assert question_kind("numbers of clients in federated learning") is not Kind.NUMBER


@pytest.mark.slow
def test_numbers_after_an_answer_quote_the_sentence_with_them(real_seed_index: Index) -> None:
    # "numbers?" after ConPress and LDPVR gave the sentence on how ConPress builds its prompts.
    first = "which papers discuss compression of chain-of-thought reasoning?"
    answer = _after(real_seed_index, first, "numbers?")
    assert "59%" in answer.answer, answer.answer
