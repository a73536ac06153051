"""Library entries without an abstract: one line per file, or title-only records on request.

A real library holds books, reports and web pages without an abstract. They are never bad
records (the 100-error cut is for damage), each file says how many it had in one line, and
`--title-only` keeps them: found and cited by their title, marked "no abstract", exported, never
quoted as evidence, and replaced by the same entry once it comes with its abstract.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from rag import api
from rag.answer.pipeline import answer
from rag.cite.claims import cite, cite_draft
from rag.cite.export import render
from rag.cli import cli
from rag.index.paper_index import Index
from rag.index.retrieve import search
from rag.ingest.parsers import MAX_ERRORS_PER_FILE, parse_path
from rag.ingest.pipeline import ingest
from rag.settings import Settings, load_settings
from rag.ui.tabs import library_table
from tests.fake_embedding import FakeEmbedding
from tests.library_export import entries, write_csl_json, write_zotero_bib

DATA = Path(__file__).parents[1] / "data"
BOOK = "Pattern recognition and machine learning"
GNN = (
    "Graph neural networks pass messages along the edges of molecular graphs. They predict "
    "solubility with lower error than fingerprint baselines."
)


def bib_entry(key: str, title: str, abstract: str = "", **fields: str) -> str:
    body = {"title": title, "author": "Bishop, Christopher M.", "year": "2006", **fields}
    if abstract:
        body["abstract"] = abstract
    return f"@book{{{key},\n" + "".join(f"  {k} = {{{v}}},\n" for k, v in body.items()) + "}\n"


@pytest.fixture
def library(tmp_path: Path) -> Path:
    """A small Zotero-style .bib: one article with an abstract, one book and a report without."""
    path = tmp_path / "library.bib"
    path.write_text(
        bib_entry("ju_gnn_2024", "Molecular graph learning", GNN, author="Ju, Wei")
        + bib_entry(
            "bishop_pattern_2006", BOOK, keywords="statistics, bayesian inference", doi="10.1/prml"
        )
        + bib_entry("ec_ethics_2019", "Ethics guidelines for trustworthy AI", author="{EC}"),
        encoding="utf-8",
    )
    return path


@pytest.fixture
def fake_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI opens its own index: give it the fake embedding instead of the real models."""
    monkeypatch.setattr("rag.index.paper_index.load_embedder", lambda *_, **__: FakeEmbedding())
    monkeypatch.setattr(
        "rag.index.paper_index.load_query_embedder", lambda *_, **__: FakeEmbedding()
    )
    monkeypatch.setattr("rag.index.paper_index.model_name", lambda _: FakeEmbedding.name)
    monkeypatch.setattr("rag.index.paper_index.model_dimension", lambda _: FakeEmbedding.dim)


def rag(index_dir: Path, *args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, ["--index", str(index_dir), *args], catch_exceptions=False)


# -- without --title-only: counted in one line, never a bad record


def test_entries_without_an_abstract_are_one_line_not_errors(
    library: Path, fake_index: Index
) -> None:
    report = ingest([library], fake_index)
    assert (report.added, report.errors) == (1, ())
    assert report.notes == (
        f"{library}: 2 entries without an abstract were not indexed; "
        "`rag ingest --title-only` keeps them as title-only records",
    )
    assert report.no_abstract == (
        f"{library}:7: entry 'bishop_pattern_2006' ({BOOK}) has no abstract",
        f"{library}:14: entry 'ec_ethics_2019' (Ethics guidelines for trustworthy AI) has no "
        "abstract",
    )


def test_a_library_mostly_without_abstracts_loses_none_of_those_it_has(
    tmp_path: Path, fake_index: Index
) -> None:
    # Before: each entry without an abstract was a bad record, and after 100 of them the rest
    # of the file was skipped, abstracts and all (30 of 321 abstracts of a Zotero library).
    items = entries(600, without=2)  # 300 without an abstract, 300 with
    items = sorted(items, key=lambda item: bool(item["abstract"]))  # the 300 without first
    path = write_zotero_bib(tmp_path / "zotero.bib", items)
    report = ingest([path], fake_index)  # before: 0 indexed, 101 errors
    assert report.added == 300 and report.errors == ()
    (note,) = report.notes
    assert note.startswith(f"{path}: 300 entries without an abstract were not indexed")


def test_damaged_records_still_count_toward_the_cut(tmp_path: Path) -> None:
    broken = "".join(
        bib_entry(f"bad{i}", f"Damaged {i}", "An abstract.", year="19x9")
        for i in range(MAX_ERRORS_PER_FILE + 1)
    )
    missing = "".join(bib_entry(f"book{i}", f"Book {i}") for i in range(150))
    path = tmp_path / "mixed.bib"
    path.write_text(missing + broken + bib_entry("late", "Late", "Never reached."), "utf-8")
    result = parse_path(path)
    assert len(result.no_abstract) == 150
    assert len(result.errors) == MAX_ERRORS_PER_FILE + 1
    assert result.errors[-1].reason.startswith(f"more than {MAX_ERRORS_PER_FILE} bad records")
    assert result.papers == []


def test_cli_says_it_in_one_line_and_lists_the_entries_only_with_v(
    library: Path, tmp_path: Path, fake_models: None
) -> None:
    quiet = rag(tmp_path / "idx", "ingest", str(library))
    assert quiet.exit_code == 0, quiet.output
    notes = [line for line in quiet.output.splitlines() if "without an abstract" in line]
    assert notes == [
        f"note: {library}: 2 entries without an abstract were not indexed; "
        "`rag ingest --title-only` keeps them as title-only records"
    ]
    assert "has no abstract" not in quiet.output
    loud = rag(tmp_path / "idx2", "ingest", str(library), "-v")
    assert f"  {library}:7: entry 'bishop_pattern_2006' ({BOOK}) has no abstract" in loud.output


# -- with --title-only


@pytest.fixture
def kept(library: Path, fake_index: Index) -> Index:
    report = ingest([library], fake_index, title_only=True)
    assert (report.added, report.errors) == (3, ())
    assert report.notes == (f"{library}: 2 entries without an abstract kept as title-only records",)
    return fake_index


def _paper(index: Index, key: str):  # type: ignore[no-untyped-def]
    return next(p for p in index.papers.values() if p.citation_key == key)


def test_title_only_record_is_found_by_its_title_and_keywords(kept: Index) -> None:
    for query in ("pattern recognition", "bayesian statistics"):
        (first, *_) = search(kept, query, k=3, retriever="hybrid")
        assert first.paper.citation_key == "bishop_pattern_2006"
        assert first.paper.title_only and first.paper.abstract == ""
        assert first.snippet == f"{BOOK}. statistics · bayesian inference"
        assert first.to_dict()["title_only"] is True


def test_title_only_record_is_never_evidence_in_an_answer(kept: Index, settings: Settings) -> None:
    loose = settings.model_copy(update={"min_relevance": 0.0})
    result = answer(
        kept, "What is pattern recognition and machine learning?", settings=loose, backend=None
    )
    assert "bishop_pattern_2006" not in {c.hit.paper.citation_key for c in result.citations}
    assert BOOK not in result.answer
    assert all(not h.paper.title_only for h in result.nearest)
    on_topic = answer(
        kept, "Do graph neural networks predict solubility?", settings=loose, backend=None
    )
    assert [c.hit.paper.citation_key for c in on_topic.citations] == ["ju_gnn_2024"]


def test_title_only_record_is_citable_with_its_title_as_the_matching_text(kept: Index) -> None:
    claim = "Pattern recognition and machine learning are covered at length in a textbook."
    result = cite(kept, claim, min_score=0.0)
    best = result.supports[0]
    assert best.paper.citation_key == "bishop_pattern_2006" and best.sentence == BOOK
    assert best.to_dict()["title_only"] is True
    draft = cite_draft(kept, claim, min_score=0.3)
    assert draft.text == claim.removesuffix(".") + "~\\cite{bishop_pattern_2006}."


def test_title_only_record_is_exported_like_any_paper_without_an_empty_abstract(
    kept: Index, tmp_path: Path
) -> None:
    book = _paper(kept, "bishop_pattern_2006")
    bib = render([book], "bibtex")
    assert "@misc{bishop_pattern_2006," in bib and BOOK in bib and "abstract" not in bib
    assert "AB  -" not in render([book], "ris")
    (item,) = json.loads(render([book], "csljson"))
    assert item["title"] == BOOK and "abstract" not in item
    # Read back, the export is the same title-only record.
    path = tmp_path / "export.bib"
    path.write_text(bib, encoding="utf-8")
    (again,) = parse_path(path).no_abstract
    assert again.id == book.id


def test_library_table_marks_title_only_records(kept: Index) -> None:
    table = library_table(api.list_papers(index=kept))
    titles = {row[0]: row[1] for row in table["data"]}
    assert titles["bishop_pattern_2006"] == f"{BOOK} (no abstract)"
    assert titles["ju_gnn_2024"] == "Molecular graph learning"


def test_cli_marks_title_only_records_in_search_list_show_and_cite(
    library: Path, tmp_path: Path, fake_models: None
) -> None:
    index = tmp_path / "idx"
    assert rag(index, "ingest", str(library), "--title-only").exit_code == 0
    listed = rag(index, "list").output
    book_line = next(line for line in listed.splitlines() if "bishop_pattern_2006" in line)
    assert book_line.endswith("(no abstract)") and "3 papers, 2 with no abstract" in listed
    found = rag(index, "search", "pattern recognition", "-k", "1").output
    assert f"1. {BOOK}  [bishop_pattern_2006]" in found and "(no abstract)" in found
    shown = rag(index, "show", "bishop_pattern_2006").output
    assert "(no abstract: a title-only record;" in shown and "@misc{bishop_pattern_2006," in shown
    cited = rag(index, "cite", "pattern recognition and machine learning", "--min-score", "0")
    assert "[bishop_pattern_2006]" in cited.output and "(title only)" in cited.output
    draft = tmp_path / "draft.txt"
    draft.write_text("Pattern recognition and machine learning fill a whole textbook.\n")
    drafted = rag(index, "cite", "--draft", str(draft), "--min-score", "0.3")
    assert "bishop_pattern_2006 (" in drafted.output and ", title only)" in drafted.output


def test_setting_and_environment_turn_it_on(
    library: Path, tmp_path: Path, fake_models: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_settings().title_only is False
    monkeypatch.setenv("RAG_TITLE_ONLY", "true")
    assert load_settings().title_only is True
    result = rag(tmp_path / "idx", "ingest", str(library))
    assert "0 moved" in result.output and "kept as title-only records" in result.output
    assert len(json.loads(rag(tmp_path / "idx", "list", "--json").output)) == 3


# -- identity: nothing stored is lost or duplicated


def test_title_only_records_are_stable_and_kept_by_a_plain_re_ingest(
    kept: Index, library: Path
) -> None:
    again = ingest([library], kept, title_only=True)
    assert (again.added, again.removed, again.unchanged) == (0, 0, 3)
    plain = ingest([library], kept)  # without --title-only: kept, not removed
    assert (plain.added, plain.removed) == (0, 0) and kept.store.count() == 3


def test_the_same_entry_with_its_abstract_replaces_the_title_only_record(
    kept: Index, library: Path
) -> None:
    before = _paper(kept, "bishop_pattern_2006")
    text = library.read_text(encoding="utf-8")
    library.write_text(
        text.replace("doi = {10.1/prml},", "doi = {10.1/prml},\n  abstract = {A textbook.},"),
        encoding="utf-8",
    )
    report = ingest([library], kept)
    assert (report.added, report.upgraded, report.removed) == (1, 1, 0)
    assert kept.store.count() == 3
    after = _paper(kept, "bishop_pattern_2006")
    assert after.abstract == "A textbook." and after.id != before.id
    assert before.id not in kept.papers and set(kept.bm25().ids) == set(kept.papers)


def test_an_abstract_from_another_source_replaces_it_and_keeps_its_key(
    kept: Index, tmp_path: Path
) -> None:
    # The book, title-only from Zotero, then from a RIS file with its abstract, matched by DOI
    # though the RIS writes the author another way; the RIS gives no key: the old one stays.
    ris = tmp_path / "other.ris"
    ris.write_text(
        f"TY  - BOOK\nAU  - Bishop, C.\nTI  - {BOOK}\nPY  - 2006\nDO  - 10.1/PRML\n"
        "AB  - The first textbook on pattern recognition to present the Bayesian viewpoint.\n"
        "ER  - \n",
        encoding="utf-8",
    )
    report = ingest([ris], kept)
    assert (report.added, report.upgraded) == (1, 1) and kept.store.count() == 3
    book = _paper(kept, "bishop_pattern_2006")
    assert book.abstract.startswith("The first textbook") and not book.title_only


def test_a_title_only_entry_is_not_added_beside_its_paper(
    fake_index: Index, tmp_path: Path
) -> None:
    with_abstract = tmp_path / "a.bib"
    with_abstract.write_text(bib_entry("full", BOOK, "A textbook."), encoding="utf-8")
    without = tmp_path / "b.bib"
    without.write_text(bib_entry("bare", BOOK), encoding="utf-8")
    assert ingest([with_abstract], fake_index).added == 1
    report = ingest([without], fake_index, title_only=True)
    assert (report.added, fake_index.store.count()) == (0, 1)
    both = ingest([with_abstract, without], Index(fake_index.settings, FakeEmbedding()))
    assert both.added == 0  # read together: the one with the abstract, already there


# -- a library-sized export


@pytest.mark.slow  # about 40 s each on two cores, Chroma writes mostly
@pytest.mark.parametrize("fmt", ["bibtex", "csljson"])
def test_library_of_5000_entries_a_third_without_abstracts(
    fmt: str, tmp_path: Path, fake_index: Index
) -> None:
    items = entries(5000, without=3)
    writer = write_zotero_bib if fmt == "bibtex" else write_csl_json
    path = writer(tmp_path / ("library.bib" if fmt == "bibtex" else "library.json"), items)
    with_abstract = sum(1 for item in items if item["abstract"])
    start = time.perf_counter()
    report = ingest([path], fake_index)
    elapsed = time.perf_counter() - start  # bench/ingest/library_ingest.py records it
    assert report.added == with_abstract == 3333 and report.errors == ()
    assert report.notes == (
        f"{path}: 1667 entries without an abstract were not indexed; "
        "`rag ingest --title-only` keeps them as title-only records",
    )
    assert fake_index.store.count() == 3333
    print(f"{fmt}: 5,000 entries ingested in {elapsed:.1f} s")
