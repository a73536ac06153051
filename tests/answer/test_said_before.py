"""A follow-up on papers already shown gets what was not said of them yet ("Tell me more.")."""

from __future__ import annotations

import pytest

from rag import prompts
from rag.answer.compose import Kind, already_said, asks_of_papers, choose, states_number
from rag.answer.evidence import Evidence, paper_sentence_roles, paper_sentences
from rag.answer.relevance import RelevanceCheck
from rag.index.paper_index import Index
from rag.ingest.wanted import names_what_it_wants
from rag.records import Hit, Paper
from tests.answer.chat_turns import chat, first_authors


def quoted(index: Index, result, author: str) -> set[str]:  # type: ignore[no-untyped-def]
    """The abstract sentences of `author`'s paper that `result` shows."""
    paper = next(p for p in index.papers.values() if p.authors[0] == author)
    return {s for s in paper_sentences(paper) if already_said(s, result.answer)}


def test_a_sentence_is_said_whatever_its_rewritten_opening() -> None:
    sentence = "We propose ICGNN, which corrects noisy labels with the predictions of neighbours."
    shown = (
        "Ju et al. (ICGNN) propose ICGNN, which corrects noisy labels with the predictions of "
        "neighbours [1]."
    )
    assert already_said(sentence, shown)
    assert not already_said(sentence, "Ju et al. (ICGNN) study noisy labels on graphs [1].")
    assert not already_said("", shown)


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("Tell me more.", False),
        ("the second one", False),
        ("what did they find?", True),
        ("How does it work?", True),
        ("Why?", True),
        ("how well does it do?", True),
        ("How fast is it?", True),
        ("how robust are they", True),
        ("How about the others?", False),
    ],
)
def test_a_follow_up_may_name_what_it_wants(question: str, names: bool) -> None:
    assert names_what_it_wants(question) is names


@pytest.mark.slow
def test_tell_me_more_shows_a_sentence_not_shown_before(real_seed_index: Index) -> None:
    first, more, again = chat(
        real_seed_index, ["Tell me about ConPress.", "Tell me more.", "Tell me more."]
    )
    assert first_authors(first) == first_authors(more) == first_authors(again) == ["Jie Deng"]
    said = quoted(real_seed_index, first, "Jie Deng")
    more_said = quoted(real_seed_index, more, "Jie Deng")
    assert said and more_said and said.isdisjoint(more_said)
    assert quoted(real_seed_index, again, "Jie Deng").isdisjoint(said | more_said)


@pytest.mark.slow
def test_an_ordinal_after_a_list_gives_more_than_the_list_line(real_seed_index: Index) -> None:
    listed, second = chat(
        real_seed_index, ["Which papers study graph neural networks?", "the second one"]
    )
    author = first_authors(listed)[1]
    assert first_authors(second) == [author]
    assert quoted(real_seed_index, second, author).isdisjoint(
        quoted(real_seed_index, listed, author)
    )


def test_a_paper_pointed_at_again_gets_a_sentence_not_said_even_off_its_words(
    seed_index: Index,
) -> None:
    # "Tell me more about the first one." after a list: its words are the paper's name, and
    # the list's line may be the only sentence about them; before, that line came back.
    paper = next(p for p in seed_index.papers.values() if p.authors[0] == "Wei Ju")
    sentences = paper_sentences(paper)
    question = "tell me more about ICGNN"
    only_best = RelevanceCheck(seed_index.embedder, question, sentences, threshold=-1.0, margin=0)
    evidence = Evidence(1, Hit(paper, 1, 1.0, ""), (), ())
    shown = choose(question, Kind.GENERAL, only_best, evidence)
    assert shown is not None
    again = choose(question, Kind.GENERAL, only_best, evidence, said=f"- {shown.sentence} [1]")
    assert again is not None and again.sentence != shown.sentence


@pytest.mark.slow
def test_how_well_after_an_answer_gives_the_finding_again(real_seed_index: Index) -> None:
    # Before, the finding shown first counted as said, and "how well" got a method sentence.
    first, how_well = chat(real_seed_index, ["anything on auctions?", "how well does it do?"])
    assert first_authors(first) == first_authors(how_well) == ["Haoran Sun"]
    paper = next(p for p in real_seed_index.papers.values() if p.authors[0] == "Haoran Sun")
    roles = dict(paper_sentence_roles(paper))
    shown = quoted(real_seed_index, how_well, "Haoran Sun")
    assert shown and all(roles[s] in ("result", "conclusion") for s in shown), how_well.answer


@pytest.mark.slow
def test_how_much_after_an_answer_is_answered_by_the_quantity_shown(
    real_seed_index: Index,
) -> None:
    # "the second one - how much does it save?" was told ASMC's abstract did not seem to
    # address it: its "p95 = 73.7 s" had been shown, and no sentence says "save" (a new user).
    first, second = chat(
        real_seed_index,
        ["How can LLM inference be made cheaper?", "the second one - how much does it save?"],
    )
    assert first_authors(second) == first_authors(first)[1:2]
    assert "does not seem to address" not in second.answer
    assert "does not state" not in second.answer
    assert states_number(second.sentences[0]["text"]), second.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    "follow_up",
    [
        "the second one - how much does it cost in API fees?",
        "the second one - how many languages does it support?",
    ],
)
def test_how_much_of_a_topic_no_sentence_holds_says_so(
    real_seed_index: Index, follow_up: str
) -> None:
    # A number on something else is no answer: ASMC's "p95 = 73.7 s" was shown for API fees (a
    # review of the rule above).
    first, second = chat(real_seed_index, ["How can LLM inference be made cheaper?", follow_up])
    assert first_authors(second) == first_authors(first)[1:2]
    said = ("does not seem to address this", "does not state")
    assert any(n in second.answer for n in said), second.answer


@pytest.mark.slow
def test_what_did_they_find_after_a_finding_gives_another(real_seed_index: Index) -> None:
    # "what did they find?" after Deng et al.'s gains got the same sentence again, word for
    # word, not the bottleneck they found (a new user at both widths).
    first, found = chat(real_seed_index, ["GRPO training colapse", "what did they find?"])
    assert first_authors(first) == first_authors(found) == ["wenlong deng"]
    paper = next(p for p in real_seed_index.papers.values() if p.authors[0] == "wenlong deng")
    roles = dict(paper_sentence_roles(paper))
    again = quoted(real_seed_index, found, "wenlong deng")
    assert again and not again & quoted(real_seed_index, first, "wenlong deng"), found.answer
    assert all(roles[s] in ("result", "conclusion") for s in again), found.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    "questions",
    [
        ["federated learning", "why did they do it?"],
        ["federated learning", "what did they find?"],
        ["what did Guan et al. find?"],
        # "second" and "one" were taken for what it asks about, and no sentence held them.
        ["compare the approaches to long context", "what did the second one find?"],
        ["compare the approaches to long context", "The second one — what does it find?"],
    ],
)
def test_a_question_on_the_papers_alone_is_addressed_by_them(
    real_seed_index: Index, questions: list[str]
) -> None:
    # Its only words (after the rewrite) are the papers' names: before, no sentence held them
    # and the answer said the abstracts "do not seem to address this".
    last = chat(real_seed_index, questions)[-1]
    assert last.citations, last.answer
    assert not says_not_addressed(last.answer), last.answer


def says_not_addressed(answer: str) -> bool:
    """Whether `answer` says its abstracts do not address the question."""
    one = prompts.NOT_ADDRESSED_ONE.split("{who}")[-1]
    return prompts.NOT_ADDRESSED in answer or one in answer


def test_a_word_of_a_paper_s_name_written_as_a_word_is_asked() -> None:
    # "cells" is a word, "CELL" the paper: the follow-up asks about cells, not only for the
    # papers (before, every word of a method's name was taken for the name).
    cell = Paper.create(authors=["Hourun Li"], abstract="We propose CELL, for fair graphs.")
    guan = Paper.create(authors=["Renxiang Guan"], abstract="We propose federated clustering.")
    assert asks_of_papers("what did they find about cells?", [cell, guan]) == ["cell"]
    assert asks_of_papers("what did Guan et al. and CELL find?", [cell, guan]) == []
    assert asks_of_papers("why did they do it?", [cell, guan]) == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("follow_up", "wanted"),
    [
        # After "privacy", Guan et al.'s line was the background sentence that mentions privacy
        # and IndexGuard's the one naming it: the names the rewrite put in chose them.
        ("what did they find?", ("result", "conclusion")),
        # Led by no word of the question, the fitted choice gave Guan et al.'s method and
        # IndexGuard's finding.
        ("why did they do it?", ("background",)),
    ],
)
def test_a_question_on_the_papers_alone_quotes_the_role_it_wants(
    real_seed_index: Index, follow_up: str, wanted: tuple[str, ...]
) -> None:
    first, second = chat(real_seed_index, ["privacy", follow_up])
    assert first_authors(second) == first_authors(first)
    for author in first_authors(second):
        paper = next(p for p in real_seed_index.papers.values() if p.authors[0] == author)
        roles = dict(paper_sentence_roles(paper))
        shown = quoted(real_seed_index, second, author)
        assert shown and all(roles[s] in wanted for s in shown), second.answer


@pytest.mark.slow
@pytest.mark.parametrize("follow_up", ["what did the first paper conclude?", "its outcome?"])
def test_a_paper_pointed_at_for_its_conclusion_gets_a_finding(
    real_seed_index: Index, follow_up: str
) -> None:
    # "conclude" did not ask for a finding and stood as a word no sentence held: the line was
    # the one naming the paper's method.
    first, second = chat(real_seed_index, ["compare the approaches to long context", follow_up])
    author = first_authors(first)[0]
    assert first_authors(second) == [author]
    paper = next(p for p in real_seed_index.papers.values() if p.authors[0] == author)
    roles = dict(paper_sentence_roles(paper))
    shown = quoted(real_seed_index, second, author)
    assert shown and all(roles[s] in ("result", "conclusion") for s in shown), second.answer
