"""The chat handler and the source cards, called directly over a fake-embedding index."""

from __future__ import annotations

import html
import json
import re
from itertools import pairwise
from pathlib import Path

import pytest

from rag import api, prompts
from rag.answer.rendering import Answer
from rag.cite.claims import MIN_SCORE, NEAR_MISS
from rag.errors import BackendError, ConfigError
from rag.index.paper_index import Index
from rag.ingest.pipeline import ingest
from rag.records import Hit, Paper
from rag.settings import Settings
from rag.ui import app as ui
from rag.ui import render as ui_render
from rag.ui import tabs as ui_tabs
from rag.ui.layout import backend_choices
from tests.fake_embedding import FakeEmbedding
from tests.fakes import FakeLLM

QUESTION = "Which papers deal with noisy labels on graphs?"
OFF_TOPIC = "sourdough bread recipe with rye flour"
SCRIPT = "<script>alert(1)</script>"


def ask(index: Index, settings: Settings, message: str, **options: object) -> list:
    """Run the chat handler to the end; return every (history, cards) it yielded."""
    options.setdefault("backend", "extractive")
    return list(ui.chat(message, [], index=index, settings=settings, **options))


def assistant_messages(steps: list) -> list[str]:
    """The answer text as it grew (the progress line it replaces is not answer text)."""
    return [
        h[-1]["content"]
        for h, _ in steps
        if h and h[-1]["role"] == "assistant" and h[-1]["content"] != ui_render.render_pending()
    ]


def test_answer_streams_and_cites_the_paper_shown_in_a_card(
    seed_index: Index, settings: Settings
) -> None:
    steps = ask(seed_index, settings, QUESTION)
    history, cards = steps[-1]

    assert [m["role"] for m in history] == ["user", "assistant"]
    assert history[0]["content"] == QUESTION
    final = history[-1]["content"]
    assert '<a class="cite" href="#t0-source-1">[1]</a>' in final

    expected = api.ask(QUESTION, index=seed_index, settings=settings, backend="extractive")
    first = expected.citations[0]
    card = re.search(r'<article class="source-card" id="t0-source-1">.*?</article>', cards, re.S)
    assert card, cards
    assert first.hit.paper.citation_key in card.group(0)
    assert "Wei Ju" in card.group(0)
    marked = re.search(r"<mark>(.*?)</mark>", card.group(0), re.S)
    assert marked and marked.group(0)
    assert " ".join(marked.group(1).split()) in " ".join(first.evidence.split())
    # One card per citation, numbered as in the answer.
    assert cards.count('class="source-card"') == len(expected.citations)


def test_answer_grows_piece_by_piece(seed_index: Index, settings: Settings) -> None:
    # A "which papers" question draws on several papers: one checked, cited line at a time.
    steps = ask(seed_index, settings, "Which papers use graph neural networks on graph data?")
    streamed = assistant_messages(steps)
    assert len(streamed) >= 3
    assert all(later.startswith(earlier) for earlier, later in pairwise(streamed))
    assert all("[1]" in piece for piece in streamed if piece)


def converse(index: Index, settings: Settings, questions: list[str]) -> tuple[list, list[Answer]]:
    """Ask `questions` in one chat as the app does; return the last one's steps and the answers.

    Each turn gets the history as Gradio hands it back (each message's content a list of text
    parts) and the earlier answers the app keeps.
    """
    history: list = []
    answers: list[Answer] = []
    steps: list = []
    for question in questions:
        returned = [
            {**m, "content": [{"type": "text", "text": m["content"]}]}
            if isinstance(m["content"], str)
            else m
            for m in history
        ]
        chat = ui.chat(question, returned, index=index, settings=settings, backend="extractive",
                       earlier=list(answers), on_answer=answers.append)  # fmt: skip
        steps = list(chat)
        history = steps[-1][0]
    return steps, answers


def text_of(message: dict) -> str:
    """Return a chat message's text, as the handler made it or as Gradio hands it back."""
    content = message["content"]
    return content if isinstance(content, str) else content[0]["text"]


# A turn's section of the source panel: its number, whether it is hidden, its cards.
SECTION = re.compile(r'<section class="sources" data-turn="(\d+)"( hidden)?>(.*?)</section>', re.S)


def sections(cards: str) -> dict[int, tuple[bool, str]]:
    """Return each turn's section of the source panel: (hidden, its HTML)."""
    return {int(turn): (bool(hidden), body) for turn, hidden, body in SECTION.findall(cards)}


def test_every_answer_links_to_its_own_cards(seed_index: Index, settings: Settings) -> None:
    questions = [QUESTION, "graph fairness"]
    steps, answers = converse(seed_index, settings, questions)
    history, cards = steps[-1]

    first, latest = text_of(history[1]), text_of(history[-1])
    assert '<a class="cite" href="#t0-source-1">[1]</a>' in first
    assert '<a class="cite" href="#t1-source-1">[1]</a>' in latest
    # Each answer's cards in a section of their own, headed by its question; the latest shown.
    shown = sections(cards)
    assert sorted(shown) == [0, 1]
    assert shown[0][0] and not shown[1][0]
    for turn, (question, answer) in enumerate(zip(questions, answers, strict=True)):
        body = shown[turn][1]
        assert f"for “{question}”" in body
        card = re.search(rf'<article [^>]*id="t{turn}-source-1">.*?</article>', body, re.S)
        assert card and answer.citations[0].hit.paper.citation_key in card.group(0)
    assert answers[0].citations[0].hit.paper.id != answers[1].citations[0].hit.paper.id
    # Every link of every answer has its one card on the page.
    ids = re.findall(r' id="([^"]+)"', cards)
    assert len(ids) == len(set(ids))
    links = re.findall(r'href="#([^"]+)"', first + latest)
    assert links and set(links) <= set(ids)


def test_while_an_answer_streams_the_earlier_cards_stay_unchanged(
    seed_index: Index, settings: Settings
) -> None:
    questions = [QUESTION, "How can large language models be made to reason more reliably?"]
    steps, answers = converse(seed_index, settings, questions)

    streamed = [cards for _, cards in steps[:-1]]
    assert len(streamed) >= 3
    # The first answer's cards stay (hidden) for its links, and the place of the new answer's
    # cards is what shows.
    waiting = sections(streamed[0])
    assert list(waiting) == [0] and waiting[0][0] and 'id="t0-source-1"' in waiting[0][1]
    assert streamed[0].endswith(
        '<section class="sources sources-waiting"><div class="sources-empty">The papers an '
        "answer cites will appear here.</div></section>"
    )
    # Gradio sends only what changed in a streamed output: the panel is one value while the
    # answer streams, and the new cards come as an addition to it, so the earlier answers'
    # cards are not sent again with each piece of the answer.
    history, cards = steps[-1]
    assert len(set(streamed)) == 1
    assert cards.startswith(streamed[0]) and 'id="t1-source-1"' in cards[len(streamed[0]) :]
    # An empty question changes nothing: the links of the answers so far still have cards.
    again = list(ui.chat("  ", history, index=seed_index, settings=settings,
                         earlier=answers))  # fmt: skip
    assert again == [(history, cards)]


def test_an_earlier_abstention_keeps_no_cards(seed_index: Index, settings: Settings) -> None:
    steps, _ = converse(seed_index, settings, [QUESTION, OFF_TOPIC, "graph fairness"])
    _, cards = steps[-1]
    # No [n] in the chat shows its nearest papers again: only the cited cards are kept.
    assert sorted(sections(cards)) == [0, 2]
    assert "Nearest papers" not in cards


def test_without_the_earlier_answers_only_the_latest_links_to_cards(
    seed_index: Index, settings: Settings
) -> None:
    # A script handing the chat its history but not the answers: no cards for the older links.
    history, _ = ask(seed_index, settings, QUESTION)[-1]
    returned = [{**m, "content": [{"type": "text", "text": m["content"]}]} for m in history]
    steps = list(
        ui.chat(
            "graph fairness", returned, index=seed_index, settings=settings, backend="extractive"
        )
    )
    history, cards = steps[-1]

    first_answer = history[1]["content"][0]["text"]
    assert "href=" not in first_answer
    assert r"\[1\]" in first_answer
    assert 'href="#t0-source-1"' in history[-1]["content"]
    assert sorted(sections(cards)) == [0]


def test_the_panel_keeps_the_last_answers_cards_and_older_numbers_turn_plain(
    seed_index: Index, settings: Settings
) -> None:
    kept = ui_render.KEPT_TURNS
    answer = api.ask(QUESTION, index=seed_index, settings=settings, backend="extractive")
    history: list = []
    for turn in range(kept):
        history += [
            {"role": "user", "content": QUESTION},
            {"role": "assistant", "content": ui.render_turn(answer, turn=turn)},
        ]

    steps = list(ui.chat("graph fairness", history, index=seed_index, settings=settings,
                         backend="extractive", earlier=[answer] * kept))  # fmt: skip
    history, cards = steps[-1]

    assert sorted(sections(cards)) == list(range(1, kept + 1))
    oldest = text_of(history[1])
    assert "href=" not in oldest and r"\[1\]" in oldest  # its cards are gone: plain text
    assert 'href="#t1-source-1"' in text_of(history[3])
    assert f'href="#t{kept}-source-1"' in text_of(history[-1])


def test_off_topic_question_abstains_and_shows_the_nearest_papers(
    seed_index: Index, settings: Settings
) -> None:
    settings = settings.model_copy(update={"nearest_floor": 0.0})  # fake vectors come near nothing
    history, cards = ask(seed_index, settings, OFF_TOPIC)[-1]

    assert "no paper on this question" in history[-1]["content"]
    assert 'class="cite"' not in history[-1]["content"]
    assert "Nearest papers" in cards
    assert re.search(r'<article class="source-card" id="t0-nearest-\d+">', cards)
    assert cards.count('class="source-card"') >= 1
    assert "<mark>" not in cards  # nothing supports an answer, so nothing is highlighted


def test_an_abstention_near_no_paper_shows_no_card(seed_index: Index, settings: Settings) -> None:
    history, cards = ask(seed_index, settings, OFF_TOPIC)[-1]
    assert prompts.NONE_NEAR in history[-1]["content"]
    assert "source-card" not in cards


def test_html_in_an_abstract_is_escaped_in_cards_and_answer(
    seed_index: Index, settings: Settings, tmp_path: Path
) -> None:
    record = {
        "authors": ["Mallory Hacker"],
        "area": "Security",
        "abstract": f"Zebra giraffe savanna migration patterns {SCRIPT} are tracked. "
        "We count zebra herds by drone.",
    }
    path = tmp_path / "evil.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    ingest([path], seed_index)

    history, cards = ask(seed_index, settings, "zebra giraffe savanna migration")[-1]

    assert "Mallory Hacker" in cards
    assert SCRIPT not in cards
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in cards
    assert "<script" not in history[-1]["content"]


def test_card_escapes_every_field_and_marks_truncated_authors() -> None:
    paper = Paper.create(
        authors=["Ann <b>Bold</b>", "Bob"],
        abstract=f"First sentence {SCRIPT}. The supporting <i>claim</i> here.",
        area=None,
        title=None,
        label='<img src=x onerror="alert(1)">',
        label_derived=True,
        citation_key="bold2024<x>",
        authors_truncated=True,
    )
    card = ui.render_card(
        Hit(paper, 1, 0.5, "", 0.81), n=2, evidence=["The supporting <i>claim</i> here."], turn=4
    )

    assert 'id="t4-source-2"' in card
    assert "[2]" in card
    assert "<script" not in card and "<img" not in card and "<b>" not in card
    assert "Ann &lt;b&gt;Bold&lt;/b&gt;, Bob et al." in card
    assert "area unknown" in card
    assert "bold2024&lt;x&gt;" in card
    assert "relevance 0.81" in card
    assert "derived label" in card
    assert "<mark>The supporting &lt;i&gt;claim&lt;/i&gt; here.</mark>" in card
    # an unrelated paper's cosine a hair below 0 is shown as none, not "relevance -0.01"
    assert "relevance 0.00" in ui.render_card(Hit(paper, 1, 0.5, "", -0.01), n=1)


def test_card_tags_the_highlighted_sentence_with_its_role() -> None:
    abstract = (
        "OBJECTIVE: To determine whether naps reduce errors. METHODS: We followed 80 nurses. "
        "RESULTS: Naps cut medication errors by a third."
    )
    paper = Paper.create(authors=["Ann Lee"], abstract=abstract, citation_key="lee2024")
    finding = ui.render_card(
        Hit(paper, 1, 0.5, "", 0.8), n=1, evidence=["Naps cut medication errors by a third."]
    )
    aim = ui.render_card(
        Hit(paper, 1, 0.5, "", 0.8), n=1, evidence=["To determine whether naps reduce errors."]
    )

    assert re.search(r'class="role-tag"[^>]*>finding</span><mark>Naps cut', finding)
    assert re.search(r'class="role-tag"[^>]*>aim</span><mark>To determine', aim)


def test_card_marks_the_sentence_the_answer_quoted_first() -> None:
    # The answer quoted the finding, then the method above it in the abstract: a phone's card,
    # which shows a few lines, opened at the method (a new user, stop 65).
    abstract = "We propose NapNet, a scheduler. We followed 80 nurses. Naps cut errors by a third."
    paper = Paper.create(authors=["Ann Lee"], abstract=abstract, citation_key="lee2024")
    card = ui.render_card(
        Hit(paper, 1, 0.5, "", 0.8),
        n=1,
        evidence=["Naps cut errors by a third.", "We propose NapNet, a scheduler."],
    )

    assert re.search(r'<mark class="first">Naps cut errors', card)
    assert re.search(r"<mark>We propose NapNet", card)
    assert card.count('class="first"') == 1
    # one sentence in the abstract and one shown above it (not verbatim): the card must still
    # open at the one the answer quoted first, not at the one above
    apart = ui.render_card(
        Hit(paper, 1, 0.5, "", 0.8),
        n=1,
        evidence=["Naps cut errors by a third.", "NapNet schedules naps for nurses."],
    )
    assert re.search(r'<mark class="first">Naps cut errors', apart)


def test_answer_markers_become_links_and_text_is_escaped() -> None:
    rendered = ui.render_answer("Graphs <b>matter</b> [1]. Labels *are* noisy [2][3].", turn=3)

    assert '<a class="cite" href="#t3-source-1">[1]</a>' in rendered
    assert '<a class="cite" href="#t3-source-3">[3]</a>' in rendered
    assert "<b>" not in rendered
    assert r"\*are\*" in rendered  # literal asterisks, not Markdown emphasis


def test_filters_from_the_side_panel_apply_to_the_answer(
    seed_index: Index, settings: Settings
) -> None:
    _, cards = ask(seed_index, settings, QUESTION, author="wei ju", top_k=3)[-1]
    authors = re.findall(r'<div class="card-authors">(.*?)</div>', cards)
    assert authors
    assert all("Wei Ju" in a for a in authors)

    _, cards = ask(seed_index, settings, QUESTION, top_k=1)[-1]
    assert cards.count('class="source-card"') == 1

    _, cards = ask(seed_index, settings, QUESTION, area="Social Aspects")[-1]
    assert "Graph Neural Networks" not in cards


def test_filter_that_matches_nothing_shows_the_error_in_the_chat(
    seed_index: Index, settings: Settings
) -> None:
    history, cards = ask(seed_index, settings, QUESTION, area="Underwater Basket Weaving")[-1]

    message = history[-1]["content"]
    assert history[-1]["role"] == "assistant"
    assert message.startswith('<span class="turn-label turn-error">Error</span>')
    assert "No paper in the index matches the filter" in message
    # The way out is the page's, not a command a chat reader has nowhere to type.
    assert "open the Library tab to see the areas and authors" in message
    assert "rag list" not in message
    assert "Traceback" not in message
    assert "source-card" not in cards


@pytest.mark.parametrize(
    ("message", "shown"),
    [
        ("No paper with key or id 'x': `rag list` shows every key.",
         "No paper with key or id 'x': the Library tab shows every key."),
        ("The index holds no papers yet: add some with `rag ingest FILE_OR_FOLDER`.",
         "The index holds no papers yet: add some in the Library tab."),
        ("No index at /x: run `rag ingest seeds/` first.",
         "No index at /x: add papers in the Library tab first."),
    ],
)  # fmt: skip
def test_a_command_the_library_names_is_said_as_the_page_does_it(message: str, shown: str) -> None:
    assert ui_render.on_the_page(message) == shown


def test_area_choices_list_the_indexed_areas(seed_index: Index) -> None:
    choices = ui.area_choices(seed_index)

    assert choices[0] == "All"
    assert "Deep Learning · Graph Neural Networks" in choices
    assert "Deep Learning" in choices


def test_non_loopback_host_without_auth_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--auth"):
        ui.main(Settings(index_dir=tmp_path / "none", host="0.0.0.0"))
    with pytest.raises(ConfigError, match="user:password"):
        ui.launch_options(Settings(host="0.0.0.0", auth="nopassword"))

    options = ui.launch_options(Settings(host="0.0.0.0", auth="alice:s3cr:et"))
    assert options["auth"] == ("alice", "s3cr:et")
    assert options["share"] is False
    assert options["server_name"] == "0.0.0.0"
    assert ui.launch_options(Settings(host="localhost"))["auth"] is None
    assert ui.launch_options(Settings(host="::1"))["auth"] is None


# -- copy-BibTeX, exports, Cite my draft, Library (the plain functions the app wires up)

GOOD_RECORD = {
    "authors": ["Zoe Quillfeather"],
    "area": "Ornithology",
    "title": "Counting Puffins from Orbit",
    "abstract": "We count puffin colonies on sea cliffs from satellite images of the coast.",
}


def test_card_has_its_bibtex_escaped_with_a_copy_button() -> None:
    paper = Paper.create(
        authors=["Ann Lee"], abstract="An abstract.", title=f"Title {SCRIPT}",
        citation_key="lee2024title",
    )  # fmt: skip
    card = ui.render_card(Hit(paper, 1, 0.5, "", 0.7), n=1)

    bib = re.search(r'<details class="card-bib">.*?<pre>(.*?)</pre></details>', card, re.S)
    assert bib, card
    assert 'class="copy-bib"' in card
    assert bib.group(1).startswith("@") and "lee2024title" in bib.group(1)
    assert "<script" not in card


def test_chat_hands_each_final_answer_to_on_answer(seed_index: Index, settings: Settings) -> None:
    got: list = []
    list(ui.chat(QUESTION, [], index=seed_index, settings=settings, backend="extractive",
                 on_answer=got.append))  # fmt: skip

    assert len(got) == 1
    assert got[0].question == QUESTION
    assert got[0].citations


def test_conversation_exports_hold_questions_answers_and_cited_papers(
    seed_index: Index, settings: Settings
) -> None:
    first = api.ask(QUESTION, index=seed_index, settings=settings, backend="extractive")
    second = api.ask(OFF_TOPIC, index=seed_index, settings=settings, backend="extractive")
    turns = [first, second]

    md = ui_tabs.conversation_markdown(turns)
    assert f"## 1. {QUESTION}" in md
    assert f"## 2. {OFF_TOPIC}" in md
    assert first.answer in md
    key = first.citations[0].hit.paper.citation_key
    assert f"- [1] [@{key}]" in md
    assert "Wei Ju" in md

    bib = ui_tabs.conversation_bibtex(turns)
    cited = {c.hit.paper.citation_key for c in first.citations}
    assert {k for k in cited if f"{{{k}," in bib} == cited
    assert bib.count("\n@") + bib.startswith("@") == len(cited)  # once each
    assert ui_tabs.conversation_bibtex([second]) == ""


def test_cite_my_draft_inserts_keys_and_says_when_nothing_supports(
    seed_index: Index, tmp_path: Path
) -> None:
    paper = next(p for p in api.list_papers(index=seed_index) if "Wei Ju" in p.authors)
    claim = paper.abstract.split(". ")[0].strip().rstrip(".") + "."
    draft = f"{claim} Sourdough bread needs rye flour and a warm kitchen."

    text, shown, bib, _ = ui_tabs.cite_draft_view(draft, "pandoc", index=seed_index)

    assert f"@{paper.citation_key}" in text
    assert text.index(f"@{paper.citation_key}") < text.index("Sourdough")
    assert "No paper" in shown.split("Sourdough")[1]
    assert bib is not None and Path(bib).name == "draft.bib"
    assert paper.citation_key in Path(bib).read_text(encoding="utf-8")

    latex, _, _, _ = ui_tabs.cite_draft_view(claim, "latex", index=seed_index)
    assert f"\\cite{{{paper.citation_key}" in latex
    empty = ui_tabs.cite_draft_view("  ", "latex", index=seed_index)
    assert empty[0] == "" and empty[2] is None


def test_library_lists_searches_and_counts_the_papers(seed_index: Index) -> None:
    papers = api.list_papers(index=seed_index)
    table = ui_tabs.library_table(papers)
    rows = table["data"]
    assert len(rows) == len(papers)
    assert rows[0][0] == papers[0].citation_key

    found = ui_tabs.library_search("wei ju", index=seed_index)
    assert found and all("Wei Ju" in p.authors for p in found)
    assert len(found) > sum(p.authors[0] == "Wei Ju" for p in found)  # not only first authors
    # (not "no such words anywhere": a seed abstract says "words", and the search finds what
    # `ask` answers from)
    assert ui_tabs.library_search("sourdough zebra quasar", index=seed_index) == []
    assert ui_tabs.library_search("  ", index=seed_index) == papers

    stats = ui_tabs.render_stats(api.stats(index=seed_index))
    chunks = seed_index.store.chunk_count()
    assert chunks > len(papers)  # long abstracts are cut into several passages
    assert f"**{len(papers)}** papers" in stats and f"**{chunks}** chunks" in stats
    assert f"**{len({p.area for p in papers if p.area})}** research areas" in stats


def test_library_search_looks_at_the_abstract_best_first(seed_index: Index) -> None:
    papers = api.list_papers(index=seed_index)
    fairness = {p.id for p in papers if "fairness" in p.abstract.casefold()}
    only_in_abstract = [
        p
        for p in papers
        if p.id in fairness
        and "fairness" not in " ".join([p.label, p.area or "", *p.authors]).casefold()
    ]
    assert len(fairness) >= 2 and only_in_abstract  # what the old label/author search missed

    found = ui_tabs.library_search("Fairness", index=seed_index)

    assert fairness <= {p.id for p in found}
    searched = [h.paper.id for h in api.search("fairness", index=seed_index, k=len(papers))]
    ranked = [p.id for p in found if p.id in searched]
    assert ranked == sorted(ranked, key=searched.index)  # in the product's search order
    assert found[0].id == searched[0]
    # A word's start finds its longer forms, as a reader expects of a library search.
    assert fairness <= {p.id for p in ui_tabs.library_search("fair", index=seed_index)}


@pytest.mark.slow
def test_library_search_finds_the_papers_ask_answers_from(real_seed_index: Index) -> None:
    # "No paper matches 'time series forecasting'" while the chat answered it from CURE: the
    # search compared cosines with a bar that is now a probability (a new user, stop 60)
    found = ui_tabs.library_search("time series forecasting", index=real_seed_index)
    assert "Yuhang Pei" in {p.authors[0] for p in found}
    assert ui_tabs.library_search("sourdough bread", index=real_seed_index) == []


def test_library_table_hides_empty_columns_and_marks_derived_labels(
    seed_index: Index, tmp_path: Path
) -> None:
    papers = api.list_papers(index=seed_index)
    assert all(p.year is None for p in papers)  # the seeds have no years

    table = ui_tabs.library_table(papers)

    assert "Year" not in table["headers"]
    assert table["headers"] == ["Key", "Title", "Authors", "Area"]
    names = {row[0]: row[1] for row in table["data"]}
    ju = next(p for p in papers if p.citation_key == "ju_icgnn")
    assert ju.title is None and ju.label_derived
    assert names["ju_icgnn"] == f"{ju.label} {ui_tabs.DERIVED_MARK}"

    dated = tmp_path / "dated.jsonl"
    dated.write_text(json.dumps({**GOOD_RECORD, "year": 2024}) + "\n", encoding="utf-8")
    ingest([dated], seed_index)
    table = ui_tabs.library_table(api.list_papers(index=seed_index))
    assert table["headers"][-1] == "Year"
    titled = next(row for row in table["data"] if row[1] == GOOD_RECORD["title"])
    assert titled[-1] == 2024  # a real title is shown as it is, unmarked


def test_upload_adds_good_records_and_names_each_bad_file_and_line(
    seed_index: Index, tmp_path: Path
) -> None:
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(json.dumps(GOOD_RECORD) + "\n{broken json\n", encoding="utf-8")
    wrong = tmp_path / "notes.pdf"
    wrong.write_bytes(b"%PDF-1.4")
    big = tmp_path / "big.jsonl"
    big.write_text(json.dumps(GOOD_RECORD) + "\n", encoding="utf-8")
    before = len(api.list_papers(index=seed_index))

    shown = ui_tabs.ingest_uploads([str(mixed), str(wrong)], index=seed_index)

    assert "mixed.jsonl: 1 added" in shown
    assert "mixed.jsonl:2: invalid JSON" in shown
    # What was added reads as done (normal colour); what was skipped, apart, as a warning.
    assert '<li class="added">mixed.jsonl: 1 added, 0 already there</li>' in shown
    skipped = re.search(r'<li class="skipped">mixed.jsonl: 1 skipped:(.*?)</ul></li>', shown)
    assert skipped and "mixed.jsonl:2: invalid JSON" in skipped.group(1)
    assert '<li class="bad">notes.pdf: not added' in shown
    assert str(tmp_path) not in shown  # the temporary upload folder is not shown
    assert "notes.pdf: not added" in shown
    assert len(api.list_papers(index=seed_index)) == before + 1
    assert any(p.title == GOOD_RECORD["title"] for p in api.list_papers(index=seed_index))

    too_big = ui_tabs.ingest_uploads([str(big)], index=seed_index, max_mb=0.00001)
    assert "big.jsonl: not added" in too_big and "limit per file" in too_big


def test_remove_by_key_and_unknown_key_error(seed_index: Index) -> None:
    paper = api.list_papers(index=seed_index)[0]

    shown = ui_tabs.remove_paper(paper.citation_key, index=seed_index)

    assert f"Removed {paper.citation_key}" in shown
    assert paper.citation_key not in {p.citation_key for p in api.list_papers(index=seed_index)}
    again = ui_tabs.remove_paper(paper.citation_key, index=seed_index)
    assert "Error:" in again and paper.citation_key in again


def test_library_tab_error_names_the_page_not_the_command_line(seed_index: Index) -> None:
    # The chat said "the Library tab" for `rag list`; the Library tab itself showed the
    # command, backticks and all: "No paper with key or id 'x' in ...: `rag list` shows ...".
    removed = ui_tabs.remove_paper("no_such_key", index=seed_index)

    assert "Error:" in removed and "no_such_key" in removed
    assert "the Library tab shows every key" in removed, removed
    assert "`" not in removed and "rag list" not in removed, removed


# -- what a new user saw (issue 13): progress, stale counts, turn kinds, near misses


def test_progress_line_shows_at_once_and_the_first_sentence_replaces_it(
    seed_index: Index, settings: Settings
) -> None:
    steps = ask(seed_index, settings, QUESTION)

    first_history, _ = steps[0]
    assert [m["role"] for m in first_history] == ["user", "assistant"]
    assert first_history[-1]["content"] == ui_render.render_pending()
    assert "Searching the papers" in first_history[-1]["content"]
    final = steps[-1][0][-1]["content"]
    assert "turn-pending" not in final and "[1]" in final


def test_a_rewritten_follow_up_shows_the_question_that_was_searched(
    seed_index: Index, settings: Settings
) -> None:
    history, _ = ask(seed_index, settings, "graph neural networks on graph data")[-1]
    assert "Searched for" not in history[-1]["content"]  # a first question is searched as is

    steps = list(
        ui.chat("what dataset did the second one use?", history, index=seed_index,
                settings=settings, backend="extractive")
    )  # fmt: skip
    final = steps[-1][0][-1]["content"]

    expected = api.ask(
        "what dataset did the second one use?", index=seed_index, settings=settings,
        backend="extractive", history=history[:2],
    )  # fmt: skip
    assert expected.standalone
    searched = re.search(r'<span class="searched">Searched for: “(.*?)”</span>', final)
    assert searched, final
    assert searched.group(1) == ui_render._md_escape(expected.standalone)
    assert final.index("Searched for") < final.index("[1]")


def test_abstention_fallback_and_error_are_each_marked_unlike_an_answer(
    seed_index: Index, settings: Settings
) -> None:
    answered = ask(seed_index, settings, QUESTION)[-1][0][-1]["content"]
    abstained = ask(seed_index, settings, OFF_TOPIC)[-1][0][-1]["content"]
    failed = ask(seed_index, settings, QUESTION, area="Underwater Basket Weaving")[-1][0]
    llm = FakeLLM()
    llm.enqueue_error(BackendError("cannot reach http://127.0.0.1:9/v1: is the server running?"))
    fell_back = ask(seed_index, settings, QUESTION, backend=llm)[-1][0][-1]["content"]
    llm.enqueue("Sourdough bread rises overnight in a warm kitchen [1].")
    unsupported = ask(seed_index, settings, QUESTION, backend=llm)[-1][0][-1]["content"]

    assert "turn-label" not in answered
    assert '<span class="turn-label turn-abstained">' in abstained
    assert '<span class="turn-label turn-error">' in failed[-1]["content"]
    for message in (fell_back, unsupported):
        assert '<span class="turn-label turn-fallback">Fallback</span>' in message
        assert "[1]" in message  # the quoted evidence is still the answer, cited
    assert "cannot reach" in fell_back
    assert ui_render._md_escape(prompts.NO_SUPPORTED_SENTENCE) in unsupported


def test_a_notice_that_is_not_a_fallback_is_marked_as_a_note() -> None:
    answer = Answer("q", "An answer [1].", (), ({"reason": "supported", "shown": True},), False,
                    (), "local", notice="Answered in English.")  # fmt: skip
    shown = ui.render_turn(answer)
    note = '<span class="turn-label turn-note">Note</span> <span class="turn-notice">'
    assert shown.startswith(f"{note}Answered in English.</span>"), shown  # before the answer
    assert not ui_render.is_fallback(answer)


def test_a_fallback_that_opens_with_a_note_on_the_set_is_still_marked_as_a_fallback() -> None:
    # "which of them is about fairness?" after a one-paper answer: the quoted sentence comes
    # after the composer's note on the earlier set, and the page called the same notice a
    # "Note" here and a "Fallback" on the answer before.
    sentences = (
        {"text": prompts.NONE_IN_SET, "reason": "note", "shown": True},
        {"text": "A made-up fairness claim [1].", "reason": "unsupported", "shown": False},
        {"text": "Fair ERM can be corrected [1].", "reason": "quoted", "shown": True},
    )
    text = f"{prompts.NONE_IN_SET} Fair ERM can be corrected [1]."
    notice = prompts.NO_SUPPORTED_SENTENCE
    answer = Answer("q", text, (), sentences, False, (), "local", notice=notice)
    shown = ui.render_turn(answer)
    assert '<span class="turn-label turn-fallback">Fallback</span>' in shown, shown
    assert "turn-note" not in shown
    # The note is a paragraph of its own, not run into the quoted sentence after it (the
    # fallback's notice comes first).
    note, quoted = shown.split("\n\n")[1:3]
    assert note == ui_render.render_answer(prompts.NONE_IN_SET), shown
    assert quoted.startswith("Fair ERM can be corrected"), shown


def test_an_answer_that_is_only_the_nearest_is_labelled_so() -> None:
    # "No paper's title or abstract uses ..., so what follows is only the nearest ..." was plain
    # text above the quote, easy to miss (a new user at 1280 and 390 px).
    for hedge in (prompts.NEAREST_ONLY.format(words="“pay”"), prompts.NEAREST_WEAK):
        sentences = (
            {"text": hedge, "reason": "note", "shown": True},
            {"text": "Attention improves recall [1].", "reason": "quoted", "shown": True},
        )
        text = f"{hedge} Attention improves recall [1]."
        shown = ui.render_turn(Answer("q", text, (), sentences, False, (), "extractive"))
        assert shown.startswith('<span class="turn-label turn-note">Only the nearest</span>')
    # Another opening note is a paragraph of its own, unlabelled.
    sentences = (
        {"text": prompts.NONE_IN_SET, "reason": "note", "shown": True},
        {"text": "Fair ERM can be corrected [1].", "reason": "quoted", "shown": True},
    )
    text = f"{prompts.NONE_IN_SET} Fair ERM can be corrected [1]."
    shown = ui.render_turn(Answer("q", text, (), sentences, False, (), "extractive"))
    assert "turn-label" not in shown


def test_a_question_the_bundled_models_cannot_read_is_labelled_so() -> None:
    # Before: "The bundled models read English only, ..." read like a plain answer.
    answer = Answer("大语言模型的推理", prompts.ENGLISH_ONLY, (), (), False, (), "local")
    shown = ui.render_turn(answer)
    assert shown.startswith('<span class="turn-label turn-note">English only</span>'), shown
    plain = Answer("q", "Graph papers say this [1].", (), (), False, (), "local")
    assert "turn-label" not in ui.render_turn(plain)


def test_paper_count_follows_an_index_another_process_writes(
    seed_index: Index, settings: Settings, tmp_path: Path
) -> None:
    current = ui.CurrentIndex(settings, seed_index)
    before = len(api.list_papers(index=seed_index))
    assert f"Ask about the {before} indexed paper abstracts" in ui.intro(current())

    # Another process: its own Index over the same folder, as `rag ingest` would open it.
    other = Index(settings, FakeEmbedding())
    upload = tmp_path / "new.jsonl"
    upload.write_text(json.dumps(GOOD_RECORD) + "\n", encoding="utf-8")
    ingest([upload], other)

    assert f"Ask about the {before + 1} indexed paper abstracts" in ui.intro(current())


def near_miss_draft(index: Index) -> tuple[str, str]:
    """Return a sentence whose best paper scores under the bar but is a near miss, and its key.

    A sentence of a seed abstract, diluted with words of another subject until its score
    falls between NEAR_MISS and MIN_SCORE (the fake embedding makes this deterministic).
    """
    paper = next(p for p in api.list_papers(index=index) if "Wei Ju" in p.authors)
    claim = paper.abstract.split(". ")[0].strip().rstrip(".")
    filler = (
        "while bakers knead sourdough with rye flour near warm ovens every morning before "
        "markets open, pastry chefs fold butter into croissant dough, farmers harvest wheat "
        "barley and oats under summer skies, millers grind grain between granite stones, "
        "and village cafes serve fresh bread with honey jam cheese olives tomatoes"
    )
    filler_words = filler.split(" ")
    for n in range(1, len(filler_words) + 1):
        sentence = f"{claim} {' '.join(filler_words[:n])}."
        (cited,) = api.cite_draft(sentence, index=index).sentences
        if not cited.supports and cited.nearest and cited.nearest.score >= NEAR_MISS:
            return sentence, cited.nearest.paper.citation_key
    raise AssertionError("no dilution gave a near miss")


def test_near_miss_is_offered_and_cited_with_one_click(seed_index: Index) -> None:
    near, key = near_miss_draft(seed_index)
    draft = f"{near} Sourdough bread needs rye flour and a warm kitchen."

    text, shown, bib, cited = ui_tabs.cite_draft_view(draft, "pandoc", index=seed_index)

    assert cited is not None and bib is None and "@" not in text
    offer = re.search(r'<ul class="near-miss">(.*?)</ul>', shown, re.S)
    assert offer and key in offer.group(1)
    assert f"below the {MIN_SCORE:.2f} bar" in offer.group(1)
    assert 'class="accept-near" data-sentence="0"' in offer.group(1)
    assert shown.count('class="accept-near"') == 1  # the bread sentence is no near miss

    text, shown, bib = ui_tabs.accept_near_miss(draft, cited, [0])

    assert f"[@{key}]." in text and text.index(f"@{key}") < text.index("Sourdough")
    assert bib is not None and f"{{{key}," in Path(bib).read_text(encoding="utf-8")
    assert "accept-near" not in shown
    assert f"below the {MIN_SCORE:.2f} bar" in shown  # still marked once cited


@pytest.mark.slow
def test_cli_draft_min_score_lowers_the_bar_for_one_run(
    real_seed_index: Index, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from rag.cli import cli

    near = "Our own interest in these questions began with a survey of hospital records."
    (sentence,) = api.cite_draft(near, index=real_seed_index).sentences
    assert not sentence.supports and sentence.nearest is not None
    key, below = sentence.nearest.paper.citation_key, int(sentence.nearest.score * 100) / 100
    (tmp_path / "draft.txt").write_text(near, encoding="utf-8")
    args = ["--index", str(real_seed_index.dir), "cite", "--draft", str(tmp_path / "draft.txt")]
    runner = CliRunner()

    default = runner.invoke(cli, args)
    lowered = runner.invoke(cli, [*args, "--min-score", f"{below:.2f}"])
    bad = runner.invoke(cli, [*args, "--min-score", "1.5"])

    assert default.exit_code == 0, default.output
    assert "\\cite{" not in default.stdout
    assert lowered.exit_code == 0, lowered.output
    assert f"~\\cite{{{key}}}." in lowered.stdout
    assert f"below the default {MIN_SCORE:.2f}" in lowered.stderr
    assert bad.exit_code == 2 and "--min-score" in bad.output and "1.5" in bad.output


def test_a_which_papers_answer_keeps_one_line_per_paper() -> None:
    rendered = ui.render_answer("- Ju et al. denoise labels [1].\n- Li et al. adapt graphs [2].")

    assert rendered.splitlines()[1].startswith("- Li et al.")
    assert '<a class="cite" href="#t0-source-2">[2]</a>' in rendered


def test_a_question_without_a_topic_shows_no_empty_sources_panel(
    seed_index: Index, settings: Settings
) -> None:
    history, cards = ask(seed_index, settings, "hello")[-1]
    assert "40 papers" in history[-1]["content"]
    assert "No paper on this" not in history[-1]["content"]
    assert "This answer cites no paper." in cards
    assert "source-card" not in cards


def test_thanks_leaves_the_cards_the_reader_was_on(seed_index: Index, settings: Settings) -> None:
    # Before: "thanks!" replaced the cards with "This answer cites no paper." and answered
    # with the collection's areas (a new user's trial at 1280 and 390 px, stop 58).
    steps, _ = converse(seed_index, settings, [QUESTION, "thanks!"])
    history, cards = steps[-1]
    assert "Deep Learning" not in text_of(history[-1]), text_of(history[-1])
    shown = [turn for turn, (hidden, _) in sections(cards).items() if not hidden]
    assert shown == [0] and "source-card" in sections(cards)[0][1]
    assert "This answer cites no paper." not in cards


def test_a_bibtex_entry_in_an_answer_is_shown_as_it_is_to_be_copied() -> None:
    # Before: the entry's braces and line breaks were Markdown-escaped into one paragraph.
    # Then "MAI \\& Loubes" showed as "MAI &amp;amp; Loubes": Markdown read the backslash and
    # the "&" of "&amp;" (a new user's trial, stop 58; tests/faces/test_browser_text.py).
    entry = (
        "@misc{deng_conpress,\n  title = {A <b>bold</b> [2] *claim*},\n  note = {A \\& B's #1}\n}\n"
    )
    rendered = ui.render_answer(f"Deng et al.: by Jie Deng [1].\n\n```bibtex\n{entry}```")
    assert '<a class="cite" href="#t0-source-1">[1]</a>' in rendered
    pre = rendered[rendered.index('<pre class="entry bibtex"><code>') :]
    code = pre[len('<pre class="entry bibtex"><code>') : pre.index("</code></pre>")]
    assert html.unescape(code) == entry
    assert "\n" not in code  # a blank line between two entries ended the block (stop 58)
    assert "<b>" not in code and not any(c in code for c in "\\*[]{}")  # nothing for Markdown
    assert "cite" not in pre.replace('class="entry bibtex"', "")  # no [2] link inside the entry
    assert "```" not in rendered


def test_ui_py_without_an_index_says_so_in_one_line(tmp_path: Path) -> None:
    """`python ui.py` where no index exists names the problem in one line, as `rag serve` does,
    not in a traceback (a new user started it before ingesting)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "RAG_INDEX_DIR": str(tmp_path / "missing"), "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, str(root / "ui.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines == [lines[-1]] and "No index at" in lines[-1] and "rag ingest" in lines[-1]


def test_entries_in_an_answer_are_shown_as_they_are_to_be_copied_in_each_format() -> None:
    # "RIS please" gives a ```ris block; its "  - " lines and blank line kept (stop 59)
    text = "- Ju et al.: its record gives no year [1].\n\n```ris\nTY  - GEN\nID  - ju\nER  - \n\n"
    text += "TY  - GEN\nID  - li\nER  - \n```"
    rendered = ui_render.render_answer(text)
    assert rendered.count('<pre class="entry ris">') == 1 and "```" not in rendered
    assert "TY  - GEN&#10;ID  - ju" in rendered.replace("&#32;", " ")


@pytest.mark.parametrize(
    ("url", "key", "default", "offered"),
    [
        ("https://api.openai.com/v1", None, "extractive", False),
        ("https://api.openai.com/v1", "sk-test", "extractive", True),
        ("http://127.0.0.1:8080/v1", None, "extractive", True),  # a local server needs no key
        ("https://api.openai.com/v1", None, "openai", True),  # chosen by the settings: kept
    ],
)
def test_the_page_offers_openai_only_when_it_is_configured(
    url: str, key: str | None, default: str, offered: bool
) -> None:
    settings = Settings(openai_base_url=url, openai_api_key=key, backend=default)
    choices = backend_choices(settings)
    assert ("openai" in choices) is offered
    assert {"local", "extractive"} <= set(choices) and default in choices
