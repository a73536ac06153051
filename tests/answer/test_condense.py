"""Follow-up questions: rewritten into standalone ones, answered from the paper they mean."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag import api, prompts
from rag.answer.condense import condense, described_reference
from rag.answer.history import Turn, paper_name, set_turn, to_turns
from rag.answer.pipeline import answer
from rag.answer.references import asks_of_a_pair, refers_back, without_reference
from rag.answer.rendering import Answer
from rag.answer.rewrite import asked_of, rule_rewrite
from rag.index.paper_index import Index
from rag.ingest.pipeline import ingest
from rag.records import Paper
from rag.settings import Settings
from rag.ui import app as ui
from tests.fakes import FakeLLM

# A "which papers" question: its answer lists every paper on the topic, so there is a second one.
BROAD = "Which papers use graph neural networks on graph data?"
FOLLOW_UP = "what dataset did the second one use?"


@pytest.fixture
def seeded(fake_index: Index, seeds_copy: Path) -> Index:
    ingest([seeds_copy], fake_index)
    return fake_index


@pytest.fixture
def first(seeded: Index, settings: Settings) -> Answer:
    result = answer(seeded, BROAD, settings=settings, backend=None)
    assert len(result.citations) >= 2, result.answer
    return result


def paper(abstract: str, authors: tuple[str, ...] = ("Ann Lee",), label: str = "") -> Paper:
    return Paper.create(authors=list(authors), abstract=abstract, label=label)


ALPHA = paper(
    "We propose AlphaNet, a model for graphs. It is tested on Cora.", label="Lee — AlphaNet"
)
BETA = paper("We propose BetaGAN, a generator of molecules.", ("Bo Kim",), "Kim — BetaGAN")
TWO_PAPERS = [
    Turn("Which papers propose models?", "AlphaNet does [1]. BetaGAN does [2].", (ALPHA, BETA))
]


def test_a_follow_up_asked_of_a_paper_it_names_already_is_not_told_its_name_again() -> None:
    # Before: "how much does AlphaNet reduce tokens (AlphaNet)?" shown as what was searched
    assert asked_of("Why?", [ALPHA]).question == "Why (AlphaNet)?"
    named = asked_of("how much does AlphaNet reduce tokens?", [ALPHA])
    assert named.question == "how much does AlphaNet reduce tokens?" and named.papers == (ALPHA,)
    assert asked_of("does AlphaNet beat it?", [ALPHA, BETA]).question == (
        "does AlphaNet beat it (BetaGAN)?"
    )


def test_a_pair_after_two_answers_of_one_paper_each_is_both_and_replaced_whole() -> None:
    # "do the two papers agree?" became "do AlphaNet and BetaGAN papers agree?" (stop 58)
    turns = [Turn("What is AlphaNet?", "AlphaNet does [1].", (ALPHA,)),
             Turn("What is BetaGAN?", "BetaGAN does [1].", (BETA,))]  # fmt: skip
    result = rule_rewrite("do the two papers agree?", turns)
    assert result.question == "do AlphaNet and BetaGAN agree?" and result.papers == (ALPHA, BETA)
    assert rule_rewrite("what did they find?", turns).papers == (BETA,)  # the authors of one


@pytest.mark.parametrize(
    ("question", "pair"),
    [
        ("How do the two differ?", True),
        ("Could the two be combined?", True),
        ("Do these two both use graph neural networks?", True),
        ("Both use symbolic methods - how do they differ?", True),
        ("What does each of them send to the server?", True),
        ("Does either paper have experiments on real data?", True),
        ("Which is better?", True),
        ("how do they compare?", True),
        ("what did they find?", False),  # the authors of the last paper
        ("what are the two datasets?", False),  # things of the paper's
        ("does it work for both images and text?", False),
        ("Which dataset did they use?", False),
    ],
)
def test_a_question_asked_of_a_pair_is_told_from_one_of_its_authors(
    question: str, pair: bool
) -> None:
    # A blind trial's 30 pair follow-ups (stop 58): 15 were asked of the last paper alone.
    assert asks_of_a_pair(question) is pair


def test_them_after_one_paper_of_a_set_is_the_set() -> None:
    # A new user (stop 67): "give me a BibTeX for them" after "what did the second one find?"
    # exported the second paper alone; the plural meant both papers of the list.
    turns = [*TWO_PAPERS, Turn(FOLLOW_UP, "BetaGAN used QM9 [1].", (BETA,))]
    assert rule_rewrite("give me a BibTeX for them", turns).papers == (ALPHA, BETA)
    assert rule_rewrite("what did they find?", turns).papers == (BETA,)  # its authors
    # not what "them" is in other questions: the limitations just asked about (a reviewer)
    assert rule_rewrite("how could we address them?", turns).papers == (BETA,)
    alone = [Turn("What is BetaGAN?", "BetaGAN does [1].", (BETA,))]
    assert rule_rewrite("how do I cite them?", alone).papers == (BETA,)  # no set to mean


def test_the_second_one_is_the_paper_cited_second() -> None:
    result = rule_rewrite(FOLLOW_UP, TWO_PAPERS)
    assert result.papers == (BETA,)
    assert result.question == "what dataset did BetaGAN use?"
    assert result.method == "rule"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("what does the first paper report?", (ALPHA,)),
        ("and the last one?", (BETA,)),
        ("tell me more about paper 2", (BETA,)),
        ("what does [1] evaluate on?", (ALPHA,)),
        ("how does it work?", (ALPHA,)),
        ("which data did they use?", (ALPHA, BETA)),
        # A choice among the papers just cited, however long the question.
        ("Which one doesn't need labelled molecules from the target domain?", (ALPHA, BETA)),
        ("Which of them was evaluated on a citation network benchmark?", (ALPHA, BETA)),
    ],
)
def test_references_resolve_to_the_cited_papers(question: str, expected: tuple[Paper, ...]) -> None:
    assert rule_rewrite(question, TWO_PAPERS).papers == expected


@pytest.mark.parametrize(
    "question",
    [
        "and for molecules?",
        "What about solving PDEs?",
        "Now a different topic: recommendation systems?",
        "Which papers are about auctions?",
        "How do I get to the airport from downtown?",
        "Is it true that graph models overfit?",
    ],
)
def test_a_question_with_its_own_subject_is_searched_as_typed(question: str) -> None:
    # Gluing the previous question on made topic switches and off-topic questions search the
    # old topic (issue 12).
    result = rule_rewrite(question, TWO_PAPERS)
    assert (result.question, result.papers, result.method) == (question, (), "as-is")


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Which of those gives guarantees?", (ALPHA, BETA)),
        ("Which one is tested on Cora?", (ALPHA, BETA)),
        ("Tell me more.", (ALPHA, BETA)),
        ("Why?", (ALPHA, BETA)),
    ],
)
def test_a_question_without_its_own_subject_refers_to_the_last_answer(
    question: str, expected: tuple[Paper, ...]
) -> None:
    result = rule_rewrite(question, TWO_PAPERS)
    assert result.papers == expected
    assert "AlphaNet" in result.question and "BetaGAN" in result.question


@pytest.mark.parametrize(
    ("question", "rewritten"),
    [
        ("how do they work?", "how do AlphaNet and BetaGAN work?"),
        ("do they work on large graphs?", "do AlphaNet and BetaGAN work on large graphs?"),
        ("which of those papers uses Cora?", "which of AlphaNet and BetaGAN uses Cora?"),
    ],
)
def test_the_verb_after_they_is_kept(question: str, rewritten: str) -> None:
    # "work" is also a noun ("their work"), and was taken as the one "they" point at:
    # "how do they work?" was searched as "how do AlphaNet and BetaGAN?".
    assert rule_rewrite(question, TWO_PAPERS).question == rewritten


GAMMA = paper("We propose GammaRL, reinforcement learning for molecules.", ("Cy Park",), "Park")
THREE_PAPERS = Turn(
    "Which papers propose models?",
    "- AlphaNet does [1].\n- BetaGAN does [2].\n- GammaRL does [3].",
    (ALPHA, BETA, GAMMA),
    "Which papers propose models?",
)
# A choice among them answered with one paper: the set the next follow-up ranges over stays
# the list.
CHOSE_BETA = [
    THREE_PAPERS,
    Turn("Which of AlphaNet and BetaGAN and GammaRL makes molecules?", "BetaGAN does [1].",
         (BETA,), "Which one makes molecules?"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "papers", "words"),
    [
        ("Which one uses RL?", (ALPHA, BETA, GAMMA), "uses RL?"),
        ("Are any of them about auctions?", (ALPHA, BETA, GAMMA), "Are about auctions?"),
        ("Do any of these papers use graphs?", (ALPHA, BETA, GAMMA), "Do use graphs?"),
        ("Does either of them work on graphs?", (ALPHA, BETA, GAMMA), "Does work on graphs?"),
        # "studies" after "them" is the verb, not the noun of "those studies"
        ("Which of them studies molecules?", (ALPHA, BETA, GAMMA), "studies molecules?"),
        ("Which of those studies use RL?", (ALPHA, BETA, GAMMA), "use RL?"),
    ],
)  # fmt: skip
def test_a_choice_after_a_choice_ranges_over_the_list_with_its_own_words(
    question: str, papers: tuple[Paper, ...], words: str
) -> None:
    result = rule_rewrite(question, CHOSE_BETA)
    assert result.papers == papers
    assert result.pick == words


@pytest.mark.parametrize(
    ("question", "words"),
    [
        # "which" as the subject, before an auxiliary, and "the one that/about ...": a choice
        ("which is on graphs?", "is on graphs?"),
        ("and which has a proof?", "has a proof?"),
        ("which works on molecules?", "works on molecules?"),
        ("the one about auctions, what does it find?", "about auctions, what does it find?"),
    ],
)
def test_which_as_the_subject_is_a_choice_among_the_list(question: str, words: str) -> None:
    result = rule_rewrite(question, CHOSE_BETA)
    assert result.papers == (ALPHA, BETA, GAMMA)
    assert result.pick == words


def test_a_possessive_after_which_and_its_noun_still_means_the_last_papers() -> None:
    # Only "which checks its proofs?" refers its "its" to the "which"; here "their" is theirs.
    result = rule_rewrite("which datasets did their experiments use?", CHOSE_BETA)
    assert result.papers == (BETA,)


@pytest.mark.parametrize(
    ("question", "rewritten"),
    [
        (
            "so which one should I use?",
            "so which of AlphaNet and BetaGAN and GammaRL should I use?",
        ),
        ("and which is on graphs?", "and which of AlphaNet and BetaGAN and GammaRL is on graphs?"),
        ("Which one uses RL?", "Which of AlphaNet and BetaGAN and GammaRL uses RL?"),
    ],
)
def test_a_choice_is_rewritten_in_the_words_and_case_typed(question: str, rewritten: str) -> None:
    # "so which one should I use?" became "so Which of CPO should I use?"; "and which is ..."
    # lost its "and".
    assert rule_rewrite(question, CHOSE_BETA).question == rewritten


@pytest.mark.parametrize(
    "question",
    [
        "Which are the papers on federated learning?",  # the collection's papers
        "which datasets are used for graphs?",  # asks for datasets
        "which tokens should be recomputed in RAG?",
        "which papers use Lean?",
        # a topic switch that opens with "which is/are": not a choice among the list
        "which is better, DPO or PPO?",
        "which are the main challenges in federated learning?",
        "which are all the papers on diffusion?",
    ],
)
def test_which_before_a_noun_is_no_choice(question: str) -> None:
    assert rule_rewrite(question, CHOSE_BETA).pick is None


@pytest.mark.parametrize(
    ("question", "papers"),
    [
        ("And the other ones?", (ALPHA, GAMMA)),
        ("What does the other one find?", (ALPHA, GAMMA)),
        ("What about the rest?", (ALPHA, GAMMA)),
        ("the second one: what does it generate?", (BETA,)),  # the list's order
    ],
)
def test_the_others_and_ordinals_after_a_choice_refer_to_the_list(
    question: str, papers: tuple[Paper, ...]
) -> None:
    result = rule_rewrite(question, CHOSE_BETA)
    assert result.papers == papers
    assert result.pick is None


@pytest.mark.parametrize(
    ("question", "rewritten", "papers"),
    [
        # "it" stayed unresolved and the answer was about the other paper alone (stop 60)
        (
            "how does it compare to the other fairness paper?",
            "how does BetaGAN compare to AlphaNet and GammaRL?",
            (BETA, ALPHA, GAMMA),
        ),
        ("is it better than the first?", "is BetaGAN better than AlphaNet?", (BETA, ALPHA)),
        (
            "how does the third one compare to the first?",
            "how does GammaRL compare to AlphaNet?",
            (GAMMA, ALPHA),
        ),
    ],
)
def test_it_compared_to_another_of_the_list_is_both_papers(
    question: str, rewritten: str, papers: tuple[Paper, ...]
) -> None:
    result = rule_rewrite(question, CHOSE_BETA)
    assert result.question == rewritten
    assert result.papers == papers


def test_it_after_a_choice_that_found_none_is_the_list_chosen_among() -> None:
    # Before: "does it lose accuracy?" after "which is the fastest?" (no paper said) became
    # "does fastest lose accuracy?", then "it" was searched alone.
    found_none = Turn("which is the fastest?", "None of the papers listed earlier says this.", ())
    result = rule_rewrite("does it lose accuracy?", [*TWO_PAPERS, found_none])
    assert set(result.papers) == {ALPHA, BETA}
    assert "fastest" not in result.question


@pytest.mark.parametrize("question", ["what about the third one?", "and the fifth paper?"])
def test_an_ordinal_past_the_list_is_answered_as_such(question: str) -> None:
    # Before: "the third one" after two papers was read as "one" and asked of the first.
    result = rule_rewrite(question, TWO_PAPERS)
    word = "third" if "third" in question else "fifth"
    assert result.reply == prompts.NO_SUCH_PLACE.format(papers="2 papers", word=word, them="them")
    assert result.papers == () and result.pick is None
    assert rule_rewrite("what about the second one?", TWO_PAPERS).reply is None


@pytest.mark.parametrize(
    ("question", "paper", "asked"),
    [
        # before: "former" read as a topic word no paper uses, "no paper on this"
        ("what does the former get wrong?", "ALPHA", "what does ALPHA get wrong?"),
        ("the latter suffers from collapse, why?", "BETA", "BETA suffers from collapse, why?"),
        ("is the former better?", "ALPHA", "is ALPHA better?"),
    ],
)
def test_the_former_and_the_latter_are_the_list_s_first_and_last(
    question: str, paper: str, asked: str
) -> None:
    result = rule_rewrite(question, TWO_PAPERS)
    chosen = {"ALPHA": ALPHA, "BETA": BETA}[paper]
    assert result.papers == (chosen,)
    assert result.question == asked.replace(paper, paper_name(chosen))


@pytest.mark.slow
def test_its_after_a_list_names_the_first_paper_s(real_seed_index: Index) -> None:
    # Before: "what is MePo main contribution?" (the possessive lost in the rewrite).
    from tests.answer.chat_turns import chat

    _, second = chat(
        real_seed_index,
        ["What papers deal with continual learning?", "what is its main contribution?"],
    )
    assert second.standalone == "what is MePo's main contribution?", second.standalone


def test_a_name_of_several_authors_takes_a_plural_verb() -> None:
    # Before: "Deng et al. suffers from collapse — why?" was what the answer said it searched.
    several = paper("We study why training collapses.", ("Wen Deng", "Ann Lee"), "Deng et al.")
    assert paper_name(several) == "Deng et al."
    turns = [
        Turn("Which papers study collapse?", "AlphaNet [1]. Deng et al. [2].", (ALPHA, several))
    ]
    result = rule_rewrite("the latter suffers from collapse, why?", turns)
    assert result.question == "Deng et al. suffer from collapse, why?"
    assert rule_rewrite("the latter is unstable?", turns).question == "Deng et al. are unstable?"


def test_the_latter_before_a_noun_it_describes_is_no_reference() -> None:
    assert not refers_back("what happens in the latter half of training?")


@pytest.mark.parametrize(
    ("question", "points_back"),
    [
        # before: "does that need retraining?" after PoLar was searched as typed, and
        # "retraining" found the federated-unlearning paper
        ("does that need retraining?", True),
        ("can this run on a phone?", True),
        ("does this bot work?", False),  # "this" is the bot's
        ("can this tool export citations in BibTeX?", False),  # "tool" is a verb too
        ("does this dataset cover images?", False),
    ],
)
def test_that_before_a_verb_after_an_auxiliary_is_the_subject(
    question: str, points_back: bool
) -> None:
    assert refers_back(question) is points_back


def test_the_other_hand_and_these_papers_are_not_references() -> None:
    for question in (
        "On the other hand, what limits graph neural networks on molecules?",
        "What do these papers say about fairness?",
    ):
        assert rule_rewrite(question, CHOSE_BETA).method == "as-is"


def test_the_llm_is_not_asked_to_rewrite_a_self_contained_question() -> None:
    llm = FakeLLM()
    llm.enqueue("Which papers propose models for auctions?")
    result = condense("Which papers are about auctions?", TWO_PAPERS, backend=llm)
    assert result.question == "Which papers are about auctions?" and llm.history == []


def test_standalone_questions_stay_as_they_are() -> None:
    question = "How does the first stage of curriculum training affect graph neural networks?"
    assert rule_rewrite(question, TWO_PAPERS).question == question
    assert condense(FOLLOW_UP, []).method == "as-is"


def test_chat_messages_become_turns_and_numbers_are_looked_up() -> None:
    # What the UI keeps: escaped Markdown with links, an earlier answer unlinked.
    messages = [
        {"role": "user", "content": "Which papers propose models?"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "text",
                    "text": r"AlphaNet is a model for graphs \[1\]. "
                    '<a class="cite" href="#source-2">[2]</a> BetaGAN generates molecules '
                    '<a class="cite" href="#source-2">[2]</a>.\n\n*a notice*',
                }
            ],
        },
    ]
    (turn,) = to_turns(messages)
    assert turn.question == "Which papers propose models?"
    assert "notice" not in turn.answer and "[2]" in turn.answer
    looked_up: list[str] = []

    def resolve(text: str) -> Paper:
        looked_up.append(text)
        return BETA if "BetaGAN" in text else ALPHA

    result = condense(FOLLOW_UP, messages, resolve=resolve)
    assert result.papers == (BETA,)
    assert looked_up == ["BetaGAN generates molecules."]


def test_llm_rewrite_is_used_when_it_keeps_the_names() -> None:
    llm = FakeLLM()
    llm.enqueue("Which dataset did BetaGAN use?\n")
    result = condense(FOLLOW_UP, TWO_PAPERS, backend=llm)
    assert result.method == "llm"
    assert result.question == "Which dataset did BetaGAN use?"
    assert result.papers == (BETA,)
    assert "BetaGAN" in llm.history[0].user and FOLLOW_UP in llm.history[0].user


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "Which dataset did AlphaNet use?",  # the wrong paper
        "What is a dataset?",  # dropped the paper
        "Sure! Here is the question:\nWhat dataset did BetaGAN use?",
        " ".join(["BetaGAN dataset"] * 40),
    ],
)
def test_llm_rewrite_that_fails_the_guard_falls_back_to_the_rule(reply: str) -> None:
    llm = FakeLLM()
    llm.enqueue(reply)
    result = condense(FOLLOW_UP, TWO_PAPERS, backend=llm)
    assert result.method == "rule"
    assert result.question == "what dataset did BetaGAN use?"


def test_follow_up_answer_cites_the_second_paper(
    seeded: Index, settings: Settings, first: Answer
) -> None:
    second = first.citations[1].hit.paper
    result = answer(seeded, FOLLOW_UP, settings=settings, backend=None, history=[(BROAD, first)])
    assert not result.abstained
    assert result.question == FOLLOW_UP
    assert result.standalone is not None and paper_name(second) in result.standalone
    assert [c.hit.paper.id for c in result.citations] == [second.id]
    assert result.to_dict()["standalone_question"] == result.standalone


def test_follow_up_in_the_chat_cites_the_second_paper(
    seeded: Index, settings: Settings, first: Answer
) -> None:
    second = first.citations[1].hit.paper
    history, _ = list(ui.chat(BROAD, [], index=seeded, settings=settings, backend="extractive"))[-1]
    steps = list(ui.chat(FOLLOW_UP, history, index=seeded, settings=settings, backend="extractive"))
    history, cards = steps[-1]
    assert [m["role"] for m in history] == ["user", "assistant"] * 2
    assert 'href="#t0-source-1"' in history[-1]["content"]
    assert cards.count('class="source-card"') == 1
    assert second.citation_key in cards


def test_a_listed_answer_in_the_chat_is_read_line_by_line() -> None:
    # The chat keeps a "which papers" answer as one "- " line per paper; "[2]" is the second.
    history = [
        {"role": "user", "content": "Which papers propose models?"},
        {
            "role": "assistant",
            "content": "- AlphaNet is a model for graphs [1].\n- BetaGAN generates molecules [2].",
        },
    ]
    found = {"AlphaNet is a model for graphs.": ALPHA, "BetaGAN generates molecules.": BETA}
    result = rule_rewrite("what do they generate?", to_turns(history), found.get)
    assert result.papers == (ALPHA, BETA)


ONE_PAPER = [Turn("What is AlphaNet?", "AlphaNet does [1].", (ALPHA,), "What is AlphaNet?")]


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("which of them uses distillation?", "Does AlphaNet use distillation?"),
        ("Which one is about fairness?", "Is AlphaNet about fairness?"),
        ("Which of them are about graphs?", "Is AlphaNet about graphs?"),
        ("Which of those has theory?", "Does AlphaNet have theory?"),
        ("Which of them has been tested on graphs?", "Has AlphaNet been tested on graphs?"),
        ("Which of them focuses on graphs?", "Does AlphaNet focus on graphs?"),
        ("which of them can scale?", "Can AlphaNet scale?"),
        ("Which of them has shown gains?", "Has AlphaNet shown gains?"),
        ("Which of them has code?", "Does AlphaNet have code?"),
        ("Which of them does distillation?", "Does AlphaNet do distillation?"),
        # Nothing this can turn into a question of one paper: left as the set's choice.
        ("Which of them always uses graphs?", "Which of AlphaNet always uses graphs?"),
        ("None of them uses graphs?", "None of AlphaNet uses graphs?"),
    ],
)
def test_a_choice_among_one_paper_is_asked_of_that_paper(question: str, asked: str) -> None:
    # Not "which of AlphaNet uses distillation?": a set of one is asked about directly.
    result = rule_rewrite(question, ONE_PAPER)
    assert result.question == asked
    assert result.papers == (ALPHA,)


@pytest.mark.parametrize("question", ["What about the others?", "and the rest?", "The other ones?"])
def test_the_others_after_an_answer_that_showed_its_whole_set_leave_those_papers_out(
    question: str,
) -> None:
    # Before, "the others" after a one-paper answer named that same paper again.
    result = rule_rewrite(question, ONE_PAPER)
    assert result.question == "What is AlphaNet?"  # the set's own question, searched again
    assert result.excluded == (ALPHA,)
    assert result.papers == ()
    shown = [THREE_PAPERS]
    assert rule_rewrite(question, shown).excluded == (ALPHA, BETA, GAMMA)


@pytest.mark.parametrize(
    ("question", "own"),
    [
        ("what did the second one find?", "what did find?"),
        ("does paper 2 use tools?", "does use tools?"),
        ("and the others, what do they conclude?", "and , what do conclude?"),
        ("their main limitation?", "main limitation?"),
        ("what did the work on graphs find?", "what did the work on graphs find?"),
    ],
)
def test_a_follow_up_s_own_words_leave_out_what_points_back(question: str, own: str) -> None:
    assert without_reference(question) == own


KEYWORDS = [Turn("model design", "AlphaNet does [1]. BetaGAN does [2].", (ALPHA, BETA))]


@pytest.mark.parametrize(
    ("question", "rewritten"),
    [
        ("how is it evaluated?", "how is model design evaluated?"),
        ("why is it hard?", "why is model design hard?"),  # "it" here is no expletive
        ("so it's better?", "so model design's better?"),
        ("does it scale to large graphs?", "does model design scale to large graphs?"),
        ("how do they get it to scale?", "how do they get model design to scale?"),
    ],
)
def test_it_after_bare_words_answered_from_several_papers_is_those_words(
    question: str, rewritten: str
) -> None:
    # "privacy" answered from two papers, then "how is it protected?" was asked of the first
    # paper alone ("how is Guan et al. protected?"), which says nothing of protecting privacy.
    result = rule_rewrite(question, KEYWORDS)
    assert result.question == rewritten
    assert result.papers == (ALPHA, BETA)
    assert result.pick == rewritten  # each paper judged on the topic and the new words


@pytest.mark.parametrize(
    ("turns", "question"),
    [
        (TWO_PAPERS, "how is it evaluated?"),  # after "which papers ...", "it" is its first paper
        ([Turn("Which paper proposes a graph model?", "AlphaNet [1].", (ALPHA,))], "is it fast?"),
        ([Turn("is there a method for graphs?", "AlphaNet does [1].", (ALPHA,))], "is it fast?"),
        # asked for in other words: the pronoun is still the paper found
        (
            [
                Turn(
                    "I'm looking for the paper that proposes a graph model",
                    "AlphaNet [1].",
                    (ALPHA,),
                )
            ],
            "is it fast?",
        ),
        ([Turn("any paper on graph models?", "AlphaNet does [1].", (ALPHA,))], "is it fast?"),
        ([Turn("what method do people use for graphs?", "AlphaNet [1].", (ALPHA,))], "is it fast?"),
        (
            [Turn("I recall a framework which models graphs", "AlphaNet [1].", (ALPHA,))],
            "is it fast?",
        ),
        (KEYWORDS, "what is its main result?"),  # "its" after several papers: the first's
        (KEYWORDS, "how does that paper evaluate?"),
    ],
)
def test_it_after_asking_for_a_paper_is_the_first_paper(turns: list[Turn], question: str) -> None:
    result = rule_rewrite(question, turns)
    assert result.papers == (ALPHA,) and result.pick is None
    assert "AlphaNet" in result.question


@pytest.mark.parametrize(
    ("first", "question", "rewritten"),
    [
        (
            "what do we know about model design?",
            "why does it matter?",
            "why does model design matter (AlphaNet)?",
        ),
        ("is there work on model design?", "is it hard?", "is model design hard (AlphaNet)?"),
        ("any work on model design?", "is it hard?", "is model design hard (AlphaNet)?"),
        (
            "tell me about model design",
            "what is its aim?",
            "what is model design's aim (AlphaNet)?",
        ),
        ("model design", "how is it evaluated?", "how is model design evaluated (AlphaNet)?"),
        ("tell me about AlphaNet", "is it fast?", "is AlphaNet fast?"),  # named once
    ],
)
def test_it_after_a_question_on_a_topic_is_that_topic(
    first: str, question: str, rewritten: str
) -> None:
    # "what do these papers tell us about grokking", then "why does it happen?" was searched as
    # "why does ExPLAIND happen?" (bench/results/it_after_questions.md: 1 of 34 such follow-ups
    # read the topic). One paper stays the paper asked about, named after the topic's words.
    result = rule_rewrite(question, [Turn(first, "AlphaNet does [1].", (ALPHA,))])
    assert (result.question, result.papers, result.pick) == (rewritten, (ALPHA,), None)


def test_after_one_paper_its_sentences_are_judged_on_the_follow_up_asked_of_it() -> None:
    # "is reward hacking discussed anywhere?", then "how do they try to avoid it?": the topic is
    # searched, the sentences judged on "how do Cao et al. try to avoid it?" (not on "how do
    # they try to avoid Cao et al.?").
    first = Turn("is model design discussed anywhere?", "AlphaNet does [1].", (ALPHA,))
    result = rule_rewrite("how do they try to avoid it?", [first])
    assert result.question == "how do they try to avoid model design (AlphaNet)?"
    assert result.asked == "how do AlphaNet try to avoid it?"


def test_a_third_turn_s_it_is_still_the_topic_asked_on_its_own() -> None:
    # "what do we know about grokking", "why does it happen?", then "is it common?" read
    # "happen" as the topic ("is happen common?").
    first = Turn("what do we know about model design?", "AlphaNet does [1].", (ALPHA,))
    second = Turn("why does model design matter (AlphaNet)?", "AlphaNet says [1].", (ALPHA,),
                  "why does it matter?")  # fmt: skip
    result = rule_rewrite("is it common?", [first, second])
    assert result.question == "is model design common (AlphaNet)?"
    assert result.original == "is it common?"  # what the user typed, for the note's words


@pytest.mark.parametrize(
    ("first", "question", "rewritten"),
    [
        # a question that also names the paper asks it of that paper
        ("what do we know about model design?", "what does this paper say about it?",
         "what does AlphaNet say about it?"),
        ("👍", "how is it protected?", "how is AlphaNet protected?"),  # no words, no topic
        ("privacy.", "how is it protected?", "how is privacy protected (AlphaNet)?"),
    ],
)  # fmt: skip
def test_it_is_no_topic_where_there_is_none(first: str, question: str, rewritten: str) -> None:
    assert rule_rewrite(question, [Turn(first, "AlphaNet does [1].", (ALPHA,))]).question == (
        rewritten
    )


def test_an_llm_rewrite_keeps_the_topic_the_rule_brought() -> None:
    from rag.answer.condense import _acceptable

    rule = rule_rewrite(
        "why does it happen?", [Turn("what do we know about grokking", "AlphaNet [1].", (ALPHA,))]
    )
    assert not _acceptable("why does AlphaNet happen?", rule)
    assert _acceptable("why does grokking happen in AlphaNet?", rule)


def test_it_done_is_the_papers_work_not_the_topic() -> None:
    # "privacy", then "why did they do it?" was searched as "why did they do privacy?".
    result = rule_rewrite("why did they do it?", KEYWORDS)
    assert (result.question, result.papers) == (
        "why did AlphaNet and BetaGAN do it?",
        (ALPHA, BETA),
    )


def test_it_after_no_paper_on_a_topic_searches_the_topic() -> None:
    # "is reward hacking discussed anywhere?" answered with no paper, then "how do they avoid
    # it?" was searched as typed and answered from a PDE solver and a sampler.
    no_paper = Turn("is model design discussed anywhere?", "The collection has no paper on this.")
    result = rule_rewrite("how do they avoid it?", [no_paper])
    assert (result.question, result.papers) == ("how do they avoid model design?", ())


def test_an_it_that_stands_for_what_follows_names_nothing() -> None:
    result = rule_rewrite("is it hard to train graph models?", KEYWORDS)
    assert (result.question, result.papers, result.method) == (
        "is it hard to train graph models?",
        (),
        "as-is",
    )


@pytest.mark.slow
def test_how_a_keyword_topic_is_done_is_asked_of_every_paper_on_it(
    real_seed_index: Index,
) -> None:
    from rag import api
    from tests.answer.chat_turns import first_authors

    first = api.ask("privacy", index=real_seed_index, backend="extractive")
    assert len(first.citations) > 1, first.answer
    second = api.ask(
        "how is it protected?",
        index=real_seed_index,
        backend="extractive",
        history=[("privacy", first)],
    )
    assert second.standalone == "how is privacy protected?"
    assert "Renxiang Guan" in first_authors(second), second.answer
    assert "privatized prototypes" in second.answer, second.answer


@pytest.mark.slow
def test_it_after_a_question_on_a_topic_searches_the_topic(real_seed_index: Index) -> None:
    from tests.answer.chat_turns import chat, first_authors

    first, second = chat(real_seed_index, ["what do we know about grokking", "why does it happen?"])
    assert first_authors(first) == ["Florian Eichin"], first.answer
    assert second.standalone == "why does grokking happen (ExPLAIND)?"
    assert first_authors(second) == ["Florian Eichin"], second.answer
    # Its sentence is about grokking: judged on "why does ExPLAIND happen?", which holds no word
    # but the name, the line was "such approaches usually lack theoretical support" (stop 66).
    assert "grokking" in second.answer.lower(), second.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("message", "author"),
    [
        # before: "No paper's title or abstract uses “back”", ConPress first (a new user, stop 66)
        ("ok back to papers - anything on compressing LLM weights?", "Ali Abbasi"),
        # before: asked of the DPO paper just shown (another, stop 66)
        ("ok, different topic: anything on speeding up RAG prefilling?", "Xin Teng"),
    ],
)
def test_a_lead_before_anything_on_a_topic_is_no_topic(
    real_seed_index: Index, message: str, author: str
) -> None:
    from tests.answer.chat_turns import chat, first_authors

    first, second, third = chat(
        real_seed_index, ["What goes wrong with DPO?", message, "how does it work?"]
    )
    assert first_authors(first) == ["Yonggang Zhang"], first.answer
    # what follows the lead is searched as typed, and not shown as a rewrite
    assert second.standalone is None and not second.abstained, second.answer
    assert author in first_authors(second), second.answer
    assert "Yonggang Zhang" not in first_authors(second), second.answer
    assert "No paper's title" not in second.answer, second.answer
    # "it" is the topic after the lead, not the whole message ("back", which no paper holds)
    assert third.standalone is not None and "back to" not in third.standalone, third.standalone


@pytest.mark.slow
def test_a_lead_the_papers_hold_still_restricts_the_question(real_seed_index: Index) -> None:
    # the lead before "anything on" may be a topic: searched without it, the question listed
    # papers on any OOD detection (a reviewer, stop 66)
    from tests.answer.chat_turns import first_authors

    question = "For graph neural networks, anything on OOD detection?"
    answer = api.ask(question, index=real_seed_index, backend="extractive")
    assert first_authors(answer)[0] == "Yifan Wang", answer.answer  # CLINIC


@pytest.mark.slow
def test_a_topic_asked_about_anywhere_is_answered_and_it_stays_that_topic(
    real_seed_index: Index,
) -> None:
    # "is reward hacking discussed anywhere in these papers?" said no paper uses "anywhere";
    # then "how do they try to avoid it?" was searched as typed.
    from tests.answer.chat_turns import chat, first_authors

    question = "is reward hacking discussed anywhere in these papers?"
    first, second = chat(real_seed_index, [question, "how do they try to avoid it?"])
    assert not first.abstained and "Chuxue Cao" in first_authors(first), first.answer
    assert second.standalone == "how do they try to avoid reward hacking (Cao et al.)?"
    assert "Chuxue Cao" in first_authors(second), second.answer


@pytest.mark.parametrize(
    "question",
    [
        "anything else on graph models?",
        "any other papers that generate molecules?",
        "more generative modelling work?",
        "who else works on molecules?",
        "any other ways to build graph models?",
    ],
)
def test_a_follow_up_past_the_papers_shown_searches_the_rest(question: str) -> None:
    # "anything else on label noise?" after ICGNN was searched as "anything else on label noise
    # (ICGNN)?" and answered with ICGNN's sentence again.
    result = rule_rewrite(question, TWO_PAPERS)
    assert result.question == question  # searched on its own words
    assert result.excluded == (ALPHA, BETA)
    assert result.papers == ()


@pytest.mark.parametrize(
    "question",
    [
        "any other papers?",
        "any others?",
        "are there others?",
        # the pronoun is the topic: it was asked of the two papers again (a new user, stop 60)
        "any other papers on that?",
        "any other work about this?",
    ],
)
def test_one_that_names_no_topic_searches_the_set_s_question(question: str) -> None:
    # Before: "any others?" was searched as "others", which three unrelated papers hold.
    result = rule_rewrite(question, TWO_PAPERS)
    assert (result.question, result.excluded) == ("Which papers propose models?", (ALPHA, BETA))


@pytest.mark.slow
def test_any_others_after_a_list_is_not_searched_as_a_word(real_seed_index: Index) -> None:
    from tests.answer.chat_turns import chat, first_authors

    first, others = chat(
        real_seed_index, ["Which papers shorten chain-of-thought reasoning?", "any others?"]
    )
    assert others.standalone == "Which papers shorten chain-of-thought reasoning?"
    assert not {"Valentyn Melnychuk", "Xinyu Mao"} & set(first_authors(others)), others.answer
    assert not set(first_authors(first)) & set(first_authors(others))


@pytest.mark.parametrize(
    "question",
    [
        "what else did they find?",
        "how does it compare to other methods?",
        "does it beat the other baselines?",
        "apart from saving compute, any other gains?",  # other gains of the papers shown
        "what other tools are in the pipeline?",
    ],
)
def test_other_things_of_the_papers_shown_leave_them_in(question: str) -> None:
    assert rule_rewrite(question, TWO_PAPERS).excluded == ()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "second", "shown", "others"),
    [
        ("how does ICGNN handle noisy labels?", "anything else on label noise?", "Wei Ju", set()),
        (
            "tell me about ConPress",
            "are there other approaches to shorter reasoning?",
            "Jie Deng",
            {"Ziyue Li", "Yuesen Tang", "Yizhi Li", "Ke Wang"},
        ),
    ],
)
def test_other_papers_are_the_rest_of_the_collection_or_none(
    real_seed_index: Index, first: str, second: str, shown: str, others: set[str]
) -> None:
    from tests.answer.chat_turns import chat, first_authors

    before, after = chat(real_seed_index, [first, second])
    assert first_authors(before) == [shown], before.answer
    assert shown not in first_authors(after), after.answer
    if others:
        assert set(first_authors(after)) & others, after.answer
    else:  # "no other paper", not "the collection has no paper on this"
        assert after.answer.startswith(prompts.NO_OTHER), after.answer


@pytest.mark.parametrize(
    ("question", "rewritten"),
    [
        ("how do the papers fix that?", "how do the papers fix that (AlphaNet and BetaGAN)?"),
        ("how is that fixed?", "how is that fixed (AlphaNet and BetaGAN)?"),
        ("what causes this?", "what causes this (AlphaNet and BetaGAN)?"),
        ("does this apply to proteins?", "does this apply to proteins (AlphaNet and BetaGAN)?"),
        ("is that better than GANs?", "is that better than GANs (AlphaNet and BetaGAN)?"),
    ],
)
def test_that_standing_alone_is_what_the_last_answer_said(question: str, rewritten: str) -> None:
    # "what problems do LLM agents have when using tools?", then "how is that fixed?" was
    # searched on "fixed" alone and answered from an auction paper and a sampler.
    result = rule_rewrite(question, TWO_PAPERS)
    assert (result.question, result.papers) == (rewritten, (ALPHA, BETA))


@pytest.mark.parametrize(
    "question",
    [
        "is it true that graph models need labels?",  # "that" opens a clause
        "which papers use models that need labels?",
        "how does this bot work",  # "this" before a noun that is not the last answer's
    ],
)
def test_that_opening_a_clause_or_before_a_noun_points_nowhere(question: str) -> None:
    assert rule_rewrite(question, TWO_PAPERS).method == "as-is"


@pytest.mark.slow
def test_how_that_is_fixed_is_asked_of_the_answer_that_said_it(real_seed_index: Index) -> None:
    from rag import api
    from tests.answer.chat_turns import first_authors

    question = "what problems do LLM agents have when using tools?"
    first = api.ask(question, index=real_seed_index, backend="extractive")
    assert first_authors(first) == ["wenlong deng"], first.answer
    for follow_up in ("how is that fixed?", "how do the papers fix that?"):
        second = api.ask(
            follow_up, index=real_seed_index, backend="extractive", history=[(question, first)]
        )
        assert first_authors(second) == ["wenlong deng"], (follow_up, second.answer)
        assert "stabilizes training" in second.answer, (follow_up, second.answer)


def test_it_after_asking_what_they_propose_is_what_they_propose() -> None:
    # "is DPO equivalent to RLHF?", "what do they propose instead?" (CPO), then "does it work
    # in practice?" was searched as "does DPO equivalent to RLHF work in practice?".
    first = Turn("any work on model design?", "AlphaNet says [1].", (ALPHA,))
    second = Turn("what do AlphaNet propose instead?", "AlphaNet propose X [1].", (ALPHA,),
                  "what do they propose instead?")  # fmt: skip
    result = rule_rewrite("does it work in practice?", [first, second])
    assert result.question == "does AlphaNet work in practice?"
    # after what they found, "it" is still the topic asked on its own
    found = Turn(
        "what did AlphaNet find?", "AlphaNet found Y [1].", (ALPHA,), "what did they find?"
    )
    result = rule_rewrite("does it work in practice?", [first, found])
    assert result.question == "does model design work in practice (AlphaNet)?"


OPTIMIZER = paper("We propose GammaRL, a policy optimizer.", ("Cy Park",), "Park — GammaRL")
LISTED_THREE = [
    Turn(
        "Which papers propose models?",
        "AlphaNet does [1]. BetaGAN does [2]. GammaRL does [3].",
        (ALPHA, BETA, OPTIMIZER),
    )
]


@pytest.mark.parametrize(
    ("question", "places"),
    [
        ("compare the first two", (0, 1)),
        ("how do the last two differ?", (1, 2)),
        ("what do the top 2 papers find?", (0, 1)),
        ("compare the first and third", (0, 2)),
        ("papers 1 and 3: which is faster?", (0, 2)),
        ("the second one and the last one?", (1, 2)),
    ],
)
def test_several_places_name_those_papers(question: str, places: tuple[int, ...]) -> None:
    # Before: "compare the first two" was asked of whichever one paper its words matched.
    result = rule_rewrite(question, LISTED_THREE)
    assert result.papers == tuple(LISTED_THREE[0].cited[i] for i in places), result
    assert "Alpha" in result.question or "Beta" in result.question, result.question


def test_a_count_before_a_noun_is_no_place() -> None:
    # "the first two stages" describes stages, not the papers listed.
    assert rule_rewrite("what happens in the first two stages?", LISTED_THREE).papers != (
        ALPHA,
        BETA,
    )


def test_an_ordinal_past_a_short_answer_is_of_the_list_before_it() -> None:
    # Before: "tell me more about the second one" after a one-paper answer said that answer had
    # no second one, though the list just before it had.
    turns = [*TWO_PAPERS, Turn("how much better than RoPE (AlphaNet)?", "It is [1].", (ALPHA,))]
    assert rule_rewrite("tell me more about the second one", turns).papers == (BETA,)


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("back to the compression paper - does it need retraining?", "compression"),
        ("and the logic verification one — which benchmarks?", "logic verification"),
        ("what does the auction paper prove?", "auction"),
        ("what does the proposed method achieve?", None),  # no topic: the paper's own method
        ("how does the method work?", None),
        ("is the model open source?", None),
        ("how does the diffusion model work?", None),  # a model, not a paper
        ("tell me about the paper on auctions", None),  # a topic of the collection's
        ("the second one", None),
    ],
)
def test_a_paper_named_by_its_topic_is_told(question: str, words: str | None) -> None:
    found = described_reference(question, TWO_PAPERS, None)
    assert (found.described if found else None) == words
    if found:
        assert found.papers == (ALPHA, BETA) and found.method == "described"


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("How do the first two approaches differ?", "second"),
        ("Of the top three, which is best?", "third"),
    ],
)
def test_several_places_past_a_one_paper_answer_say_there_are_not_so_many(
    question: str, word: str
) -> None:
    # Before: "How do the first two approaches differ?" after one paper said the collection had
    # no paper on it (a blind trial, stop 57).
    one = [Turn("What is AlphaNet?", "AlphaNet does [1].", (ALPHA,))]
    result = rule_rewrite(question, one)
    assert result.reply == prompts.NO_SUCH_PLACE.format(papers="1 paper", word=word, them="it")


def test_a_possessive_of_a_plural_topic_or_name_is_written_as_english_writes_it() -> None:
    # "chain of thought reasoning LLMs's limitations (ConPress)?" was shown as what was searched
    # (a new user, stop 60)
    loubes = paper("We study fairness.", ("Jean Loubes",), "Loubes")
    one = [Turn("Which papers study fairness?", "Loubes does [1].", (loubes,))]
    assert rule_rewrite("what are its limitations?", one).question == (
        "what are Loubes' limitations?"
    )


def test_who_wrote_it_after_several_papers_is_asked_of_each() -> None:
    # "it" could be either paper: the first's authors alone read as the answer's only paper's
    # (a new user, stop 60); a question of its content stays with the first.
    assert rule_rewrite("who wrote it?", TWO_PAPERS).papers == (ALPHA, BETA)
    assert rule_rewrite("what dataset does it use?", TWO_PAPERS).papers == (ALPHA,)
    # after a topic, the record's question is still the papers' (stop 59: the first's alone)
    after_topic = rule_rewrite("who wrote it?", KEYWORDS)
    assert after_topic.papers == (ALPHA, BETA) and "AlphaNet" in after_topic.question


@pytest.mark.parametrize(
    "question", ["does it beat standard GNNs?", "is it better than adversarial debiasing?"]
)
def test_it_ranked_against_another_method_is_the_paper_not_the_topic(question: str) -> None:
    # "does GNN robustness beat standard GNNs?" was searched (the stop's re-trial): a topic
    # does not beat a method
    result = rule_rewrite(question, KEYWORDS)
    assert "model design" not in result.question and "AlphaNet" in result.question
    assert result.papers == (ALPHA,)


@pytest.mark.parametrize(
    ("question", "kept"),
    [
        # ranked, but not "it" against a method: the topic still (this stop's review)
        ("why does it happen more often than expected?", "model design"),
        ("does it happen faster than memorization?", "model design"),
        ("to what extent is it harder than short-horizon design, and why?", "model design"),
    ],
)
def test_it_in_a_comparison_of_its_own_is_still_the_topic(question: str, kept: str) -> None:
    assert kept in rule_rewrite(question, KEYWORDS).question


def test_only_on_or_about_that_points_past_the_papers_shown() -> None:
    from rag.answer.references import asks_past_shown

    assert asks_past_shown("any other papers on that?")
    assert not asks_past_shown("what else is in it?")
    assert not asks_past_shown("what else is known about it?")
    # "on the other hand" is no other paper
    assert (
        "AlphaNet"
        not in rule_rewrite("on the other hand the model overfits, why?", CHOSE_BETA).question
    )


def test_two_places_and_it_beside_a_place_are_each_named() -> None:
    # this stop's review: "compare" did not end a bare ordinal, and "does it beat the first
    # one?" dropped the paper just shown
    three = CHOSE_BETA[0]
    second = Turn("tell me about the second one", "BetaGAN does [1].", (BETA,))
    result = rule_rewrite("how does the first compare to the third one?", [three])
    assert result.question == "how does AlphaNet compare to GammaRL?"
    assert rule_rewrite("does it beat the first one?", [three, second]).papers == (BETA, ALPHA)


FEDERATED = paper("We propose GammaFL, a federated learner.", ("Cy Wu",), "Wu — GammaFL")
LISTED_WITH_NAMES = Turn(
    "Which papers propose models?",
    "AlphaNet does [1]. BetaGAN does [2]. GammaFL does [3].",
    (ALPHA, BETA, FEDERATED),
)


def test_a_question_naming_one_of_the_set_keeps_the_set() -> None:
    # "what does IDFT do?" after the federated-learning list became the set, and "any other
    # papers on this?" then searched it alone (a new user's re-trial). Each named question is
    # read against the set before it (this stop's review: a second one became the set).
    one = Turn("What does AlphaNet do?", "AlphaNet does [1].", (ALPHA,))
    other = Turn("What does BetaGAN do?", "BetaGAN does [1].", (BETA,))
    assert set_turn([LISTED_WITH_NAMES, one]) is LISTED_WITH_NAMES
    assert set_turn([LISTED_WITH_NAMES, one, other]) is LISTED_WITH_NAMES
    # answered with papers besides the set's ("papers that extend AlphaNet to text?"): its own
    new = paper("We propose DeltaText, AlphaNet for text.", ("Di Ho",), "Ho — DeltaText")
    wider = Turn("Papers that extend AlphaNet to text?", "DeltaText does [1]. AlphaNet [2].",
                 (new, ALPHA))  # fmt: skip
    assert set_turn([LISTED_WITH_NAMES, wider]) is wider
    # a question of its own naming no paper of the set starts its own
    fresh = Turn("Which papers study molecules?", "BetaGAN does [1].", (BETA,))
    assert set_turn([LISTED_WITH_NAMES, fresh]) is fresh


@pytest.mark.parametrize(
    ("question", "compared"),
    [
        ("vs TreePO?", True),
        ("compared with CELL?", True),
        ("and as opposed to PPO", True),
        # a question that goes on is read by the other rules (this stop's review)
        ("Compared to PPO, does GRPO converge faster?", False),
        ("versus what baseline does ConPress compare?", False),
        ("Relative to SFT, which papers use RL for reasoning?", False),
    ],
)
def test_only_a_bare_comparison_opening_sets_the_last_paper_beside(
    question: str, compared: bool
) -> None:
    rewritten = rule_rewrite(question, [Turn("What is AlphaNet?", "AlphaNet does [1].", (ALPHA,))])
    assert (rewritten.papers == (ALPHA,) and rewritten.question.startswith("AlphaNet ")) is compared
