"""A follow-up asking its papers something in words of its own, which no sentence of theirs is
about, is told so.

"is it safe?" after ConPress was answered with ConPress's 59% sentence as if it answered, and
"Did they test on ImageNet?"-like follow-ups with whichever sentence had not been shown yet
(two blind trials, stop 57). A sentence taken because it was not said yet now counts as an
answer only when it passes the question-relevance check on the follow-up's words, without the
papers' names; otherwise the answer opens with `prompts.NOT_ADDRESSED_ONE`. A request for the
gist ("tl;dr?") or a comparison names nothing to look for, and gets no such note.
"""

from __future__ import annotations

import pytest

from rag import prompts
from rag.index.paper_index import Index
from tests.answer.chat_turns import chat, first_authors

NOT_ADDRESSED = prompts.NOT_ADDRESSED_ONE.format(who="Deng et al. (ConPress)").split(";")[0]


@pytest.mark.slow
@pytest.mark.parametrize("follow_up", ["is it safe?", "does it protect privacy?"])
def test_words_no_sentence_of_its_paper_is_about_are_said_to_be_unaddressed(
    real_seed_index: Index, follow_up: str
) -> None:
    _, two = chat(real_seed_index, ["what is ConPress?", follow_up])
    assert first_authors(two) == ["Jie Deng"], two.answer
    assert two.answer.startswith(NOT_ADDRESSED), two.answer


@pytest.mark.slow
@pytest.mark.parametrize("follow_up", ["what about speed?", "how fast is it?", "tl;dr?", "eli5"])
def test_a_follow_up_its_paper_answers_or_that_asks_for_the_gist_has_no_note(
    real_seed_index: Index, follow_up: str
) -> None:
    # ConPress's abstract says nothing of speed, but its 59% fewer reasoning tokens answer it.
    _, two = chat(real_seed_index, ["what is ConPress?", follow_up])
    assert first_authors(two) == ["Jie Deng"], two.answer
    assert not two.answer.startswith(NOT_ADDRESSED), two.answer
