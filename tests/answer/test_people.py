"""A question that names people is about their papers, read from the collection's authors.

"Which papers has Wei Ju co-authored?" was told that the collection has no paper on it, and
"what do Ju et al. find?" was answered from CELL first. Names are matched against the authors
the index holds (full names, or the "Ju et al." label the answers show), or a surname that label
shows when it is no word of the papers ("the Shen paper" was answered from two other papers), or
one only one author has ("papers by Yüksel" left out the paper he is second author of).
"""

from __future__ import annotations

import unicodedata
from types import SimpleNamespace
from typing import Any

import pytest

from rag import api, prompts
from rag.answer.compose import already_said
from rag.answer.evidence import paper_sentence_roles
from rag.answer.people import named_people
from rag.index.paper_index import Index
from rag.index.retrieve import Filters
from rag.records import Paper
from tests.answer.chat_turns import first_authors


def _index(*papers: Paper) -> Any:
    return SimpleNamespace(papers={p.id: p for p in papers})


GRAPH = Paper("g", ("Wei Ju", "Yifan Wang", "Ming Zhang"), "We study graphs.")
PAIR = Paper("f", ("Xiaoyi MAI", "Jean-Michel Loubes"), "We study fairness.")
ALONE = Paper("m", ("Oğuz Yüksel",), "We study Markov chains.")
WORDS = Paper("w", ("Will Long", "Can Li", "Ann Bee"), "We study why batteries last long.")
BEE = Paper("b", ("Ann Bee",), "We study stings.")


@pytest.mark.parametrize(
    ("question", "ids", "rest"),
    [
        ("Which papers has Wei Ju co-authored?", {"g"}, "Which papers has co-authored?"),
        ("what do Ju et al. find?", {"g"}, "what do find?"),
        ("MAI and Loubes on fairness", {"f"}, "on fairness"),
        ("jean-michel loubes", {"f"}, ""),
        ("oguz yuksel's results", {"m"}, "results"),  # accents and case folded
        ("Ming Zhang and Oğuz Yüksel", {"g", "m"}, "and"),
        ("What did Wei Ju et al. find?", {"g"}, "What did find?"),  # one name, the longer
        ("Papers by Wei Ju. Which use graphs?", {"g"}, "Papers by . Which use graphs?"),
        ("Will Long on batteries", {"w"}, "on batteries"),  # capitalised: a name
        # a surname the label shows, no word of the papers
        ("What does Yüksel show?", {"m"}, "What does show?"),
        ("what does the Ju paper find?", {"g"}, "what does find?"),
        ("in the Ju et al. paper, how is noise found?", {"g"}, "in , how is noise found?"),
        ("Loubes on fairness", {"f"}, "on fairness"),
        ("Ju", {"g"}, ""),
    ],
)
def test_full_names_and_answer_labels_name_people(question: str, ids: set[str], rest: str) -> None:
    people = named_people(_index(GRAPH, PAIR, ALONE, WORDS, BEE), question)
    assert people is not None
    assert {p.id for p in people.papers} == ids
    assert people.rest == rest


@pytest.mark.parametrize(
    "question",
    [
        "Wang on graphs",  # a co-author's surname: not in the label
        "Zhang on graphs",
        "graphs under label noise",
        "what does yuksel show?",  # a lone surname typed in lowercase
        "Long batteries: do they last?",  # a word of the papers ("batteries last long")
        "Bee stings and batteries",  # an English word opening the question
        "will long context windows help?",  # English words typed in lowercase
        "Can Li-ion batteries last longer?",  # joined to the next word
    ],
)
def test_a_lone_surname_or_no_name_names_nobody(question: str) -> None:
    assert named_people(_index(GRAPH, PAIR, ALONE, WORDS, BEE), question) is None


def test_a_surname_only_one_author_has_names_them_on_every_paper() -> None:
    # A new user (stop 67): "papers by Yüksel" gave his own paper, not D'Angelo et al.'s,
    # where he is the second author; "Wang", several people's, names none of them.
    chains = Paper("d", ("Francesco D'Angelo", "Oğuz Yüksel", "Tobias Lorenz"), "We study heads.")
    other_wang = Paper("o", ("Bo Kim", "Lei Wang", "Ann Cho"), "We study trees.")
    index = _index(GRAPH, PAIR, ALONE, WORDS, BEE, chains, other_wang)
    for question in ("papers by Yüksel", "What does Yüksel show?", "what did Yüksel study?"):
        people = named_people(index, question)  # "The collection holds 1 paper by Yüksel"
        assert people is not None and {p.id for p in people.papers} == {"m", "d"}, question
        assert people.names == ("Oğuz Yüksel",)
    the_paper = named_people(index, "what does the Yüksel paper show?")  # the label's, alone
    assert the_paper is not None and {p.id for p in the_paper.papers} == {"m"}
    # A surname no label shows names its author only as one ("papers by", "'s"): a reviewer
    # found "RAN slicing", "the Lorenz system" and "Fischer information" read as people.
    for question in ("papers by Lorenz", "what are Lorenz's results?"):
        people = named_people(index, question)
        assert people is not None and {p.id for p in people.papers} == {"d"}, question
    for question in ("papers on the Lorenz system", "Wang on graphs", "papers by Wang"):
        assert named_people(index, question) is None, question


def test_decomposed_accents_read_as_composed() -> None:
    decomposed = unicodedata.normalize("NFD", "what has Oğuz Yüksel shown?")
    people = named_people(_index(GRAPH, PAIR, ALONE, WORDS), decomposed)
    assert people is not None and [p.id for p in people.papers] == ["m"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "authors"),
    [
        # before: "The collection has no paper on this question."
        ("Which of the papers did Ming Zhang co-author?", {"Wei Ju", "Hourun Li"}),
        ("list everything written by Tao Ren", {"Yuhang Pei", "Yifan Wang"}),
        ("What do Zuo et al. conclude?", {"Ruobing Zuo"}),
        # before: "argue" read as a topic word, and Matveev's paper was given
        ("What do Mai and Loubes argue?", {"Xiaoyi MAI"}),
        # a topic among their papers: the one of theirs on it
        ("Zhiping Xiao on fairness", {"Hourun Li"}),
        # before: answered from RoPE self-distillation and graph prompting
        ("what does the Shen paper contribute?", {"Yujie Shen"}),
        ("what does the Matveev paper show?", {"Maria Matveev"}),  # before: ExPLAIND first
    ],
)
def test_a_question_naming_people_is_answered_from_their_papers(
    real_seed_index: Index, question: str, authors: set[str]
) -> None:
    answer = api.ask(question, index=real_seed_index)
    assert not answer.abstained, answer.answer
    assert set(first_authors(answer)) == authors, answer.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "first_line"),
    [
        (
            "Which of the papers did Ming Zhang co-author?",  # "co-author" names no topic
            "The collection holds 2 papers by Ming Zhang. Here is what each says.",
        ),
        (
            "anything written by Zuo et al. in here?",
            "The collection holds 1 paper by Zuo et al. Here is what it says.",
        ),
    ],
)
def test_their_papers_come_under_a_line_counting_them(
    real_seed_index: Index, question: str, first_line: str
) -> None:
    answer = api.ask(question, index=real_seed_index)
    assert answer.answer.split("\n")[0] == first_line, answer.answer


@pytest.mark.slow
def test_their_names_are_no_words_their_papers_must_address(real_seed_index: Index) -> None:
    # "papers by Wei Ju" went on "These abstracts do not seem to address this": "Wei" was read
    # as a word the question asks of the papers (a new user).
    answer = api.ask("papers by Wei Ju", index=real_seed_index, backend="extractive")
    lines = answer.answer.split("\n")
    assert lines[0] == "The collection holds 4 papers by Wei Ju. Here is what each says."
    assert prompts.NOT_ADDRESSED not in answer.answer and len(answer.citations) == 4


@pytest.mark.slow
def test_the_users_filters_hold_for_the_people_named(real_seed_index: Index) -> None:
    # ICGNN (no research area) and CELL (Graph Neural Networks) are Ming Zhang's papers.
    answer = api.ask(
        "Which of the papers did Ming Zhang co-author?",
        index=real_seed_index,
        filters=Filters(area="Graph Neural Networks"),
    )
    assert first_authors(answer) == ["Hourun Li"], answer.answer
    assert answer.answer.startswith("The collection holds 1 paper by Ming Zhang matching")


@pytest.mark.slow
def test_a_topic_none_of_their_papers_is_about_is_said_so(real_seed_index: Index) -> None:
    answer = api.ask("Has Tianyi Zhou worked on protein structure?", index=real_seed_index)
    assert answer.answer.startswith(
        "The collection holds 2 papers by Tianyi Zhou, none of them on the question's topic."
    ), answer.answer
    assert set(first_authors(answer)) == {"Ziyue Li", "Xin Teng"}, answer.answer


@pytest.mark.slow
def test_a_topic_another_paper_answers_is_given_from_it_after_saying_so(
    real_seed_index: Index,
) -> None:
    # "calcium imaging" alone is answered from CalM (one paper past answer_probability): before,
    # Ziniu Li's two papers were listed as the answer instead.
    answer = api.ask("Did Ziniu Li do anything with calcium imaging?", index=real_seed_index)
    assert answer.answer.startswith("No paper by Ziniu Li in the collection is about this")
    assert first_authors(answer) == ["Xinhong Xu"], answer.answer


@pytest.mark.slow
@pytest.mark.parametrize("question", ["what does Teng et al. show?", "What did Teng et al. show?"])
def test_what_their_paper_shows_is_a_finding(real_seed_index: Index, question: str) -> None:
    # "show" did not ask for a finding, and the line was the abstract's opening background.
    answer = api.ask(question, index=real_seed_index, backend="extractive")
    assert first_authors(answer) == ["Xin Teng"], answer.answer
    roles = dict(paper_sentence_roles(answer.citations[0].hit.paper))
    shown = [s for s in roles if already_said(s, answer.answer)]
    assert shown and all(roles[s] in ("result", "conclusion") for s in shown), answer.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    ["summarize the findings of Teng et al.", "What were the outcomes of Teng et al.?"],
)
def test_how_a_question_about_their_paper_is_asked_names_no_topic(
    real_seed_index: Index, question: str
) -> None:
    # "findings" and "outcomes" were read as a topic no paper of Teng et al. holds ("No paper by
    # Teng et al. in the collection is about this"), then answered from ExPLAIND.
    answer = api.ask(question, index=real_seed_index, backend="extractive")
    assert first_authors(answer) == ["Xin Teng"], answer.answer
    assert "is about this" not in answer.answer, answer.answer


@pytest.mark.slow
def test_an_answer_from_some_of_their_papers_says_they_have_others(
    real_seed_index: Index,
) -> None:
    # Two papers are by "Deng et al." (ConPress and LLDS): the answer used one and gave no sign
    # that the name was ambiguous.
    answer = api.ask(
        "how many benchmarks did Deng et al. evaluate on?", index=real_seed_index, backend=None
    )
    assert len(answer.citations) == 1, answer.answer
    assert answer.answer.split("\n")[0] == (
        "The collection holds 2 papers by Deng et al.; the answer is from the one on this question."
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "authors"),
    [
        # before: "No paper by MAI & Loubes in the collection is about this", above CELL alone
        (
            "how do CELL and MAI & Loubes differ in their approach to fairness?",
            {"Xiaoyi MAI", "Hourun Li"},
        ),
        # of the two Deng et al. papers, the one on GRPO (not ConPress)
        ("what do Deng et al. and TreePO say about GRPO?", {"wenlong deng", "Yizhi Li"}),
    ],
)
def test_people_and_a_method_named_together_are_both_asked(
    real_seed_index: Index, question: str, authors: set[str]
) -> None:
    answer = api.ask(question, index=real_seed_index, backend="extractive")
    assert {c.hit.paper.authors[0] for c in answer.citations} == authors, answer.answer
    assert "No paper by" not in answer.answer, answer.answer
