"""A choice among the last answer's papers quotes each picked paper on the choice's own words.

"Which one is on graphs?" is rewritten with the papers' names for the search ("Which of CURE
and CELL is on graphs?"); the sentence shown for the picked paper is chosen on "is on graphs",
so it says what the paper was picked for, not its generic experiments line.
"""

from __future__ import annotations

import re

import pytest

from rag.index.paper_index import Index
from tests.answer.chat_turns import chat, first_authors


@pytest.mark.parametrize(
    ("first", "pick", "author", "said"),
    [
        (
            "Which papers deal with domain shift?",
            "Which one is on graphs?",
            "Hourun Li",
            r"\bgraph",
        ),
        (
            "Which papers study transformers on Markov chains?",
            "Which of them looks at training dynamics?",
            "Oğuz Yüksel",
            r"\b(?:training|dynamics)\b",
        ),
    ],
)
@pytest.mark.slow
def test_a_picked_paper_is_quoted_on_what_it_was_picked_for(
    real_seed_index: Index, first: str, pick: str, author: str, said: str
) -> None:
    _, chosen = chat(real_seed_index, [first, pick])
    assert first_authors(chosen) == [author], chosen.answer
    assert re.search(said, chosen.answer, re.IGNORECASE), chosen.answer
