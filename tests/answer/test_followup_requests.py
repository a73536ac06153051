"""Follow-ups that point at several listed papers at once, or ask for a paper's BibTeX entry.

"compare the first two" after a list was asked of the fourth paper alone, and "give me the
bibtex for the first one" quoted a background sentence (a new user's chat trial, stop 57).
"""

from __future__ import annotations

import pytest

from rag import prompts
from rag.index.paper_index import Index
from tests.answer.chat_turns import chat, first_authors

# The openings of a note that the papers do not address what was asked.
NOT_ADDRESSED = tuple(
    note.split("{")[0].split(";")[0] for note in (prompts.NOT_ADDRESSED_ONE, prompts.NOT_ADDRESSED)
)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("follow_up", "places"),
    [("compare the first two", (0, 1)), ("how do the last two differ?", (-2, -1))],
)
def test_several_places_are_answered_with_each_papers_line(
    real_seed_index: Index, follow_up: str, places: tuple[int, int]
) -> None:
    one, two = chat(real_seed_index, ["LLM reasoning with reinforcement learning", follow_up])
    listed = first_authors(one)
    assert len(listed) >= 3, one.answer
    assert first_authors(two) == [listed[i] for i in places], two.answer
    assert not two.answer.startswith(NOT_ADDRESSED), two.answer


@pytest.mark.slow
@pytest.mark.parametrize("request_", ["give me the bibtex for it", "how do I cite it?"])
def test_a_bibtex_request_gets_the_entry(real_seed_index: Index, request_: str) -> None:
    _, two = chat(real_seed_index, ["what is ConPress?", request_])
    assert first_authors(two) == ["Jie Deng"], two.answer
    assert "```bibtex\n@misc{deng_conpress," in two.answer, two.answer
    assert "author    = {Deng, Jie" in two.answer, two.answer
