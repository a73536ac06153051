"""Which papers an answer uses: one judgement per paper, whatever the question's wording.

With the real MiniLM over the seeds (the per-paper model is fitted on labelled questions by
bench/answers/paper_choice.py; these are cases a new user hit on the rule it replaced).
"""

from __future__ import annotations

import pytest

from rag import api, prompts
from rag.answer.abstention import question_terms, sides, words_no_paper_holds
from rag.index.paper_index import Index

GNN_PAPERS = {"Wei Ju", "Hourun Li", "Yifan Wang", "Yumeng Zhao"}


def cited(index: Index, question: str, history: list | None = None) -> set[str]:  # type: ignore[type-arg]
    answer = api.ask(question, index=index, backend=None, history=history)
    return {c.hit.paper.authors[0] for c in answer.citations}


@pytest.mark.slow
def test_a_list_question_uses_every_paper_search_ranks_first(real_seed_index: Index) -> None:
    # Search ranks the four GNN papers 1-4; the rule before cited ICGNN alone.
    found = cited(real_seed_index, "List the graph neural network papers in the collection.")
    assert found == GNN_PAPERS


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        pytest.param(
            "papers that use Lean",
            marks=pytest.mark.xfail(
                reason="BM25 scores 'papers' too: NSPI ranks third, and the abstention's coverage "
                "reads the first two papers only (a BM25 side without the words of asking fixed "
                "it but lost 'how do models get better at math', bench/results/paper_choice.md)",
                strict=True,
            ),
        ),
        "research that relies on Lean",
        "Lean proofs",
    ],
)
def test_a_question_on_a_word_one_paper_uses_cites_that_paper(
    real_seed_index: Index, question: str
) -> None:
    assert cited(real_seed_index, question) == {"Ruobing Zuo"}


@pytest.mark.slow
def test_phrasings_of_one_need_cite_the_same_papers(real_seed_index: Index) -> None:
    phrasings = [
        "Which papers use graph neural networks?",
        "Summarize the work on graph neural networks.",
        "What do these papers say about graph neural networks?",
        "List the graph neural network papers in the collection.",
    ]
    sets = [cited(real_seed_index, q) for q in phrasings]
    assert all(s == sets[0] for s in sets), sets
    assert sets[0] == GNN_PAPERS


def test_an_asking_word_weighs_nothing_in_either_spelling(seed_index: Index) -> None:
    # "summarise" counted as a topic word no paper uses, so the question abstained and said
    # so; "summarize" as none.
    american, british = (
        question_terms(seed_index, q)
        for q in ("summarize the work on graphs", "summarise the work on graphs")
    )
    assert british == american == [("graph", False)]
    assert words_no_paper_holds(seed_index, "summarise the evaluation methods") == []


@pytest.mark.slow
def test_a_model_name_finds_the_papers_naming_its_versions(real_seed_index: Index) -> None:
    # "Qwen2.5-3B" is indexed as "qwen2": the GRPO paper was not found for "Qwen".
    assert cited(real_seed_index, "which papers use Qwen?") == {"wenlong deng", "Zichong Li"}


@pytest.mark.slow
def test_the_papers_after_another_topic_means_the_collection(real_seed_index: Index) -> None:
    first = api.ask("How do LLM agents use tools?", index=real_seed_index, backend=None)
    answer = api.ask(
        "What do the papers say about fairness?",
        index=real_seed_index,
        backend=None,
        history=[(first.question, first)],
    )
    assert answer.standalone is None  # not rewritten as a question about the last paper
    previous = {c.hit.paper.id for c in first.citations}
    now = {c.hit.paper.id for c in answer.citations}
    assert now and not now & previous


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "reward hacking vs training collapse",
        "reward hacking or training collapse",
        pytest.param(
            "Which papers deal with reward hacking or training collapse?",
            marks=pytest.mark.xfail(
                strict=True,
                reason="'which papers deal with' lowers Deng et al.'s probability on the whole "
                "question (0.18) below LEAST_FOR_ALTERNATIVE (0.2)",
            ),
        ),
    ],
)
def test_each_alternative_of_a_question_brings_its_paper(
    real_seed_index: Index, question: str
) -> None:
    # Cao et al. are on reward hacking, Deng et al. on training collapse; judged on the whole
    # question, training collapse's paper fell below the bar.
    assert {"Chuxue Cao", "wenlong deng"} <= cited(real_seed_index, question)


@pytest.mark.slow
def test_an_alternative_alone_does_not_bring_a_paper_off_the_question(
    real_seed_index: Index,
) -> None:
    # "graphs" alone is CLINIC's and the graph prompting paper's, but neither uses pseudo-labels:
    # the whole question gives them almost nothing, so the alternative does not bring them in
    # (with LEAST_FOR_ALTERNATIVE at 0 both are cited).
    found = cited(real_seed_index, "How do pseudo-labels help with unlabeled nodes or graphs?")
    assert "Wei Ju" in found
    assert not {"Yifan Wang", "Yumeng Zhao"} & found


@pytest.mark.slow
def test_a_paper_answering_alone_says_first_which_words_no_paper_uses(
    real_seed_index: Index,
) -> None:
    # A paper on neurons answered "polysemantic neurons" as though it were about them.
    answer = api.ask("polysemantic neurons", index=real_seed_index, backend=None)
    assert answer.citations and not answer.abstained
    assert answer.answer.startswith(prompts.NEAREST_ONLY.format(words="“polysemantic”"))
    assert answer.sentences[0]["note"] and not answer.sentences[0]["citations"]


@pytest.mark.slow
def test_a_question_with_one_side_held_is_not_answered_as_the_nearest(
    real_seed_index: Index,
) -> None:
    # "safety" is in no paper, but "privacy" is IndexGuard's and the federated clustering
    # paper's: they answer one side of the question, so the answer said "only the nearest"
    # untruly. The word no paper uses is still named.
    answer = api.ask("what works on LLM safety or privacy?", index=real_seed_index, backend=None)
    assert {"Javad Dogani", "Renxiang Guan"} <= {c.hit.paper.authors[0] for c in answer.citations}
    assert answer.answer.startswith(prompts.NO_PAPER_USES.format(words="“safety”"))
    assert "only the nearest" not in answer.answer
    # The collection-level decision weighs each side too: asked of "these papers", the whole
    # question's signals were too weak and it said the collection had no paper on it.
    these = api.ask(
        "what do these papers say about privacy or safety?", index=real_seed_index, backend=None
    )
    assert not these.abstained, these.answer
    assert {"Javad Dogani", "Renxiang Guan"} <= {c.hit.paper.authors[0] for c in these.citations}
    assert these.answer.startswith(prompts.NO_PAPER_USES.format(words="“safety”"))
    # Both sides unheld ("polysemantic" or nothing): still only the nearest.
    alone = api.ask("polysemantic neurons or not?", index=real_seed_index, backend=None)
    assert alone.answer.startswith(prompts.NEAREST_ONLY.format(words="“polysemantic”"))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "word", "papers"),
    [
        ("graph neural networks oversmoothing", "oversmoothing", {"Wei Ju"}),
        ("vision-language models hallucination", "hallucination", {"Hyeonwoo Cho"}),
    ],
)
def test_an_answer_on_the_rest_of_a_question_says_first_which_word_no_paper_uses(
    real_seed_index: Index, question: str, word: str, papers: set[str]
) -> None:
    # The papers on graph neural networks were quoted as if on oversmoothing, with no word that
    # no abstract says it (a new user, stop 60).
    answer = api.ask(question, index=real_seed_index, backend=None)
    assert not answer.abstained and papers <= {c.hit.paper.authors[0] for c in answer.citations}
    assert answer.answer.startswith(prompts.NO_PAPER_USES.format(words=f"“{word}”"))
    assert answer.sentences[0]["note"] and not answer.sentences[0]["citations"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "why does GRPO training blow up when the model calls a search engine?",
        "Switching gears: what work is there on federated unlearning that avoids full retraining?",
        "I heard that transformers learn Markov chains in stages. Which paper shows it?",
    ],
)
def test_a_sentence_s_other_words_no_paper_uses_are_not_said_first(
    real_seed_index: Index, question: str
) -> None:
    # The word judgement takes "blow", "gears" and "heard" for topics as readily as
    # "hallucination": only of a few bare words is each word the topic.
    answer = api.ask(question, index=real_seed_index, backend=None)
    assert answer.citations and not answer.answer.startswith("No paper"), answer.answer


@pytest.mark.slow
def test_a_denied_claim_about_the_paper_s_topic_still_holds_the_topic(
    real_seed_index: Index,
) -> None:
    # "neither implicit bias alone minimizes the generalization error for diagonal linear
    # networks": Matveev et al.'s topic, under a negation that denies a claim, not the networks
    # (the BM25 feature lost those words, and the query abstained).
    assert cited(real_seed_index, "diagonal linear networks") == {"Maria Matveev"}


@pytest.mark.slow
def test_a_word_no_paper_holds_before_on_frames_the_topic(real_seed_index: Index) -> None:
    # "I'm writing a survey on efficient reasoning, what should I read?" said the collection had
    # no paper on it: no abstract says "survey", and the word weighed against the rest.
    answer = api.ask(
        "I'm writing a survey on efficient reasoning, what should I read?",
        index=real_seed_index,
        backend=None,
    )
    assert not answer.abstained, answer.answer
    assert {"Yizhi Li", "Jie Deng"} <= {c.hit.paper.authors[0] for c in answer.citations}
    assert answer.answer.startswith(prompts.NO_PAPER_USES.format(words="“survey”"))
    # what follows a word the papers hold is no side of its own, nor what follows a topic word
    # no paper holds ("seasons": the off-topic question was answered from "Earth")
    assert sides(real_seed_index, "attacks on federated learning") == []
    assert sides(real_seed_index, "What causes the seasons on Earth?") == []
    off = api.ask("what's the weather on Mars?", index=real_seed_index, backend=None)
    assert off.abstained, off.answer


@pytest.mark.slow
def test_a_paper_answering_alone_on_words_papers_hold_says_no_such_thing(
    real_seed_index: Index,
) -> None:
    # On the same single-paper path (the collection signals reject it), but every topic word is
    # in some paper: no line saying otherwise.
    settings = real_seed_index.settings
    question = "Which papers are about recommender systems?"
    answer = api.ask(question, index=real_seed_index, backend=None)
    assert answer.answerability is not None and answer.answerability < settings.min_relevance
    assert {c.hit.paper.authors[0] for c in answer.citations} >= {"Wei Chen"}
    assert not answer.answer.startswith("No paper")
    assert not any(s.get("note") for s in answer.sentences)


@pytest.mark.slow
def test_a_record_question_answered_alone_says_first_which_words_no_paper_uses(
    real_seed_index: Index,
) -> None:
    answer = api.ask(
        "who wrote the paper on polysemantic neurons?", index=real_seed_index, backend=None
    )
    assert answer.citations
    assert answer.answer.startswith(prompts.NEAREST_ONLY.format(words="“polysemantic”"))


def test_a_note_is_not_read_as_an_unsupported_sentence_of_the_model() -> None:
    from rag.answer.rendering import fallback_notice

    note = {"text": prompts.NONE_IN_SET, "note": True, "supported": False, "reason": "note"}
    off = {"text": "A true but off-question line.", "supported": True, "reason": "off_question"}
    assert fallback_notice([note, off]) == prompts.MODEL_OFF_QUESTION
    assert fallback_notice([off, {**off, "supported": False}]) == prompts.NO_SUPPORTED_SENTENCE


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "also"),
    [
        ("which papers use reinforcement learning to train LLMs?", {"Yizhi Li"}),
        # its BM25 score counted the word it does without (a new user, stop 60)
        ("which papers use reinforcement learning to fine-tune language models?", set()),
        # "RL" is held only as the words it stands for, where ConPress does without them
        ("RL fine-tuning of language models", {"Yingru Li"}),
    ],
)
def test_a_paper_that_does_without_the_method_asked_about_is_not_listed(
    real_seed_index: Index, question: str, also: set[str]
) -> None:
    # ConPress names reinforcement learning once, as what it does without ("without external
    # teachers, manual pruning, or reinforcement learning"); it was listed, quoting its prompts.
    found = cited(real_seed_index, question)
    assert "Jie Deng" not in found
    assert {"wenlong deng", *also} <= found


@pytest.mark.slow
def test_a_question_that_asks_to_do_without_a_method_finds_the_papers_that_do(
    real_seed_index: Index,
) -> None:
    # DiPG adapts a model "rather than fine-tuning the model parameters": asked for methods that
    # work without fine-tuning, that mention is what the question asks for.
    assert "Yumeng Zhao" in cited(real_seed_index, "methods that work without fine-tuning")
    assert "Jie Deng" in cited(real_seed_index, "reasoning without reinforcement learning")


@pytest.mark.slow
def test_a_question_no_paper_is_judged_to_address_is_answered_as_the_nearest(
    real_seed_index: Index,
) -> None:
    # Every word is common in the collection, so the signals said it has a paper on it, yet no
    # paper reached the per-paper bar: the answer quoted the first-ranked one, a paper on PDE
    # solvers (the least probable of the ten), as though it answered the question.
    answer = api.ask(
        "do larger models always do better at reasoning?", index=real_seed_index, backend=None
    )
    assert answer.answer.startswith(prompts.NEAREST_WEAK)
    assert answer.sentences[0]["note"] and not answer.sentences[0]["citations"]
    assert "Jaemin Seo" not in {c.hit.paper.authors[0] for c in answer.citations}


@pytest.mark.slow
@pytest.mark.parametrize("question", ["theory of transformers", "what about transformer theory?"])
def test_a_word_is_held_by_a_paper_writing_another_of_its_family(
    real_seed_index: Index, question: str
) -> None:
    # "theory" stems to "theori", "theoretical" to "theoret": both transformer-theory papers
    # were "no paper on this" (two new users, stop 60).
    assert {"Oğuz Yüksel", "Francesco D'Angelo"} <= cited(real_seed_index, question)


@pytest.mark.parametrize(
    ("word", "family"),
    [
        ("theory", {"theori", "theoret"}),
        ("verification", {"verif", "verifi"}),
        ("apply", {"appli", "applic"}),
        ("market", set()),  # not "mark"
        ("memory", {"memori"}),  # not "memor(ization)" (this stop's review)
        ("fully", {"fulli"}),
        ("graph", {"graph"}),
    ],
)
def test_the_family_of_a_stem(seed_index: Index, word: str, family: set[str]) -> None:
    bm25 = seed_index.bm25()
    assert set(bm25.family(bm25.stem(word))) == family
