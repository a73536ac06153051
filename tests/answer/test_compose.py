"""Answers that read as answers: standalone named sentences, on-topic, lists, "not stated"."""

from __future__ import annotations

import json
import re

import pytest

from rag import prompts
from rag.answer.compose import Kind, names_a_dataset, question_kind, states_number, without_names
from rag.answer.discourse import dangling_opener, points_back, standalone
from rag.answer.evidence import paper_sentences
from rag.answer.pipeline import answer
from rag.answer.relevance import RelevanceCheck
from rag.index.paper_index import Index
from rag.records import Paper
from tests.conftest import ROOT

# The shared data sits beside the checkout (../shared), or beside the folder of worktrees.
CHAT = (
    next(
        (d / "shared" / "data" for d in ROOT.parents if (d / "shared" / "data").is_dir()),
        ROOT.parent / "shared" / "data",
    )
    / "chat"
    / "sessions-dev.jsonl"
)


@pytest.mark.parametrize(
    ("sentence", "shown"),
    [
        (
            "To address this, in this paper we propose a novel approach called ICGNN that "
            "harnesses the graph structure.",
            "Ju et al. propose a novel approach called ICGNN that harnesses the graph structure.",
        ),
        (
            "Additionally, we develop a soft strategy to correct the detected noisy labels.",
            "Ju et al. (ICGNN) develop a soft strategy to correct the detected noisy labels.",
        ),
        (
            "However, existing methods still rely heavily on explicit textual reasoning steps.",
            "Existing methods still rely heavily on explicit textual reasoning steps.",
        ),
        (
            "Experiments on benchmark datasets show the superiority of our approach.",
            "Experiments on benchmark datasets show the superiority of our approach.",
        ),
        ("First-order methods converge slowly.", "First-order methods converge slowly."),
        (
            "Finally, to further mitigate domain shift, we build a bipartite graph.",
            "To further mitigate domain shift, Ju et al. (ICGNN) build a bipartite graph.",
        ),
        # "In this way, Melnychuk et al. are able to recover ..." was shown with the way left
        # behind in the sentence before.
        (
            "In this way, we are able to recover the labels.",
            "Ju et al. (ICGNN) are able to recover the labels.",
        ),
        ("By doing so, we avoid noise.", "Ju et al. (ICGNN) avoid noise."),
        # "Melnychuk et al.: (1) We show that existing PFNs ..." kept the label of an item of
        # the abstract's list and its "We".
        ("(1) We show that labels drift.", "Ju et al. (ICGNN) show that labels drift."),
        ("(ii) we derive two bounds.", "Ju et al. (ICGNN) derive two bounds."),
        ("(1.5) is the ratio of the two.", "(1.5) is the ratio of the two."),
        # "Sun et al. introduce here an innovative approach": "here" went with "we".
        (
            "We introduce here an innovative approach.",
            "Ju et al. (ICGNN) introduce an innovative approach.",
        ),
        ("Herein, we propose a sampler.", "Ju et al. (ICGNN) propose a sampler."),
        ("We show here that labels drift.", "Ju et al. (ICGNN) show that labels drift."),
        ("We stay here.", "Ju et al. (ICGNN) stay here."),
        # "Taken together, Xu et al. (CalM) propose ..." read as summing up the list above it
        (
            "Taken together, we propose a pretraining paradigm.",
            "Ju et al. (ICGNN) propose a pretraining paradigm.",
        ),
        ("In conclusion, our method helps.", "Ju et al.'s method helps."),
        ("Collectively, these results hold.", "These results hold."),
        ("Taken as a whole the field moves.", "Taken as a whole the field moves."),
    ],
)
def test_standalone_strips_openers_and_names_the_speaker(sentence: str, shown: str) -> None:
    assert standalone(sentence, "Ju et al. (ICGNN)", plural=True).text == shown


def test_verb_agrees_with_the_speaker() -> None:
    assert standalone("This paper studies transformers.", "Pei et al.", True).text == (
        "Pei et al. study transformers."
    )
    assert standalone("This paper here studies transformers.", "Pei et al.", True).text == (
        "Pei et al. study transformers."
    )
    assert standalone("We show that our method helps us.", "Yüksel", False).text == (
        "Yüksel shows that their method helps them."
    )


@pytest.mark.parametrize(
    ("sentence", "shown"),
    [
        # A single author: past tenses and modals do not agree; "are", "have" do.
        ("We examined whether naps help.", "Ruiz examined whether naps help."),
        ("We found that naps help.", "Ruiz found that naps help."),
        ("We can show that naps help.", "Ruiz can show that naps help."),
        ("We are the first to test naps.", "Ruiz is the first to test naps."),
        ("We have tested naps.", "Ruiz has tested naps."),
        ("We were able to test naps.", "Ruiz was able to test naps."),
        ("We need longer naps.", "Ruiz needs longer naps."),
        ("We embed naps in shifts.", "Ruiz embeds naps in shifts."),
        ("We focus on naps.", "Ruiz focuses on naps."),
        ("We cut errors by half.", "Ruiz cut errors by half."),
    ],
)
def test_a_single_author_s_verb_keeps_its_tense(sentence: str, shown: str) -> None:
    assert standalone(sentence, "Ruiz", False).text == shown


def test_a_paper_s_verb_agrees_with_several_authors() -> None:
    assert standalone("This paper is the first to test naps.", "Pei et al.", True).text == (
        "Pei et al. are the first to test naps."
    )
    assert standalone("This paper utilizes naps.", "Pei et al.", True).text == (
        "Pei et al. utilize naps."
    )


@pytest.mark.parametrize(
    "text",
    [
        "However, X holds.",
        "To address this, we go.",
        "In this paper, we propose Y.",
        "Then, Z.",
        # before: "Tanaka & Silva: And they extract entity descriptions from Freebase."
        "And we extract entity descriptions from Freebase.",
        "But the gain vanishes on small graphs.",
        "Thereafter, we suggest a regularizer.",
    ],
)
def test_dangling_openers_are_recognised(text: str) -> None:
    assert dangling_opener(text)
    assert not dangling_opener(standalone(text, "Ju et al.").text)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Which papers deal with noisy labels on graphs?", Kind.LIST),
        ("Is there work on zero-order optimization for fine-tuning LLMs?", Kind.LIST),
        ("Anything about SVD compression of language models?", Kind.LIST),
        ("Is there anything on auctions?", Kind.LIST),
        ("Do you have anything on federated unlearning?", Kind.LIST),
        ("what is new in fairness?", Kind.LIST),
        ("What's the latest on GRPO?", Kind.LIST),
        ("Recent work on graph prompting?", Kind.LIST),
        ("What is the new loss they propose?", Kind.METHOD),
        ("How is label noise handled in graph neural networks?", Kind.METHOD),
        ("What defense do they propose?", Kind.METHOD),
        ("Do LLMs need to run all their layers in a fixed order?", Kind.CLAIM),
        ("How much does GRPO help tool-using agents?", Kind.FINDING),
        ("What dataset did they evaluate on?", Kind.DATASET),
        # before: quoted MAI & Loubes' "data bias" sentence as the answer (a new user, stop 59)
        ("what data did they use?", Kind.DATASET),
        ("what data is used?", Kind.DATASET),
        ("what data augmentation helps?", Kind.FINDING),
        ("How many tokens does it save?", Kind.NUMBER),
        # The papers are what is counted: a list, not a number an abstract states.
        ("How many papers are about LLMs?", Kind.LIST),
        ("how many studies use graph neural networks", Kind.LIST),
        ("Tell me about ConPress.", Kind.GENERAL),
        # after a lead naming its subject, as the rewrite of "the second one - ..." leaves it
        ("ConPress - how many tokens does it save?", Kind.NUMBER),
        ("ASMC: how much faster is it?", Kind.NUMBER),
        ("ASMC - how much does it save?", Kind.FINDING),
        ("LLM - RL training", Kind.GENERAL),
    ],
)
def test_question_kinds(question: str, kind: Kind) -> None:
    assert question_kind(question) is kind


def test_stated_facts() -> None:
    assert not names_a_dataset("Experiments on benchmark datasets show gains.", "ICGNN")
    assert names_a_dataset("ConPress cuts tokens by 59% on MATH500.", "ConPress")
    assert not names_a_dataset("We evaluate CalM on a large multi-session dataset.", "CalM")
    assert not names_a_dataset("Experiments on LLM and VLM benchmarks show gains.", "X")
    # before: "The abstract of Mao et al. (SEPS) does not state which datasets ..." above it
    assert names_a_dataset("Experiments on Flickr30K and MS-COCO datasets show gains.", "SEPS")
    assert states_number("It reduces token usage by 59%.")
    assert not states_number("Our 7B models outperform the baselines.")


# -- with the real models


def _questions() -> list[str]:
    path = ROOT / "bench" / "data" / "seed_questions.jsonl"
    found = [json.loads(line)["question"] for line in path.read_text().splitlines() if line]
    if CHAT.is_file():
        for line in CHAT.read_text(encoding="utf-8").splitlines():
            found += [t["q"] for t in json.loads(line)["turns"] if "lang" not in t]
    return found


def _body(text: str) -> str:
    """The sentence without the "Ju et al. (ICGNN): " that names its speaker."""
    head, sep, rest = text.partition(": ")
    return rest if sep and len(head) < 60 else text


@pytest.mark.slow
def test_extractive_answers_read_on_their_own(
    real_seed_index: Index,
) -> None:
    """No line starts with a dangling connective, nor on a subject that points back to a
    sentence not shown ("These approaches ..."), nor speaks as "we" / "our" under the paper's
    label ("Guan et al.: ... that our framework achieves ...")."""
    settings = real_seed_index.settings
    dangling, pointing, first_person = [], [], []
    questions = [
        *_questions(),
        "does the federated multi-view clustering framework beat other methods?",
        "how does NSPI prove polynomial inequalities?",
    ]
    for question in questions:
        result = answer(real_seed_index, question, settings=settings, backend=None)
        for s in result.sentences:
            if not s["shown"] or s.get("note"):
                continue
            if dangling_opener(_body(s["text"])):
                dangling.append((question, s["text"]))
            if points_back(_body(s["text"])):
                pointing.append((question, s["text"]))
            if re.search(r"\b(?:we|our|us)\b", s["text"], re.IGNORECASE):
                first_person.append((question, s["text"]))
    assert dangling == []
    assert pointing == []
    assert first_person == []


MULTIMODAL_Q = "How do multimodal language models reason over images without long text?"


@pytest.mark.slow
def test_relevance_check_drops_a_supported_sentence_off_the_question(
    real_seed_index: Index,
) -> None:
    papers = {p.authors[0]: p for p in real_seed_index.papers.values()}
    tang, other = papers["Yuesen Tang"], papers["Haoran Sun"]  # an auction paper
    candidates = paper_sentences(tang) + paper_sentences(other)
    check = RelevanceCheck(
        real_seed_index.embedder,
        MULTIMODAL_Q,
        candidates,
        threshold=real_seed_index.settings.min_question_relevance,
    )
    off = next(s for s in paper_sentences(other) if "payment form is fixed" in s)
    assert not check.relevant(off)
    assert any(check.relevant(s) for s in paper_sentences(tang) if "latent" in s.lower())


@pytest.mark.slow
def test_which_papers_lists_every_paper_one_per_line(real_seed_index: Index) -> None:
    settings = real_seed_index.settings
    result = answer(
        real_seed_index,
        "Which papers study transformers trained on Markov chains?",
        settings=settings,
        backend=None,
    )
    lines = result.answer.splitlines()
    assert len(lines) >= 2 and all(line.startswith("- ") for line in lines)
    firsts = [c.hit.paper.authors[0] for c in result.citations]
    assert {"Francesco D'Angelo", "Oğuz Yüksel"} <= set(firsts)
    assert [line.count("[") for line in lines] == [1] * len(lines)  # one paper a line


@pytest.mark.slow
def test_an_answer_on_many_papers_gives_each_its_line_however_it_was_asked(
    real_seed_index: Index,
) -> None:
    # "LLMs" cited nine papers in one paragraph: the layout follows how many papers the answer
    # uses, not only a "which papers" wording.
    result = answer(real_seed_index, "LLMs", settings=real_seed_index.settings, backend=None)
    lines = result.answer.splitlines()
    assert len(result.citations) >= 3
    assert len(lines) == len(result.citations), result.answer
    assert all(line.startswith("- ") for line in lines), result.answer
    # Two papers still read as one paragraph.
    two = answer(real_seed_index, "privacy", settings=real_seed_index.settings, backend=None)
    assert len(two.citations) == 2 and "\n- " not in two.answer, two.answer


@pytest.mark.slow
def test_says_plainly_when_the_abstract_does_not_state_it(real_seed_index: Index) -> None:
    settings = real_seed_index.settings
    result = answer(
        real_seed_index,
        "Which datasets was ICGNN evaluated on for noisy labels on graphs?",
        settings=settings,
        backend=None,
    )
    first_line = result.answer.splitlines()[0]
    assert "does not state" in first_line or "None of the abstracts" in first_line
    assert result.citations and result.citations[0].hit.paper.authors[0] == "Wei Ju"
    assert "benchmark datasets" in result.answer  # what the abstract does say, cited
    assert prompts.ABSTAIN not in result.answer


def test_which_tasks_is_not_which_datasets() -> None:
    # "what tasks does it handle?" of CalM was told "does not state which datasets or
    # benchmarks were used" above its sentence on behaviour decoding.
    assert question_kind("what tasks does it handle (CalM)?") is not Kind.DATASET
    assert question_kind("which datasets (CURE)?") is Kind.DATASET
    assert question_kind("what benchmarks was TreePO evaluated on?") is Kind.DATASET


@pytest.mark.slow
def test_tasks_asked_of_a_paper_are_answered_from_its_sentences(real_seed_index: Index) -> None:
    from rag import api

    first = "foundation models for neuroscience data"
    previous = api.ask(first, index=real_seed_index, backend=None)
    history = [
        {"role": "user", "content": first},
        {"role": "assistant", "content": previous.answer},
    ]
    answer = api.ask(
        "what tasks does it handle?", index=real_seed_index, backend=None, history=history
    )
    assert "does not state" not in answer.answer, answer.answer
    assert "decoding" in answer.answer, answer.answer


@pytest.mark.parametrize("order", [1, -1])
def test_a_question_without_its_papers_names_whatever_their_order(order: int) -> None:
    # A paper by "Xu Ju" stripped "Ju" first, and "Wei Ju" of the other paper was left "Wei":
    # read as a word the question asks of its papers.
    papers = [
        Paper("a", ("Xu Ju",), "We study graphs."),
        Paper("b", ("Wei Ju",), "We study trees."),
    ]
    assert without_names("papers by Wei Ju", papers[::order]).split() == ["papers", "by"]
    # A whole name in any case ("what did tianyi zhou publish?" went on as if "tianyi zhou"
    # were asked of their papers, a new user's re-trial); a surname alone only as written.
    assert without_names("what did wei ju publish?", papers[::order]).split() == [
        "what", "did", "publish?"
    ]  # fmt: skip
    assert "ju" in without_names("a ju b", papers[::order]).split()
    assert without_names("papers by Wei  Ju", papers[::order]).split() == ["papers", "by"]
