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
