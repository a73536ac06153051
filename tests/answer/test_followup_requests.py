"""Follow-ups that point at several listed papers at once, or ask for a paper's BibTeX entry.

"compare the first two" after a list was asked of the fourth paper alone, and "give me the
bibtex for the first one" quoted a background sentence (a new user's chat trial, stop 57).
"""

from __future__ import annotations

import pytest

from rag import prompts
from rag.answer.condense import described_reference
from rag.answer.history import Turn
from rag.index.paper_index import Index
from rag.records import Paper
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


@pytest.mark.slow
def test_a_paper_named_by_its_topic_is_the_one_the_conversation_showed(
    real_seed_index: Index,
) -> None:
    # Before: "No paper's title or abstract uses “back”", then the federated-unlearning paper
    # for its "retrain gap" (a new user's chat trial, stop 57).
    turns = [
        "compressing large language models with SVD",
        "what's the weather in Berlin tomorrow?",
        "back to the compression paper - does it need retraining?",
    ]
    one, _, three = chat(real_seed_index, turns)
    assert first_authors(one) == ["Ali Abbasi"], one.answer
    assert first_authors(three) == ["Ali Abbasi"], three.answer
    assert "back" not in three.answer, three.answer


SHOWN = Paper.create(authors=["Ann Lee"], abstract="We propose AlphaNet, a model for graphs.")


@pytest.mark.parametrize(
    ("message", "described"),
    [
        ("how does it differ from the paper on skipping layers?", "skipping layers"),
        ("what sets it apart and the paper on auctions?", "auctions"),
        ("it vs. the paper on 3D vision", "3D vision"),
        # the topic's end is not known, or it is a pronoun: no description (stop 62's review)
        ("what does the paper on unlearning find?", None),
        ("compare it with the one on fairness they mentioned?", None),
        ("compare it with the paper on it", None),
    ],
)
def test_a_paper_described_by_its_topic_after_it(message: str, described: str | None) -> None:
    found = described_reference(message, [Turn("graphs", "AlphaNet works [1].", (SHOWN,))], None)
    assert (found.described if found else None) == described


@pytest.mark.slow
@pytest.mark.parametrize(
    ("turns", "both"),
    [
        # a new user's probe (stop 62): asked of MePo alone, "does not seem to address this"
        (["what's new in continual learning?", "ok and what about auctions",
          "compare it with the continual learning one"], {"Guanglong Sun", "Haoran Sun"}),
        (["continual learning", "auctions",
          "how does this one differ from the continual learning paper?"],
         {"Guanglong Sun", "Haoran Sun"}),
        # the described paper not shown before (stop 62's blind re-trial): CELL alone
        (["What is CLINIC?", "compare it with the graph fairness one"],
         {"Yifan Wang", "Hourun Li"}),
        # its topic after it: asked of ZS-SVD alone
        (["low rank SVD compression of LLMs",
          "how does that differ from the paper on skipping layers?"],
         {"Ali Abbasi", "Ziyue Li"}),
    ],
)  # fmt: skip
def test_a_pointer_before_a_described_paper_sets_the_last_paper_beside_it(
    real_seed_index: Index, turns: list[str], both: set[str]
) -> None:
    *_, last, compared = chat(real_seed_index, turns)
    assert len(set(first_authors(last)) & both) == 1, last.answer
    assert set(first_authors(compared)) == both, compared.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("turns", "only"),
    [
        # stop 62's review: no comparison, so "they" is the described paper's
        (["graph neural networks", "what do they find in the graph prompting paper?"],
         "Yumeng Zhao"),
        (["continual learning", "auctions", "which of them is the continual learning paper?"],
         "Guanglong Sun"),
    ],
)  # fmt: skip
def test_a_pointer_in_a_question_that_compares_nothing_is_the_described_paper(
    real_seed_index: Index, turns: list[str], only: str
) -> None:
    *_, described = chat(real_seed_index, turns)
    assert first_authors(described) == [only], described.answer


@pytest.mark.slow
def test_a_paper_described_as_the_subject_is_the_one_asked_about(real_seed_index: Index) -> None:
    # "the paper on X" where its topic's end is not known is left as typed, not cut before
    # "find" ("what does IDFT?")
    _, found = chat(
        real_seed_index, ["federated learning", "what does the paper on unlearning find?"]
    )
    assert first_authors(found) == ["Canran Xiao"], found.answer
    assert "find" in (found.standalone or "what does the paper on unlearning find?")


@pytest.mark.slow
def test_a_paper_named_by_a_topic_none_shown_is_on_is_searched(real_seed_index: Index) -> None:
    one, two = chat(
        real_seed_index,
        ["LLMs for math theorem proving?", "and the logic verification one — which benchmarks?"],
    )
    assert "Chuxue Cao" not in first_authors(one), one.answer
    assert first_authors(two) == ["Chuxue Cao"], two.answer


@pytest.mark.slow
def test_a_bibtex_request_naming_no_paper_is_of_the_last_answer(real_seed_index: Index) -> None:
    # Before: "No paper's title or abstract uses “export” or “BibTeX”" (a blind trial, stop 57).
    one, two = chat(
        real_seed_index,
        ["Which papers study federated learning?", "Thanks. Can you export both as BibTeX?"],
    )
    assert first_authors(two) == first_authors(one) and len(first_authors(one)) == 2, two.answer
    assert two.answer.count("@misc{") == 2, two.answer


@pytest.mark.slow
def test_papers_named_by_their_topic_after_a_change_of_topic(real_seed_index: Index) -> None:
    # Before: "No paper's title or abstract uses “back” or “threat”", and "How would I cite the
    # federated one in LaTeX?" said the collection has no paper on it.
    turns = [
        "Which papers study federated learning?",
        "Unrelated: anything on neuroscience data such as calcium imaging?",
        "Going back to the federated papers, what threat model do they assume?",
        "How would I cite the federated one in LaTeX?",
    ]
    one, _, three, four = chat(real_seed_index, turns)
    assert first_authors(three) == first_authors(one), three.answer
    assert "back" not in three.answer.split(".")[0], three.answer
    assert set(first_authors(four)) <= set(first_authors(one)) and four.citations, four.answer
    assert "```bibtex" in four.answer, four.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    "follow_up",
    ["how do they compare?", "compare the two papers", "what's the difference between the two?",
     "do both use adversarial training?",
     # before: "Is CELL better?", and "none of the papers listed earlier says this"
     "which of the two is better?"],
)  # fmt: skip
def test_a_pair_asked_of_after_one_paper_each_is_both_papers(
    real_seed_index: Index, follow_up: str
) -> None:
    # Before: "how do CELL compare?" (one paper), and "compare the two papers" was searched as
    # typed and answered from the auctions, zero-order and clustering papers (stop 58 trial).
    turns = ["what does the paper on fair ERM find?", "is there another paper on fairness?"]
    one, two, three = chat(real_seed_index, [*turns, follow_up])
    assert len(one.citations) == len(two.citations) == 1, (one.answer, two.answer)
    assert first_authors(three) == [*first_authors(one), *first_authors(two)], three.answer


@pytest.mark.slow
def test_what_it_found_after_a_topic_is_the_papers_finding(real_seed_index: Index) -> None:
    # Before: "what did graph out-of-distribution detection find?", which repeated the last
    # answer's method sentences, one of them from the noisy-label paper (stop 58 trial).
    turns = ["ok, what about graph out-of-distribution detection?", "what did it find?"]
    one, two = chat(real_seed_index, turns)
    assert first_authors(two) == first_authors(one)[:1], two.answer
    assert "detection" not in (two.standalone or ""), two.standalone
    assert two.sentences[0]["text"] != one.sentences[0]["text"], two.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("turns", "follow_up"),
    [
        (["What is NSPI?", "Any paper that interleaves formal logic verification with LLM "
          "generation?"], "Both use symbolic methods - how do they differ?"),
        (["What is CELL?", "What is DiP-G?"], "Which is better?"),
        (["Why does GRPO training collapse in tool-integrated RL?", "How does TreePO reduce "
          "rollout cost?"], "Could the two be combined?"),
    ],
)  # fmt: skip
def test_a_pair_asked_of_in_other_words_is_both_papers(
    real_seed_index: Index, turns: list[str], follow_up: str
) -> None:
    # A blind trial's pair follow-ups, asked of the last paper alone (stop 58).
    one, two, three = chat(real_seed_index, [*turns, follow_up])
    assert len(one.citations) == len(two.citations) == 1, (one.answer, two.answer)
    assert set(first_authors(three)) == {*first_authors(one), *first_authors(two)}, three.answer
