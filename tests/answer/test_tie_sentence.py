"""A paper's line holds what ties it to the question, not only what the paper found.

Asked about a topic one sentence of a paper names (a component, the problem it solves), the
sentence choice put the paper's finding first, and the finding may hold none of the question's
words: the answer then said nothing about what was asked. `rag.answer.compose.tie_sentence`
adds the sentence that does, after the finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from rag.answer import compose
from rag.answer.compose import tie_sentence
from rag.answer.pipeline import answer
from rag.backends.base import Prompt
from rag.index.paper_index import Index
from tests.answer.chat_turns import chat
from tests.fakes import FakeLLM

KV = "which papers discuss the cost of the KV cache?"


def _relevance(question_terms: list[str]) -> Any:
    return SimpleNamespace(terms=question_terms, rarity=None)


PAIRS = [
    ("Graph models are widely used in biology.", "background"),
    ("We propose a graph pruning method.", "method"),
    ("Experiments show it beats every baseline.", "result"),
]


def test_a_line_without_the_question_s_words_gets_the_sentence_with_them() -> None:
    relevance = _relevance(["graph", "prune"])
    tie = tie_sentence(relevance, PAIRS, [0.0, 0.5, 1.0], PAIRS[2][0], among_others=False)
    assert tie == PAIRS[1][0]


def test_a_line_that_holds_a_question_word_gets_nothing_more() -> None:
    relevance = _relevance(["graph", "baselin"])
    assert tie_sentence(relevance, PAIRS, [0.0, 0.5, 1.0], PAIRS[2][0], False) is None


def test_a_line_that_holds_only_a_generic_word_of_the_question_gets_the_tie() -> None:
    # IDF-weighted: "model" is in most papers, the others in one (stop 62: TRM's guarantee was
    # the whole line for "Do mixture-of-experts models route tokens well?")
    relevance = SimpleNamespace(
        terms=["mixtur", "expert", "rout", "model"],
        rarity={"mixtur": 3.0, "expert": 3.0, "rout": 3.0, "model": 0.1},
    )
    pairs = [
        ("Pipelines suffer from mixture of experts routing discontinuities.", "background"),
        ("We propose a masking method for the model.", "method"),
        ("The model gains stability on long horizons.", "result"),
    ]
    tie = tie_sentence(relevance, pairs, [0.0, 0.5, 1.0], pairs[2][0], among_others=False)
    assert tie == pairs[0][0]


def test_among_several_papers_the_field_s_background_comes_last() -> None:
    relevance = _relevance(["graph"])
    ranks = [2.0, 0.5, 1.0]  # the background ranks first on its own
    assert tie_sentence(relevance, PAIRS, ranks, PAIRS[2][0], among_others=True) == PAIRS[1][0]
    assert tie_sentence(relevance, PAIRS, ranks, PAIRS[2][0], among_others=False) == PAIRS[0][0]
    # ... yet it is taken when it is the only sentence on the question's words
    only = _relevance(["biolog"])
    assert tie_sentence(only, PAIRS, ranks, PAIRS[2][0], among_others=True) == PAIRS[0][0]


def test_a_fragment_never_ties() -> None:
    pairs = [("To determine whether graph pruning helps.", "objective"), *PAIRS[1:]]
    relevance = _relevance(["prune"])
    assert tie_sentence(relevance, pairs, [3.0, 0.5, 1.0], PAIRS[2][0], False) == PAIRS[1][0]


def _lines(result: Any) -> dict[str, list[str]]:
    """Each cited paper's first author, with every shown sentence that cites it."""
    by_n = {c.n: c.hit.paper for c in result.citations}
    lines: dict[str, list[str]] = {}
    for s in result.sentences:
        if s.get("shown") and not s.get("note"):
            for n in s.get("citations", []):
                lines.setdefault(by_n[n].authors[0], []).append(s["text"])
    return lines


@pytest.mark.slow
def test_every_cited_paper_s_line_says_what_it_has_on_the_kv_cache(
    real_seed_index: Index,
) -> None:
    result = answer(real_seed_index, KV, settings=real_seed_index.settings, backend=None)
    cited = {c.hit.paper.authors[0]: c.hit.paper for c in result.citations}
    lines = _lines(result)
    holding = [a for a, p in cited.items() if "cache" in p.abstract.lower()]
    assert len(holding) >= 2, result.answer
    for author in holding:
        assert any("cache" in s.lower() for s in lines[author]), (author, result.answer)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "author", "word"),
    [
        ("Do mixture-of-experts models route tokens well?", "Yingru Li", "mixture-of-experts"),
        ("distributed training staleness", "Yingru Li", "staleness"),
    ],
)
def test_a_line_holding_only_a_common_word_of_the_question_is_tied_to_it(
    real_seed_index: Index, question: str, author: str, word: str
) -> None:
    result = answer(real_seed_index, question, settings=real_seed_index.settings, backend=None)
    lines = _lines(result)
    assert author in lines, result.answer
    assert any(word in s.lower() for s in lines[author]), result.answer


@pytest.mark.slow
def test_the_finding_still_opens_each_line(
    real_seed_index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = real_seed_index.settings
    after = _lines(answer(real_seed_index, KV, settings=settings, backend=None))
    monkeypatch.setattr(compose, "TIE_SHARE", 1.01)  # no tie sentence: the line as it was
    before = _lines(answer(real_seed_index, KV, settings=settings, backend=None))
    assert before.keys() == after.keys()
    assert {a: s[0] for a, s in before.items()} == {a: s[0] for a, s in after.items()}
    assert any(len(after[a]) > len(before[a]) for a in after)


class _CopiesTheFinding(FakeLLM):
    """A small model's habit: it copies the first source's finding, which holds none of the
    question's words."""

    def generate(self, prompt: Prompt, **kwargs: object) -> Iterator[str]:  # type: ignore[override]
        block = re.search(r"^\[(\d+)\] [^\n]*TreePO", prompt.user, re.M)
        assert block, prompt.user
        finding = "TreePO reveals a practical path toward scaling RL-based post-training"
        self.enqueue(f"{finding} with fewer samples and less compute [{block.group(1)}].")
        yield from super().generate(prompt, **kwargs)  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_model_sentence_off_the_question_s_words_gets_the_paper_s_tie(
    real_seed_index: Index,
) -> None:
    question = "does TreePO do anything about the KV cache?"
    result = answer(
        real_seed_index, question, settings=real_seed_index.settings, backend=_CopiesTheFinding()
    )
    lines = _lines(result)
    treepo = next(a for a in lines if a == "Yizhi Li")
    assert any("practical path" in s for s in lines[treepo]), result.answer  # the model's
    assert any("KV cache" in s for s in lines[treepo]), result.answer  # and the tie


@pytest.mark.slow
def test_a_tie_goes_on_with_the_model_s_synthesis_not_under_the_other_papers(
    real_seed_index: Index,
) -> None:
    # The tie of the paper the model quoted was the answer's last bullet, after the other
    # papers' lines, so the paper seemed listed twice.
    result = answer(
        real_seed_index,
        "Which papers work with the KV cache?",
        settings=real_seed_index.settings,
        backend=_CopiesTheFinding(),
    )
    paragraphs = result.answer.split("\n")
    assert "practical path" in paragraphs[0] and "KV cache" in paragraphs[0], result.answer
    assert len(paragraphs) > 1 and all(p.startswith("- ") for p in paragraphs[1:]), result.answer


def test_the_sentence_holding_more_of_the_question_ties_before_a_higher_ranked_one() -> None:
    pairs = [
        ("A Markov chain of recursive steps simplifies the state.", "method"),
        ("Chain-of-thought prompting is extended to images.", "background"),
        ("Experiments show it beats every baseline.", "result"),
    ]
    relevance = _relevance(["chain", "thought"])
    tie = tie_sentence(relevance, pairs, [2.0, 0.0, 1.0], pairs[2][0], among_others=False)
    assert tie == pairs[1][0]  # both words, though the choice ranks the Markov chain higher


@pytest.mark.slow
def test_a_one_paper_answer_with_a_note_and_a_tie_is_one_plain_line(
    real_seed_index: Index,
) -> None:
    question = "how much faster is CELL on sensitive attributes?"
    result = answer(real_seed_index, question, settings=real_seed_index.settings, backend=None)
    assert len(result.citations) == 1, result.answer
    assert len(_lines(result)["Hourun Li"]) == 2, result.answer  # the line and its tie
    assert "\n- " not in result.answer, result.answer


@pytest.mark.slow
def test_background_that_ties_a_paper_is_marked_as_background(real_seed_index: Index) -> None:
    # CELL's only sentence on adversarial learning is what prior methods do, which CELL
    # departs from: shown unmarked under CELL, it read as CELL's own method.
    question = "which papers use adversarial learning?"
    result = answer(real_seed_index, question, settings=real_seed_index.settings, backend=None)
    cell = _lines(result)["Hourun Li"]
    prior = [s for s in cell if "prior methods rely on adversarial learning" in s]
    assert prior and all(s.startswith(compose.BACKGROUND) for s in prior), result.answer


@pytest.mark.slow
def test_a_tie_under_the_model_s_synthesis_does_not_stand_for_a_stated_number(
    real_seed_index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No abstract states the number: every paper keeps its line under the note. Before, the
    # tie of the paper the model quoted counted as stating it, and the other lines were dropped.
    monkeypatch.setattr(compose, "states_number", lambda sentence: False)
    question = "by how much do these papers reduce the KV cache cost?"
    result = answer(
        real_seed_index,
        question,
        settings=real_seed_index.settings,
        backend=_CopiesTheFinding(),
    )
    lines = _lines(result)
    assert "Yizhi Li" in lines and len(lines) >= 2, result.answer


@pytest.mark.slow
def test_asked_again_about_what_a_tie_showed_the_paper_says_it_again(
    real_seed_index: Index,
) -> None:
    # TreePO's only sentence on the KV cache was shown as a tie; the follow-up used to get a
    # sentence not said yet instead, with nothing on the KV cache in it.
    _, two = chat(real_seed_index, [KV, "what does the first one say about the KV cache?"])
    assert any("KV cache" in s for s in _lines(two)["Yizhi Li"]), two.answer


class _ParaphrasesIndexGuard(FakeLLM):
    """A small model's habit: it paraphrases a finding, dropping the question's words."""

    def generate(self, prompt: Prompt, **kwargs: object) -> Iterator[str]:  # type: ignore[override]
        block = re.search(r"^\[(\d+)\] [^\n]*IndexGuard", prompt.user, re.M)
        assert block, prompt.user
        self.enqueue(
            "IndexGuard provides end-to-end mitigation, preserving clean accuracy and performance "
            f"comparable to centralized methods [{block.group(1)}]."
        )
        yield from super().generate(prompt, **kwargs)  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_paper_s_tie_is_not_the_sentence_the_model_just_paraphrased(
    real_seed_index: Index,
) -> None:
    result = answer(
        real_seed_index,
        "privacy attacks on federated learning",
        settings=real_seed_index.settings,
        backend=_ParaphrasesIndexGuard(),
    )
    lines = _lines(result)["Javad Dogani"]
    assert any("end-to-end mitigation, preserving clean accuracy and" in s for s in lines)
    assert not any("Across attacks, backbones" in s for s in lines), result.answer
