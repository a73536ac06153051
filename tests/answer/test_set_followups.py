"""Follow-ups over a set of papers: "which of them ...", "the others", none of them qualifies.

Real MiniLM over the seeds: the choice among the papers listed is the per-paper judgement on
the follow-up's own words (sessions from the fitting part of bench/data/set_followups.jsonl).
"""

from __future__ import annotations

from typing import Any

import pytest

from rag import api, prompts
from rag.answer.history import Turn
from rag.answer.paper_sets import spells_out
from rag.index.paper_index import Index
from tests.answer.chat_turns import chat, first_authors, session


def paper_of(index: Index, author: str) -> Any:
    return next(p for p in index.papers.values() if p.authors[0] == author)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("questions", "listed", "picked"),
    [
        (
            ["Which papers work with the KV cache?", "Which of them uses it during RL training?"],
            {"Xin Teng", "Ke Wang", "Yizhi Li"},
            ["Yizhi Li"],  # TreePO; ASMC only matches RL-trained reasoners by sampling
        ),
        (  # the second choice is among the list again, not among the first choice's answer
            [
                "Which papers combine LLMs with formal verification or symbolic proof?",
                "Which one checks its proofs in Lean?",
                "Which one trains with policy optimization?",
            ],
            {"Chuxue Cao", "Ruobing Zuo"},
            ["Chuxue Cao"],
        ),
    ],
)
def test_which_of_them_after_a_list_picks_among_that_list(
    real_seed_index: Index, questions: list[str], listed: set[str], picked: list[str]
) -> None:
    answers = session(real_seed_index, questions)
    assert set(first_authors(answers[0])) == listed
    assert first_authors(answers[-1]) == picked
    assert prompts.NONE_IN_SET not in answers[-1].answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("questions", "picked"),
    [
        # "which is ..." was searched over the collection (the four GNN papers)
        (["Which papers deal with domain shift?", "which is on graphs?"], ["Hourun Li"]),
        # "its" after "which" is the paper asked for, not the last answer's first paper
        (
            [
                "Which papers combine LLMs with formal verification or symbolic proof?",
                "which checks its proofs in Lean?",
            ],
            ["Ruobing Zuo"],
        ),
    ],
)
def test_which_as_the_subject_picks_among_the_list(
    real_seed_index: Index, questions: list[str], picked: list[str]
) -> None:
    answers = session(real_seed_index, questions)
    assert first_authors(answers[-1]) == picked
    assert prompts.NONE_IN_SET not in answers[-1].answer


@pytest.mark.slow
def test_least_weighs_no_more_than_most(real_seed_index: Index) -> None:
    # "least" counted as a topic word no paper holds: "None of the papers listed earlier says
    # this", while TreePO reports its compute saved ("the most compute" was answered so).
    answers = session(
        real_seed_index, ["what's new in reasoning models", "which one uses the least compute?"]
    )
    assert "Yizhi Li" in first_authors(answers[-1])
    assert not answers[-1].abstained


@pytest.mark.slow
def test_which_of_them_after_a_single_paper_answer_judges_that_paper(
    real_seed_index: Index,
) -> None:
    # The case: the GNN list kept ICGNN alone, and "which of them is about fairness?"
    # became "which of ICGNN is about fairness?" and repeated ICGNN.
    icgnn = paper_of(real_seed_index, "Wei Ju")
    listed = Turn(
        "Which papers deal with noisy labels on graphs?",
        "- Ju et al. (ICGNN) harness the graph structure against noisy labels [1].",
        (icgnn,),
    )
    history = [listed]
    fairness = api.ask(
        "Which of them is about fairness?", index=real_seed_index, backend=None, history=history
    )
    # one paper listed: "The paper listed earlier is not about this", not "None of the papers"
    assert fairness.answer.splitlines()[0] == prompts.NONE_IN_SET_ONE
    assert "Wei Ju" not in first_authors(fairness)
    assert set(first_authors(fairness)) & {"Hourun Li", "Xiaoyi MAI"}, fairness.answer
    kept = api.ask(
        "Which of them uses the graph structure?",
        index=real_seed_index,
        backend=None,
        history=history,
    )
    assert first_authors(kept) == ["Wei Ju"]
    assert prompts.NONE_IN_SET_ONE not in kept.answer


@pytest.mark.slow
def test_none_of_the_set_says_so_in_one_line_and_gives_the_paper_outside_it(
    real_seed_index: Index,
) -> None:
    listed, _, auctions = session(
        real_seed_index,
        [
            "Bayesian methods in the collection?",
            "Which one uses martingale posteriors?",
            "Are any of them about auctions?",
        ],
    )
    assert set(first_authors(listed)) == {"Luwei Wang", "Valentyn Melnychuk"}
    assert auctions.answer.splitlines()[0] == prompts.NONE_IN_SET
    assert first_authors(auctions) == ["Haoran Sun"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("questions", "none_line", "outside"),
    [
        # a new user (stop 67): a line of each of the four papers, none on RoPE ("Deployment is
        # the bottleneck"), and never a paper that uses it
        (
            ["protein folding", "what about transformers then?", "do they use RoPE?"],
            prompts.NONE_IN_SET,
            {"Zichong Li", "Xin Teng"},
        ),
        (["what is ConPress?", "does it use GRPO?"], prompts.NONE_IN_SET_ONE, {"wenlong deng"}),
    ],
)
def test_a_method_none_of_the_papers_names_is_offered_from_the_rest(
    real_seed_index: Index, questions: list[str], none_line: str, outside: set[str]
) -> None:
    answers = session(real_seed_index, questions)
    assert answers[-1].answer.splitlines()[0] == none_line, answers[-1].answer
    assert first_authors(answers[-1]) and set(first_authors(answers[-1])) <= outside


@pytest.mark.slow
@pytest.mark.parametrize(
    ("questions", "authors"),
    [
        # ...while a name the papers hold keeps the question theirs, as before
        (["what does Deng et al. report about GRPO?", "does it use GRPO?"], ["wenlong deng"]),
        # or spell out: "directly used for supervised fine-tuning" (a reviewer)
        (["what is ConPress?", "does it use SFT?"], ["Jie Deng"]),
        (["what is TreePO?", "does it use PPO?"], ["Yizhi Li"]),  # "proximal policy optimization"
    ],
)
def test_a_method_one_of_the_papers_names_is_asked_of_them(
    real_seed_index: Index, questions: list[str], authors: list[str]
) -> None:
    answers = session(real_seed_index, questions)
    assert prompts.NONE_IN_SET_ONE not in answers[-1].answer
    assert first_authors(answers[-1]) == authors


@pytest.mark.parametrize(
    ("acronym", "text", "spelled"),
    [
        ("SFT", "These are directly used for supervised fine-tuning.", True),
        ("PPO", "both global and local proximal policy optimization.", True),
        ("MoE", "Mixture-of-Experts routing discontinuities", True),
        ("RoPE", "rotary position embeddings", True),
        ("SFT", "we fine-tune the model", False),
        ("GRPO", "group relative policy gradients", False),
        ("X", "x-rays", False),  # one letter spells nothing
    ],
)
def test_an_acronym_is_spelled_out_by_its_words_initials(
    acronym: str, text: str, spelled: bool
) -> None:
    assert spells_out(acronym, text) is spelled


@pytest.mark.slow
def test_a_choice_nothing_answers_does_not_say_the_collection_lacks_the_papers(
    real_seed_index: Index,
) -> None:
    listed, fastest = chat(real_seed_index, ["federated learning papers", "which one is fastest?"])
    assert listed.citations
    # The listed papers are in the collection: "The collection has no paper on this" is untrue.
    # "fastest" only ranks them: what each says, after a line that no abstract says which is
    # fastest (stop 62; before, it abstained with NONE_IN_SET_NOR_ELSEWHERE).
    assert not fastest.abstained
    assert fastest.answer.splitlines()[0] == prompts.NONE_RANKS_SET.format(words="fastest")
    assert set(first_authors(fastest)) == set(first_authors(listed)), fastest.answer


@pytest.mark.slow
@pytest.mark.parametrize("ask", [session, chat], ids=["api", "chat"])
def test_the_other_after_a_choice_is_the_rest_of_the_list(real_seed_index: Index, ask: Any) -> None:
    listed, chosen, other = ask(
        real_seed_index,
        [
            "tree rollouts vs particle sampling for LLM reasoning",
            "Which one is used for training?",
            "And the other?",
        ],
    )
    assert set(first_authors(listed)) == {"Yizhi Li", "Ke Wang"}
    assert first_authors(chosen) == ["Yizhi Li"]
    assert first_authors(other) == ["Ke Wang"]


@pytest.mark.slow
def test_the_others_after_a_choice_from_a_longer_list(real_seed_index: Index) -> None:
    listed, chosen, others = session(
        real_seed_index,
        [
            "Which papers work with the KV cache?",
            "Which one targets tail latency of sampling?",
            "What about the others?",
        ],
    )
    assert first_authors(chosen) == ["Ke Wang"]
    assert set(first_authors(others)) == set(first_authors(listed)) - {"Ke Wang"}


@pytest.mark.slow
@pytest.mark.parametrize(
    "questions",
    [
        ["graph neural networks with noisy labels", "what about the others?"],
        ["Tell me about ConPress.", "and the rest?"],
    ],
)
def test_the_others_after_a_whole_set_never_repeat_it_and_never_deny_it(
    real_seed_index: Index, questions: list[str]
) -> None:
    # Before, "what about the others?" after the one ICGNN answer searched "what about ICGNN?"
    # and showed ICGNN again.
    first, others = session(real_seed_index, questions)
    shown = set(first_authors(first))
    assert shown and not set(first_authors(others)) & shown
    if others.abstained:  # said as "no other", never as "no paper on this"
        assert others.answer == prompts.NO_OTHER


@pytest.mark.slow
@pytest.mark.parametrize(
    ("questions", "left_out", "kept"),
    [
        (  # before: Deng et al. and TreePO, both trained with RL (a new user, stop 60)
            ["does reinforcement learning improve LLM reasoning?", "which of them do not use RL?"],
            {"wenlong deng", "Yizhi Li"},
            {"Ziyue Li"},  # PoLar: training-free
        ),
        (
            ["which papers study graph neural networks?", "which of them are not about fairness?"],
            {"Hourun Li"},  # CELL
            {"Wei Ju", "Yifan Wang", "Yumeng Zhao"},
        ),
    ],
)
def test_which_of_them_do_not_is_the_rest_of_the_list(
    real_seed_index: Index, questions: list[str], left_out: set[str], kept: set[str]
) -> None:
    first, then = session(real_seed_index, questions)
    cited = set(first_authors(then))
    assert kept <= cited and not left_out & cited, then.answer
    assert (left_out | kept) <= set(first_authors(first))
    assert then.answer.startswith("Of the papers listed earlier, "), then.answer
    assert "the others are below." in then.answer.split("\n")[0]


@pytest.mark.slow
def test_which_of_them_needs_no_x_is_asked_of_the_list(real_seed_index: Index) -> None:
    # "needs", not "need": read as a choice on "training", it offered Zhao et al.'s graph
    # prompting as the collection's best paper on it (a new user, stop 65)
    first, then = session(
        real_seed_index,
        [
            "which papers try to make LLM reasoning cheaper, e.g. shorter chains of thought?",
            "which of them needs no training?",
        ],
    )
    assert len(first.citations) > 1, first.answer
    assert set(first_authors(then)) <= set(first_authors(first)), then.answer
    assert not then.answer.startswith(prompts.NONE_IN_SET.split(";")[0]), then.answer


@pytest.mark.slow
def test_which_of_them_do_not_says_so_when_each_of_them_does(real_seed_index: Index) -> None:
    first, then = session(
        real_seed_index,
        ["which papers study graph neural networks?", "which of them are not about graphs?"],
    )
    assert set(first_authors(then)) == set(first_authors(first))
    assert then.answer.startswith(prompts.EACH_IN_SET_DOES.format(words="“graphs”"))
    first, then = session(
        real_seed_index,
        ["which papers study graph neural networks?", "which of them don't use quantum computing?"],
    )
    assert set(first_authors(then)) == set(first_authors(first))
    assert then.answer.startswith(prompts.NONE_IN_SET_DOES.format(words="“quantum computing”"))


@pytest.mark.slow
def test_other_papers_that_use_the_topic_s_words_are_not_denied(real_seed_index: Index) -> None:
    # IndexGuard opens "Federated parameter-efficient fine-tuning ...", yet the per-paper
    # judgement does not list it: "The previous answer showed every paper in the collection on
    # this; no other one is" was untrue (a new user, stop 60). It is listed first among the
    # nearest others, after a line that says what the judgement found.
    first, others = session(
        real_seed_index, ["which papers are about federated learning?", "any other papers on that?"]
    )
    if "Javad Dogani" not in first_authors(first):
        assert others.answer == prompts.NO_OTHER
        assert others.nearest[0].paper.authors[0] == "Javad Dogani"


@pytest.mark.slow
def test_which_one_does_not_is_the_one_that_says_it_does_without(real_seed_index: Index) -> None:
    # CELL works "without requiring target sensitive labels": it is the answer, not one judged
    # to need them because it names them (found by this stop's guards).
    first, then = session(
        real_seed_index,
        ["anything on fairness?", "which one doesn't need sensitive labels in the target domain?"],
    )
    assert "Hourun Li" in first_authors(first)
    assert first_authors(then) == ["Hourun Li"], then.answer


@pytest.mark.slow
def test_other_papers_on_the_sets_question_leave_out_every_paper_shown_since(
    real_seed_index: Index,
) -> None:
    # After an answer on ExPLAIND and Certified Circuits, then on the first one's limitation,
    # "are there any other papers on this?" searched the first question again and gave
    # Certified Circuits, shown two turns before (a new user).
    answers = session(
        real_seed_index,
        [
            "Tell me about interpretability work",
            "what's the main limitation of the first one?",
            "are there any other papers on this?",
        ],
    )
    shown = {a for answer in answers[:2] for a in first_authors(answer)}
    assert {"Florian Eichin", "Alaa Anani"} <= shown
    others = answers[2]
    assert not set(first_authors(others)) & shown, others.answer
    assert not {h.paper.authors[0] for h in others.nearest} & shown, others.answer


@pytest.mark.slow
def test_a_question_naming_one_of_the_set_keeps_the_set(real_seed_index: Index) -> None:
    # "what does IDFT do?" after the federated-learning list was taken for a question of its
    # own: "are there any other papers on this?" then searched "what does IDFT do?" (a new
    # user's re-trial), and an ordinal would have ranged over IDFT alone.
    first, _, others, second = session(
        real_seed_index,
        [
            "papers on federated learning?",
            "what does IDFT do?",
            "are there any other papers on this?",
            "the second one",
        ],
    )
    assert len(first.citations) >= 2
    assert others.standalone == "papers on federated learning?"
    assert not set(first_authors(others)) & set(first_authors(first))
    assert first_authors(second) == [first.citations[1].hit.paper.authors[0]]


@pytest.mark.slow
def test_an_ordinal_counts_in_the_latest_list_shown(real_seed_index: Index) -> None:
    # A new user (stop 63): after the choice listed three of the eight LLM papers, "the second
    # one" was the second of the eight (TRM), not the second of the three on screen.
    _, reasoning, second = session(
        real_seed_index,
        [
            "papers on large language models",
            "which of them are about reasoning?",
            "the second one — how do they do it?",
        ],
    )
    assert len(reasoning.citations) >= 2
    assert first_authors(second) == [reasoning.citations[1].hit.paper.authors[0]]


@pytest.mark.slow
@pytest.mark.parametrize("ask", [session, chat], ids=["api", "chat"])
@pytest.mark.parametrize(
    ("first", "choice", "words"),
    [
        # a new user's probe (stop 62): the rest of the collection's paper on "faster", the
        # BP-vs-ZO paper's "34.8% faster convergence", was offered
        ("token pruning for VLMs", "which is faster?", "faster"),
        ("which papers speed up LLM inference?", "which one is cheapest?", "cheapest"),
        ("graph neural networks", "which of them is the most accurate?", "accurate"),
    ],
)
def test_a_choice_that_only_ranks_the_papers_listed_stays_with_them(
    real_seed_index: Index, ask: Any, first: str, choice: str, words: str
) -> None:
    listed, ranked = ask(real_seed_index, [first, choice])
    assert set(first_authors(ranked)) <= set(first_authors(listed)), ranked.answer
    assert first_authors(ranked), ranked.answer
    opening = ranked.answer.split("\n")[0]
    assert words in opening and "rest of the collection" not in ranked.answer, ranked.answer
    assert "does not seem to address" not in ranked.answer, ranked.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "choice", "picked"),
    [
        # stop 62's review: a choice one paper of the set answers is not a ranking of them,
        # and "less memory" names a topic
        ("mechanistic interpretability papers", "which of them is more accurate?", "Alaa Anani"),
        ("which papers speed up LLM inference?", "which one uses less memory?", "Ali Abbasi"),
    ],
)
def test_a_choice_one_paper_answers_is_no_ranking(
    real_seed_index: Index, first: str, choice: str, picked: str
) -> None:
    _, chosen = chat(real_seed_index, [first, choice])
    assert first_authors(chosen) == [picked], chosen.answer
    assert "No abstract of the papers listed earlier" not in chosen.answer
