"""A question naming two papers or more by their method names is answered from each of them.

"Certified Circuits versus ExPLAIND" cited Certified Circuits alone: MiniLM reads the question
mostly as its first name, so the second paper's cosine fell far below the first's.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from rag import api, prompts
from rag.answer.named_papers import method_of, named_papers
from rag.index.paper_index import Index
from rag.records import Paper
from tests.answer.chat_turns import first_authors


def _paper(pid: str, label: str) -> Paper:
    return Paper(pid, ("A B",), "An abstract.", label=label, label_derived=True)


CELL = _paper("c", "Li et al. — CELL")
TRM = _paper("t", "Li et al. — TRM")
CIRCUITS = _paper("x", "Anani et al. — Certified Circuits")
UNNAMED = _paper("u", "Cao et al.")
GRAPH_MAMBA = _paper("gm", "Wu et al. — Graph Mamba")
MAMBA = _paper("m", "Gu et al. — Mamba")
VAE_ONE, VAE_TWO = _paper("v1", "Ng et al. — VAE"), _paper("v2", "Ho et al. — VAE")


def _index() -> Any:
    papers = (CELL, TRM, CIRCUITS, UNNAMED, GRAPH_MAMBA, MAMBA, VAE_ONE, VAE_TWO)
    return SimpleNamespace(papers={p.id: p for p in papers})


def test_the_method_name_comes_from_a_derived_label() -> None:
    assert method_of(CIRCUITS) == "Certified Circuits"
    assert method_of(UNNAMED) is None
    titled = Paper("p", ("A B",), "x", title="A Title", label="A Title")
    assert method_of(titled) is None


@pytest.mark.parametrize(
    ("question", "ids", "rest"),
    [
        ("CELL vs TRM", {"c", "t"}, "vs"),
        ("How do Certified Circuits and TRM differ?", {"x", "t"}, "How do and differ?"),
        ("Graph Mamba vs Mamba", {"gm", "m"}, "vs"),  # the longer name first
        ("TRM's guarantee vs CELL's", {"t", "c"}, "'s guarantee vs 's"),
    ],
)
def test_two_names_name_two_papers(question: str, ids: set[str], rest: str) -> None:
    named = named_papers(_index(), question)
    assert named is not None
    assert {p.id for p in named[0]} == ids and named[1] == rest


def test_a_name_an_abstract_defines_and_uses_names_its_paper() -> None:
    polar = Paper(
        "p",
        ("A B",),
        "We reveal dynamic program-of-layers (PoLar). PoLar skips "
        "layers; PoLar improves accuracy over GRPO (GRPO).",
        label="Li et al.",
        label_derived=True,
    )
    grpo = Paper(
        "g",
        ("C D",),
        "Group relative policy optimization (GRPO) with GRPO and GRPO again.",
        label="Ng et al.",
        label_derived=True,
    )
    titled = Paper(
        "t",
        ("E F",),
        "We propose ICGNN, a graph model.",
        title="Robust graphs",
        label="Robust graphs",
    )
    index = SimpleNamespace(papers={p.id: p for p in (polar, grpo, titled, CELL)})
    named = named_papers(index, "PoLar vs ICGNN vs CELL")
    assert named is not None and [p.id for p in named[0]] == ["p", "t", "c"]
    # "GRPO" is written by two abstracts: a term of the field, no paper's name
    assert named_papers(index, "GRPO vs CELL") is None


@pytest.mark.parametrize(
    "question",
    [
        "What is CELL?",
        "cell biology and TRM",
        "certified circuits vs trm",
        "Cao et al. vs TRM",
        "What is Graph Mamba?",  # one paper, though "Mamba" is another's name too
        "VAE vs TRM",  # a name two papers share names neither
    ],
)
def test_one_name_or_a_name_not_as_written_leaves_it_to_search(question: str) -> None:
    assert named_papers(_index(), question) is None


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "authors"),
    [
        ("How do ConPress and LDPVR differ?", {"Jie Deng", "Yuesen Tang"}),
        ("Compare TRM with TreePO", {"Yingru Li", "Yizhi Li"}),
        ("ExPLAIND or Certified Circuits: which one explains a model better?",
         {"Florian Eichin", "Alaa Anani"}),
        # PoLar's label shows no name ("Li et al."); its abstract defines "(PoLar)" and uses it
        ("ZS-SVD vs PoLar", {"Ali Abbasi", "Ziyue Li"}),
        ("FmAD or PoLar?", {"Kunjal Panchal", "Ziyue Li"}),
    ],
)  # fmt: skip
def test_a_comparison_cites_every_paper_it_names(
    real_seed_index: Index, question: str, authors: set[str]
) -> None:
    answer = api.ask(question, index=real_seed_index)
    assert set(first_authors(answer)) == authors, answer.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "follow_up", "authors"),
    [
        ("what is CLINIC?", "how does it compare to CELL?", {"Yifan Wang", "Hourun Li"}),
        ("what is CLINIC?", "is it faster than ICGNN?", {"Yifan Wang", "Wei Ju"}),
        ("what does TreePO do?", "and how does that compare to TRM?", {"Yizhi Li", "Yingru Li"}),
        # "Teng et al." has no method name: the rewrite "how does Teng et al. compare to ASMC?"
        # named ASMC alone, and the answer left the paper the user named out (a new user)
        ("what does Teng et al. find?", "how does it compare to ASMC?", {"Xin Teng", "Ke Wang"}),
        # a message opening on what it sets the last paper beside (a new user's re-trial: "vs
        # TreePO?" was searched alone and answered from TreePO)
        ("what does Deng et al. report about GRPO?", "vs TreePO?", {"wenlong deng", "Yizhi Li"}),
        ("what is CLINIC?", "compared with CELL?", {"Yifan Wang", "Hourun Li"}),
    ],
)
def test_a_follow_up_naming_another_paper_asks_it_too(
    real_seed_index: Index, first: str, follow_up: str, authors: set[str]
) -> None:
    # After an answer on CLINIC, "how does it compare to CELL?" was asked of CLINIC alone
    # ("how does CLINIC compare to CELL?"), and CELL, named by the user, was not cited.
    answer = api.ask(first, index=real_seed_index, backend="extractive")
    second = api.ask(
        follow_up, index=real_seed_index, backend="extractive", history=[(first, answer)]
    )
    assert set(first_authors(second)) == authors, (second.standalone, second.answer)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "follow_up", "authors"),
    [
        # a new user (stop 67): the same two papers again, the token-merging paper never cited
        ("LLM compression methods", "vs visual token reduction?",
         {"Ali Abbasi", "Jie Deng", "Hyeonwoo Cho"}),
        ("what is TreePO?", "versus sourdough baking?", {"Yizhi Li"}),  # no paper on it joins
        # words that frame a topic name none: "the baseline" brought in nine papers (a reviewer)
        ("LLM compression methods", "vs the baseline?", {"Ali Abbasi", "Jie Deng"}),
    ],
)  # fmt: skip
def test_a_follow_up_setting_the_answer_beside_a_topic_asks_that_topic_s_papers_too(
    real_seed_index: Index, first: str, follow_up: str, authors: set[str]
) -> None:
    second = _asked_after(real_seed_index, first, follow_up)
    assert set(first_authors(second)) == authors, (second.standalone, second.answer)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("follow_up", "authors"),
    [
        # before: searched "and ICGNN — is CLINIC also about OOD?" and answered from CLINIC
        ("and ICGNN — is it also about OOD?", {"Wei Ju"}),
        ("what about CELL, does it need sensitive labels?", {"Hourun Li"}),
        ("and the Ju et al. paper: what does it do about noise?", {"Wei Ju"}),
        # in the pronoun's own clause the name is another paper: "it" is still CLINIC
        ("does CELL beat it?", {"Hourun Li", "Yifan Wang"}),
    ],
)
def test_a_pronoun_after_a_paper_the_message_names_is_that_paper(
    real_seed_index: Index, follow_up: str, authors: set[str]
) -> None:
    second = _asked_after(real_seed_index, "What is CLINIC?", follow_up)
    assert set(first_authors(second)) == authors, (second.standalone, second.answer)


def _asked_after(index: Index, first: str, follow_up: str) -> api.Answer:
    answer = api.ask(first, index=index, backend="extractive")
    return api.ask(follow_up, index=index, backend="extractive", history=[(first, answer)])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("follow_up", "authors"),
    [
        # before: searched "Going back to circuits — how are D'Angelo et al. and Yüksel
        # certified?" and answered from the induction-head papers
        ("Going back to circuits — how are they certified?", {"Alaa Anani"}),
        ("ok, and on federated unlearning: how do they make it fast?", {"Canran Xiao"}),
    ],
)
def test_a_pronoun_after_a_topic_the_message_names_is_that_topics(
    real_seed_index: Index, follow_up: str, authors: set[str]
) -> None:
    first = "how do transformers learn induction heads on Markov chains?"
    second = _asked_after(real_seed_index, first, follow_up)
    assert set(first_authors(second)) == authors, (second.standalone, second.answer)


@pytest.mark.slow
def test_a_bare_ordinal_before_a_dash_points_back(real_seed_index: Index) -> None:
    # "Back to the first — does it ...?" after fairness papers was asked of the second one
    first = "What does the collection have on fairness?"
    answer = api.ask(first, index=real_seed_index, backend="extractive")
    shown = first_authors(answer)
    second = api.ask(
        "Back to the first — does it need sensitive attributes in the target domain?",
        index=real_seed_index,
        backend="extractive",
        history=[(first, answer)],
    )
    assert first_authors(second) == shown[:1], (second.standalone, second.answer)


@pytest.mark.slow
def test_a_clause_naming_no_topic_of_the_papers_leaves_the_pronoun_to_the_last_answer(
    real_seed_index: Index,
) -> None:
    # "ok in English: what is its main contribution?" after a Chinese turn: "English" is in no
    # paper, so "its" is still the continual-learning paper (the trial replay caught it).
    turns = [
        "What papers deal with continual learning?",
        "它的主要贡献是什么？",  # noqa: RUF001
        "ok in English: what is its main contribution?",
    ]
    history: list[tuple[str, api.Answer]] = []
    for turn in turns:
        answer = api.ask(turn, index=real_seed_index, backend="extractive", history=history)
        history.append((turn, answer))
    assert first_authors(answer) == ["Guanglong Sun"], (answer.standalone, answer.answer)


@pytest.mark.slow
@pytest.mark.parametrize("question", ["Teng et al. vs ASMC", "CELL versus CLINIC"])
def test_names_alone_ask_nothing_the_papers_do_not_address(
    real_seed_index: Index, question: str
) -> None:
    # "Teng et al. vs ASMC" opened with "These abstracts do not seem to address this": the
    # papers' own names were read as words the question asks of them.
    answer = api.ask(question, index=real_seed_index, backend="extractive")
    assert len(answer.citations) == 2, answer.answer
    assert prompts.NOT_ADDRESSED not in answer.answer, answer.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "addressed"),
    [("does ASMC support API fees?", False), ("is ASMC cheaper than Gemini?", True)],
)
def test_one_name_asked_what_no_paper_holds_is_asked_of_that_paper(
    real_seed_index: Index, question: str, addressed: bool
) -> None:
    # "does ASMC support API fees?" was told the collection had no paper on it and that none
    # came near (a new user, stop 65): the paper it names is asked, after a line saying which
    # words no paper uses.
    answer = api.ask(question, index=real_seed_index, backend="extractive")
    assert not answer.abstained and first_authors(answer) == ["Ke Wang"], answer.answer
    assert answer.answer.startswith("No paper's title or abstract uses"), answer.answer
    assert ("does not seem to address" in answer.answer) is not addressed, answer.answer


@pytest.mark.slow
def test_a_question_the_search_answers_is_not_asked_of_the_paper_it_names(
    real_seed_index: Index,
) -> None:
    # The route above only where no paper would answer: "defend" is in no abstract, yet the
    # search answers from IndexGuard as before (the first try asked IndexGuard and quoted its
    # background after "No paper ... uses 'defend'").
    question = "How does IndexGuard defend against backdoor poisoning in federated PEFT?"
    answer = api.ask(question, index=real_seed_index, backend="extractive")
    assert first_authors(answer) == ["Javad Dogani"], answer.answer
    assert not answer.answer.startswith("No paper's title or abstract uses"), answer.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "Besides TreePO, which papers study protein folding?",
        "papers like ConPress on quantum chemistry",
    ],
)
def test_one_name_beside_a_request_for_other_papers_asks_the_collection(
    real_seed_index: Index, question: str
) -> None:
    # (the review of stop 65) these ask for papers on the other words, not of the one named:
    # the answer says that what follows is only the nearest
    answer = api.ask(question, index=real_seed_index, backend="extractive")
    assert "only the nearest" in answer.answer.split("\n")[0], answer.answer


@pytest.mark.slow
def test_a_follow_up_naming_one_paper_keeps_the_paper_it_points_at(
    real_seed_index: Index,
) -> None:
    # "how does it compare to ASMC on API fees?" after Teng et al. was asked of ASMC alone
    # (the review of stop 65): naming one paper in a follow-up adds it
    first = api.ask(
        "which papers speed up RAG by recomputing KV caches?", index=real_seed_index, backend=None
    )
    second = api.ask(
        "how does it compare to ASMC on API fees?",
        index=real_seed_index,
        backend=None,
        history=[("which papers speed up RAG by recomputing KV caches?", first)],
    )
    assert set(first_authors(first)) <= set(first_authors(second)), second.answer
    assert "Ke Wang" in first_authors(second), second.answer
