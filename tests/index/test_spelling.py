"""Misspelled query words are read as the collection's words; nothing else is touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag import api
from rag.answer.abstention import question_terms
from rag.index.paper_index import Index
from rag.index.spelling import corrected, english_slips, slips
from rag.ingest.pipeline import ingest
from rag.text import spelling_variants


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("graph nueral netwroks", "graph neural networks"),
        ("federaed lerning privacy", "federated learning privacy"),
        ("backdor atacks on federated LoRA", "backdoor attacks on federated LoRA"),
        (
            "Which papers study interpretabilty circuts?",
            "Which papers study interpretability circuits?",
        ),
        ("learning with nosiy lables", "learning with noisy labels"),  # five letters
        ("grpah prompting", "graph prompting"),
        # A slip in the ending the stemmer strips: BM25 matched "reinforc", so the word was
        # left as typed, MiniLM saw word pieces, and the question was answered "no paper".
        ("reinforcment lerning atari", "reinforcement learning atari"),
        ("clusterring with side informaton", "clustering with side information"),
        ("auction revenu", "auction revenue"),
        # One slip from "federented" and "federeated" only, which stem as "federated" does:
        # the word the papers write was searched, not a new misspelling (a new user).
        ("federeted learning privcy", "federated learning privacy"),
        # An author's name BM25 holds and no abstract writes: read as the name, no crash.
        ("mondorff interpretability", "mondorf interpretability"),
    ],
)
def test_a_misspelled_word_becomes_the_collections_word(
    seed_index: Index, typed: str, meant: str
) -> None:
    assert corrected(seed_index, typed) == meant


@pytest.mark.parametrize(
    "text",
    [
        "Which papers deal with long-context LLMs?",  # words the collection uses
        "What is ConPress?",  # a method name
        "qwen and GRPO",  # a model's name in lowercase, an acronym
        "sourdough recipies with hydratoin",  # off topic: "recipies" is nearer English "recipes"
        "gardenning tips",  # no collection word one slip away
        "ventral tegmental neurons",  # a real term the collection lacks
        "graph prompt lern",  # too short to tell a slip from another word
        # Not read as a four-letter word ("rank"): on SciFact, the gene "nexin" became "nexi".
        "rankk allocation",
    ],
)
def test_known_words_names_and_off_topic_words_stay_as_typed(seed_index: Index, text: str) -> None:
    assert corrected(seed_index, text) == text


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        # "discus" is an English word, so it stayed, and counted as a topic word no paper uses:
        # "no paper on this" while Cao et al. write of reward hacking.
        ("wich paprs discus reward hacking", "wich papers discuss reward hacking"),
        ("anythign else on graphs?", "anything else on graphs?"),
        # An English word as common as the asking word one slip away may name the topic.
        ("sports analytics", "sports analytics"),  # not "sorts"
        ("three graph papers", "three graph papers"),  # not "there"
        ("an attacker couldn't get around this", "an attacker couldn't get around this"),
    ],
)
def test_a_slip_in_how_a_question_is_asked_is_read_as_that_word(
    seed_index: Index, typed: str, meant: str
) -> None:
    assert corrected(seed_index, typed) == meant


def test_a_form_of_a_word_the_papers_write_stays_as_typed(
    tmp_path: Path, fake_index: Index
) -> None:
    # What SciFact's claims hold: words BM25 matches through their stem that no paper writes
    # as typed. A plural is no slip ("mosquitos" is not "mosquitoes"), nor is a word read as
    # one of another stem ("statins" is not "stains").
    abstracts = [
        "Statin therapy lowers cholesterol; the statin dose matters. Cells stains were used.",
        "Dengue virus produced in mosquitoes elicits antibodies in primates.",
        "Helminth coinfection alters immune control of microbial pathogens.",
        "Receptor engagement halts the activation of the ligase.",
    ]
    papers = tmp_path / "papers.jsonl"
    papers.write_text(
        "".join(
            json.dumps({"authors": [f"Ann Author{i}"], "abstract": a}) + "\n"
            for i, a in enumerate(abstracts)
        ),
        encoding="utf-8",
    )
    ingest([papers], fake_index)
    for text in ("statins and statin", "produced in mosquitos", "helminth coinfections"):
        assert corrected(fake_index, text) == text
    assert corrected(fake_index, "receptor engagment") == "receptor engagement"


def test_english_slips_are_the_english_words_one_slip_away_most_common_first() -> None:
    assert english_slips("hapen")[0] == "happen"
    assert english_slips("becuase")[0] == "because"
    assert english_slips("happen") == []  # an English word is no slip
    assert english_slips("waht") == []  # too short: four-letter words have many neighbours
    assert english_slips("Hapen") == []  # as typed: a capital may start a name


def test_a_slip_is_a_letter_dropped_added_or_swapped_never_replaced() -> None:
    assert {"neural", "networks"} <= slips("nueral") | slips("netwroks")
    assert "clustering" in slips("clustring")
    assert "segmental" not in slips("tegmental")  # SciFact: a real term, not a typo


def test_an_empty_collection_corrects_nothing(fake_index: Index) -> None:
    assert corrected(fake_index, "graph nueral netwroks") == "graph nueral netwroks"


@pytest.mark.slow
def test_a_misspelled_question_is_answered_and_says_what_was_searched(
    real_seed_index: Index,
) -> None:
    # Before, "graph nueral netwroks" said the collection had no paper on it.
    answer = api.ask("graph nueral netwroks", index=real_seed_index, backend=None)
    assert not answer.abstained
    assert answer.standalone == "graph neural networks"
    cited = {c.hit.paper.authors[0] for c in answer.citations}
    assert "Wei Ju" in cited


@pytest.mark.slow
def test_a_slip_in_a_words_ending_is_read_and_the_question_answered(
    real_seed_index: Index,
) -> None:
    # Before: "Searched: reinforcment learning atari" and "no paper on this".
    answer = api.ask("reinforcment lerning atari", index=real_seed_index, backend=None)
    assert answer.standalone == "reinforcement learning atari"
    assert not answer.abstained, answer.answer
    assert "wenlong deng" in {c.hit.paper.authors[0] for c in answer.citations}


@pytest.mark.slow
def test_a_question_with_a_slip_in_its_asking_words_is_answered(real_seed_index: Index) -> None:
    answer = api.ask("wich paprs discus reward hacking", index=real_seed_index, backend=None)
    assert not answer.abstained, answer.answer
    assert "Chuxue Cao" in {c.hit.paper.authors[0] for c in answer.citations}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("typed", "spelled"),
    [
        # A new user (stop 63): "hapen" was taken for a topic word no paper uses, so the
        # answer was "no paper on this" while the question spelled right finds ExPLAIND.
        ("why does grokking hapen?", "why does grokking happen?"),
        (
            "does grokking hapen because of weight decay?",
            "does grokking happen because of weight decay?",
        ),
    ],
)
def test_a_slip_of_a_word_that_names_no_topic_is_answered_as_spelled(
    real_seed_index: Index, typed: str, spelled: str
) -> None:
    slip = api.ask(typed, index=real_seed_index, backend=None)
    right = api.ask(spelled, index=real_seed_index, backend=None)
    assert "hapen" not in slip.answer
    assert slip.abstained == right.abstained
    assert [c.hit.paper.id for c in slip.citations] == [c.hit.paper.id for c in right.citations]


@pytest.mark.slow
def test_a_slip_of_a_word_the_papers_hold_stays_a_topic_word(real_seed_index: Index) -> None:
    # "recommendation" alone is judged a word of no topic; "recomendation" as typed in "anything
    # on generative recomendation?" still names the papers' topic (the rewrite of "how does it
    # use multimodal signals" after it kept only "generative" while this read it as no topic).
    terms = question_terms(real_seed_index, "anything on generative recomendation?")
    assert "recomend" in {t for t, _ in terms}, terms


@pytest.mark.slow
def test_a_misspelled_off_topic_question_still_abstains(real_seed_index: Index) -> None:
    answer = api.ask("sourdough recipies with hydratoin", index=real_seed_index, backend=None)
    assert answer.abstained


@pytest.mark.slow
@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("math reasoning", "mathematics reasoning"),
        (
            "Which papers work on math reasoning with LLMs?",
            "Which papers work on mathematics reasoning with LLMs?",
        ),
    ],
)
def test_a_clipped_word_is_read_as_the_word_it_clips(
    real_seed_index: Index, typed: str, meant: str
) -> None:
    assert corrected(real_seed_index, typed) == meant


@pytest.mark.slow
@pytest.mark.parametrize(
    "text",
    [
        # English words the seeds lack, each the start of a seed word: none is a clipping
        "How long should bread dough be kneaded by hand?",  # not "handle"
        "Why did the Western Roman Empire fall?",  # not "fallback"
        "How do black holes lose mass through Hawking radiation?",  # not "massive"
        "Do attention heads compete or cooperate?",  # not "competition"
        "what do they conclude about running every layer once?",  # not "everything"
    ],
)
def test_english_words_are_never_read_as_clippings(real_seed_index: Index, text: str) -> None:
    assert corrected(real_seed_index, text) == text


@pytest.mark.slow
def test_a_question_with_a_clipped_word_is_answered(real_seed_index: Index) -> None:
    # Before, "math" counted as a topic word no paper uses: "no paper on this", while three
    # seed papers are on mathematical reasoning.
    answer = api.ask("how do models get better at math", index=real_seed_index, backend=None)
    assert not answer.abstained
    cited = {c.hit.paper.authors[0] for c in answer.citations}
    assert cited & {"Ziyue Li", "Chuxue Cao", "Ruobing Zuo"}


@pytest.mark.slow
def test_a_clipped_term_no_english_list_holds_is_read_from_the_papers(
    real_seed_index: Index,
) -> None:
    # "backpropagation" is in no English word list, so "backprop" stayed as typed and the answer
    # said "No paper's title or abstract uses 'backprop'" while Panchal et al. compare BP with
    # backpropagation-free fine-tuning.
    assert corrected(real_seed_index, "backprop alternatives") == "backpropagation alternatives"
    answer = api.ask("is backprop needed for fine-tuning?", index=real_seed_index, backend=None)
    assert not answer.abstained and "uses “backprop”" not in answer.answer
    assert [c.hit.paper.authors[0] for c in answer.citations] == ["Kunjal Panchal"]


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("policy optimisation", "policy optimization"),
        ("regularisation of networks", "regularization of networks"),
        (
            "Generalisation in overparameterised models",
            "Generalization in overparameterized models",
        ),
        ("the behaviour of attention", "the behavior of attention"),
    ],
)
def test_a_british_spelling_is_read_as_the_collection_spells_it(
    seed_index: Index, typed: str, read: str
) -> None:
    assert corrected(seed_index, typed) == read


@pytest.mark.parametrize(
    ("word", "other"),
    [
        ("optimisation", "optimization"),
        ("optimization", "optimisation"),
        ("organisational", "organizational"),
        ("labelled", "labeled"),
        ("labeled", "labelled"),
        ("behaviour", "behavior"),
        ("tumour", "tumor"),
        ("analyse", "analyze"),
        ("centre", "center"),
        ("centred", "centered"),
        ("catalogue", "catalog"),
        ("defence", "defense"),
        ("oestrogen", "estrogen"),
        ("anaemia", "anemia"),
        ("anemia", "anaemia"),
    ],
)
def test_a_word_s_other_spelling(word: str, other: str) -> None:
    assert other in spelling_variants(word)


@pytest.mark.parametrize(
    ("word", "not_it"),
    [
        ("being", "boeing"),
        ("poets", "pets"),
        ("filled", "filed"),
        ("filling", "filing"),
        ("prize", "prise"),
        ("four", "for"),
    ],
)
def test_an_english_word_is_not_another_s_spelling(word: str, not_it: str) -> None:
    assert not_it not in spelling_variants(word)


@pytest.mark.slow
def test_a_question_in_british_spelling_gets_the_american_one_s_papers(
    real_seed_index: Index,
) -> None:
    # Before, the British form said the collection had no paper on it.
    us, uk = (
        api.ask(
            f"Which papers are about the theory of {word} in {over} models?",
            index=real_seed_index,
            backend=None,
        )
        for word, over in (
            ("generalization", "overparameterized"),
            ("generalisation", "overparameterised"),
        )
    )
    assert not us.abstained and not uk.abstained, uk.answer
    assert {c.hit.paper.id for c in uk.citations} == {c.hit.paper.id for c in us.citations}
