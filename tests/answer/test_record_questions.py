"""Questions about a paper's record (who wrote it, when, its link) are answered from the record.

Before, "who wrote it?" after an answer on ICGNN quoted ICGNN's method sentence, "authors?"
got the collection overview, and "when was it published?" the method sentence again.
"""

from __future__ import annotations

import pytest

from rag import api
from rag.answer.record_questions import (
    entry_format,
    fields_asked_of_named,
    names_no_paper,
    record_fields,
    record_line,
)
from rag.answer.rendering import Answer
from rag.index.paper_index import Index
from rag.records import Paper
from tests.answer.chat_turns import session

ICGNN_AUTHORS = "Wei Ju, Wei Zhang, Siyu Yi, Zhengyang Mao, Yifan Wang"


@pytest.mark.parametrize(
    ("question", "fields"),
    [
        ("who wrote it?", ("authors",)),
        ("Who are the authors of the paper on tree search rollouts?", ("authors",)),
        ("authors?", ("authors",)),
        ("list the authors", ("authors",)),
        ("when was it published", ("year",)),
        ("what year did ICGNN come out?", ("year",)),
        ("how old is it?", ("year",)),
        ("which of them is the most recent?", ("year",)),  # before: method sentences
        ("which one is newer?", ("year",)),
        ("What's the latest on GRPO?", ()),  # the latest work on a topic, not a record
        ("who wrote the paper on auctions and when", ("authors", "year")),
        ("year and DOI please", ("year", "link")),
        ("is there a pdf?", ("link",)),
        ("where can I read it?", ("link",)),
        # the whole record (before: "source?" searched "source", and quoted CURE and CELL)
        ("source?", ("authors", "year", "link")),
        ("reference please", ("authors", "year", "link")),
        # the people whose paper it is (before: "who proposed TreePO?" quoted its finding)
        ("who proposed TreePO?", ("authors",)),
        ("who came up with ICGNN?", ("authors",)),
        ("who first introduced tree search for RL rollouts?", ("authors",)),
        # about what the papers say, not their record
        ("what do the authors find?", ()),
        ("What did the authors show?", ()),  # before: the author list (stop 58)
        ("what do the sources claim?", ()),
        ("what did they propose?", ()),
        ("who proposed the baselines they compare against?", ()),
        ("who benefits from federated learning?", ()),
        ("who did they compare against?", ()),
        ("which year of data do they use?", ()),
        ("and when does it fail?", ()),
        ("code link?", ()),  # whether the code is out
        ("is the code on github?", ()),
        ("where can I find the code?", ()),
        ("how do they handle PDF files?", ()),
        ("what year did they collect the data?", ()),
        ("when was the dataset released?", ()),
        ("who published the dataset they use?", ()),
        ("list the authors' main contributions", ()),
        ("source domain adaptation", ()),
        ("which source data do they use?", ()),
        # its BibTeX entry (before: "give me the bibtex for the first one" quoted a sentence)
        ("give me the bibtex for the first one", ("authors", "year", "link", "bibtex")),
        ("bibtex please", ("authors", "year", "link", "bibtex")),
        ("how do I cite it?", ("authors", "year", "link", "bibtex")),
        ("what is the citation for ICGNN?", ("authors", "year", "link", "bibtex")),
        ("Thanks. Can you export both as BibTeX?", ("authors", "year", "link", "bibtex")),
        # an export request (before: "export the references" got the collection's overview)
        ("export the references", ("authors", "year", "link", "bibtex")),
        ("can you export all of these papers?", ("authors", "year", "link", "bibtex")),
        ("what do export controls do to trade?", ()),
        # the Export tab's other formats (before: "RIS please" abstained on the word RIS)
        ("RIS please", ("authors", "year", "link", "bibtex")),
        ("can you give me these as RIS for Zotero?", ("authors", "year", "link", "bibtex")),
        ("CSL-JSON for this one please", ("authors", "year", "link", "bibtex")),
        ("what are the risks?", ()),
        ("which papers cite DPO?", ()),
        ("citation count?", ()),
        ("how often is it cited?", ()),
    ],
)
def test_a_question_on_the_record_is_told_from_one_on_the_content(
    question: str, fields: tuple[str, ...]
) -> None:
    assert record_fields(question) == fields


def test_the_record_line_gives_what_the_record_has_and_names_what_it_lacks() -> None:
    full = Paper.create(
        authors=["Ann Lee", "Bo Chen", "Cy Park"],
        abstract="We propose FOO. It works.",
        title="Foo for Bar",
        year=2024,
        doi="10.1/foo",
    )
    line = record_line(full, ("authors",))
    assert line == (
        "Lee et al. (FOO): “Foo for Bar” by Ann Lee, Bo Chen and Cy Park (2024), "
        "https://doi.org/10.1/foo"
    )
    nameless = Paper.create(authors=[], abstract="", title="A Study", year=2020)
    assert record_line(nameless, ("authors",)) == (
        "The paper: its record gives no authors; “A Study” (2020)"
    )
    bare = Paper.create(
        authors=["Ann Lee", "Bo Chen"], abstract="We study x.", authors_truncated=True
    )
    assert record_line(bare, ("year", "link")) == (
        "Lee et al.: its record gives no year and no DOI or link; by Ann Lee, Bo Chen et al."
    )


def _ask(index: Index, question: str, history: list) -> Answer:  # type: ignore[type-arg]
    answer = api.ask(question, index=index, backend=None, history=history)
    history.append((question, answer))
    return answer


@pytest.mark.slow
@pytest.mark.parametrize("follow_up", ["who wrote it?", "authors?", "who are its authors"])
def test_who_wrote_it_is_answered_with_the_authors(real_seed_index: Index, follow_up: str) -> None:
    history: list = []  # type: ignore[type-arg]
    _ask(real_seed_index, "label noise on graphs", history)
    answer = _ask(real_seed_index, follow_up, history)
    assert [c.hit.paper.authors[0] for c in answer.citations] == ["Wei Ju"]
    assert ICGNN_AUTHORS in answer.answer and "Ming Zhang" in answer.answer


@pytest.mark.slow
def test_a_year_the_record_lacks_is_said_to_be_missing(real_seed_index: Index) -> None:
    history: list = []  # type: ignore[type-arg]
    _ask(real_seed_index, "label noise on graphs", history)
    answer = _ask(real_seed_index, "when was it published?", history)
    assert "its record gives no year" in answer.answer
    assert "noise indicator" not in answer.answer  # no abstract sentence passed off as a date


@pytest.mark.slow
def test_a_question_on_what_the_authors_found_is_not_answered_with_their_names(
    real_seed_index: Index,
) -> None:
    answer = api.ask("what do the authors of ICGNN find?", index=real_seed_index, backend=None)
    assert ICGNN_AUTHORS not in answer.answer


@pytest.mark.parametrize(
    ("question", "none"),
    [
        ("who wrote it?", True),
        ("when was it published?", True),
        ("authors?", True),
        ("who wrote ConPress?", False),
        ("who wrote the paper on tree search rollouts?", False),
        ("when was ConPress published?", False),
        ("what year was TreePO released?", False),
    ],
)
def test_a_record_question_may_name_no_paper(question: str, none: bool) -> None:
    assert names_no_paper(question) is none


@pytest.mark.slow
@pytest.mark.parametrize("question", ["who wrote it?", "when was it published?"])
def test_a_record_question_naming_no_paper_first_gets_the_overview(
    real_seed_index: Index, question: str
) -> None:
    # Before, "who wrote it?" as a chat's first message was searched and answered "the
    # collection has no paper on this question. No paper's title or abstract uses 'wrote'".
    answer = api.ask(question, index=real_seed_index, backend=None)
    assert not answer.abstained and not answer.citations
    assert answer.answer.startswith("Your message names no topic"), answer.answer


@pytest.mark.slow
def test_source_gets_the_record_and_the_talk_goes_on_about_that_paper(
    real_seed_index: Index,
) -> None:
    # "source?" was searched as a topic ("source data", "source graph": CURE and CELL), which
    # then became the papers "limitations?" was asked of. After the record line, a follow-up is
    # on the same paper, not on the other "Deng et al." paper nor on a topic called "source".
    history: list = []  # type: ignore[type-arg]
    _ask(real_seed_index, "What does ConPress do?", history)
    source = _ask(real_seed_index, "source?", history)
    assert [c.hit.paper.authors[0] for c in source.citations] == ["Jie Deng"]
    assert "by Jie Deng, Shining Liang" in source.answer
    after = _ask(real_seed_index, "limitations?", history)
    assert [c.hit.paper.authors[0] for c in after.citations] == ["Jie Deng"], after.standalone
    history = []
    _ask(real_seed_index, "why does GRPO collapse in tool-integrated RL?", history)
    _ask(real_seed_index, "source?", history)
    fix = _ask(real_seed_index, "how do they fix it?", history)
    assert "source" not in (fix.standalone or ""), fix.standalone


@pytest.mark.slow
def test_the_page_s_history_resolves_a_record_line_to_its_paper(real_seed_index: Index) -> None:
    # The chat page keeps the answers' text alone: "Deng et al. (ConPress): its record gives
    # ..." was read as the other Deng et al. paper (LLDS), whose authors open the line too.
    messages: list = []  # type: ignore[type-arg]
    for question in ("What does ConPress do?", "source?"):
        answer = api.ask(question, index=real_seed_index, backend=None, history=messages)
        messages += [
            {"role": "user", "content": question},
            {"role": "assistant", "content": answer.answer},
        ]
    after = api.ask("limitations?", index=real_seed_index, backend=None, history=messages)
    assert [c.hit.paper.authors[0] for c in after.citations] == ["Jie Deng"], after.standalone


@pytest.mark.slow
def test_who_proposed_a_method_is_answered_with_its_authors_and_nothing_else_is(
    real_seed_index: Index,
) -> None:
    # "who proposed TreePO?" quoted TreePO's finding; the record line names its authors.
    answer = api.ask("who proposed TreePO?", index=real_seed_index, backend="extractive")
    assert answer.answer.startswith("Li et al. (TreePO): by Yizhi Li"), answer.answer
    # Of papers that are only the nearest, the authors would read as the answer: no record line
    # ("Panchal et al.: by Kunjal Panchal, ..." for "Who invented backpropagation?").
    nearest = api.ask("Who invented backpropagation?", index=real_seed_index, backend="extractive")
    assert ": by " not in nearest.answer, nearest.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    "follow_up",
    [
        # before: "No paper's title or abstract uses “BibTeX”" (a new user, stop 59)
        "give me the references in BibTeX for all of these",
        "export the references",  # before: the collection's overview
    ],
)
def test_an_export_request_after_a_list_gives_each_listed_paper_s_entry(
    real_seed_index: Index, follow_up: str
) -> None:
    history: list = []  # type: ignore[type-arg]
    listed = _ask(real_seed_index, "which papers study graph neural networks?", history)
    answer = _ask(real_seed_index, follow_up, history)
    keys = [c.hit.paper.citation_key for c in listed.citations]
    assert len(keys) >= 2 and not answer.abstained
    assert [c.hit.paper.citation_key for c in answer.citations] == keys
    assert all(f"@misc{{{key}," in answer.answer for key in keys), answer.answer


@pytest.mark.parametrize(
    ("request_", "fmt"),
    [
        ("RIS please", "ris"),
        ("export them for EndNote", "ris"),
        ("as CSL-JSON", "csljson"),
        ("give me the bibtex for the first one", "bibtex"),
        ("export the references", "bibtex"),
    ],
)
def test_a_request_for_entries_names_its_format(request_: str, fmt: str) -> None:
    assert entry_format(request_) == fmt


@pytest.mark.slow
@pytest.mark.parametrize(("follow_up", "fence"), [("RIS please", "ris"), ("as CSL-JSON", "json")])
def test_entries_in_another_format_are_given_in_it(
    real_seed_index: Index, follow_up: str, fence: str
) -> None:
    # before: "RIS please" after a list said no paper's title or abstract uses "RIS"
    history: list = []  # type: ignore[type-arg]
    listed = _ask(real_seed_index, "which papers study graph neural networks?", history)
    answer = _ask(real_seed_index, follow_up, history)
    keys = [c.hit.paper.citation_key for c in listed.citations]
    assert not answer.abstained and [c.hit.paper.citation_key for c in answer.citations] == keys
    assert f"```{fence}\n" in answer.answer and all(key in answer.answer for key in keys)
    assert "AB  - " not in answer.answer and '"abstract"' not in answer.answer


@pytest.mark.slow
@pytest.mark.parametrize("follow_up", ["bibtex please", "authors?"])
def test_a_record_request_s_cards_keep_their_relevance_to_the_question_before(
    real_seed_index: Index, follow_up: str
) -> None:
    # After "bibtex please" the card read "relevance 0.00": its paper's cosine to the request
    # (a new user at both widths). It is its relevance to the question its answer was on.
    first_question = "Which papers deal with noisy labels on graphs?"
    first = api.ask(first_question, index=real_seed_index, backend="extractive")
    then = api.ask(
        follow_up, index=real_seed_index, backend="extractive", history=[(first_question, first)]
    )
    before = {c.hit.paper.id: c.hit.relevance for c in first.citations}
    after = {c.hit.paper.id: c.hit.relevance for c in then.citations}
    assert after and set(after) <= set(before)
    assert all(after[pid] == pytest.approx(before[pid], abs=1e-6) for pid in after), (before, after)


@pytest.mark.slow
@pytest.mark.parametrize(
    "request_", ["give me a BibTeX for them", "export them", "RIS for them", "export these"]
)
def test_records_of_them_after_one_paper_of_a_set_are_the_set_s(
    real_seed_index: Index, request_: str
) -> None:
    # A new user (stop 67): after the federated-learning list and "what did the second one
    # find?", "give me a BibTeX for them" exported the second paper alone.
    questions = ["Which papers deal with federated learning?", "what did the second one find?"]
    listing, second, answer = session(real_seed_index, [*questions, request_])
    listed = {c.hit.paper.citation_key for c in listing.citations}
    assert len(listed) > 1 and len(second.citations) == 1
    assert {c.hit.paper.citation_key for c in answer.citations} == listed, answer.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("request_", "key", "fence"),
    [
        # before: IDFT's finding under "No paper's title or abstract uses “bibtex”" (stop 66)
        ("bibtex for IDFT", "xiao_idft", "bibtex"),
        ("give me the bibtex entry of the ConPress paper", "deng_conpress", "bibtex"),
        # before: the record line under "No paper's title or abstract uses “RIS”", no entry
        ("RIS for ICGNN please", "ju_icgnn", "ris"),
    ],
)
def test_a_request_for_a_named_paper_s_entry_gives_it(
    real_seed_index: Index, request_: str, key: str, fence: str
) -> None:
    answer = api.ask(request_, index=real_seed_index, backend="extractive")
    assert [c.hit.paper.citation_key for c in answer.citations] == [key], answer.answer
    assert f"```{fence}\n" in answer.answer and key in answer.answer, answer.answer
    assert "No paper's title" not in answer.answer, answer.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("request_", "key"),
    [
        # before: its finding (a re-trial, stop 66)
        ("reference for Certified Circuits", "anani_certified"),
        ("Certified Circuits reference?", "anani_certified"),
        ("ICGNN authors", "ju_icgnn"),
        ("source for the PoLar paper", "li_polar"),
        # before: "No paper's title or abstract uses “citation”."
        ("citation for ICGNN", "ju_icgnn"),
    ],
)
def test_a_field_name_beside_a_named_paper_asks_for_its_record(
    real_seed_index: Index, request_: str, key: str
) -> None:
    answer = api.ask(request_, index=real_seed_index, backend="extractive")
    assert [c.hit.paper.citation_key for c in answer.citations] == [key], answer.answer
    assert [s["reason"] for s in answer.sentences] == ["record"], answer.answer


@pytest.mark.parametrize(
    ("question", "name", "fields"),
    [
        ("bibtex for IDFT", "IDFT", ("authors", "year", "link", "bibtex")),
        ("reference for ICGNN", "ICGNN", ("authors", "year", "link")),
        ("ICGNN authors", "ICGNN", ("authors",)),
        ("when was ConPress published?", "ConPress", ("year",)),
        ("source for the PoLar paper", "PoLar", ("authors", "year", "link")),
        ("who wrote ICGNN and is it fast?", "ICGNN", ()),  # asks something besides the record
        ("what do the authors of ICGNN find?", "ICGNN", ()),  # what they say, not who they are
        # "show" is also a word of chat ("show me"): it got the author list (read-through)
        ("what do the authors of ICGNN show?", "ICGNN", ()),
        ("what did the authors of PoLar report?", "PoLar", ()),
        ("what does ICGNN do?", "ICGNN", ()),
        ("ICGNN", "ICGNN", ()),
    ],
)
def test_the_fields_asked_of_a_named_paper_are_read_from_the_rest(
    question: str, name: str, fields: tuple[str, ...]
) -> None:
    rest = " ".join(question.replace(name, " ").split())
    assert fields_asked_of_named(question, rest) == fields
