"""Zotero-friendly references: source citation keys kept, clashes settled and reported, and
each export format read back with the same keys, DOIs, years and titles."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.cite.export import render
from rag.index.paper_index import Index
from rag.ingest.naming import settle_keys, usable_key
from rag.ingest.parsers import detect_format, parse_path
from rag.ingest.pipeline import ingest
from rag.records import Paper

DATA = Path(__file__).parents[1] / "data"
SEEDS = Path(__file__).resolve().parents[2] / "seeds"
LIBRARY = ["references.bib", "zotero-export.ris", "zotero-library.json", "pubmed-export.nbib"]
EXTENSIONS = {"bibtex": ".bib", "ris": ".ris", "csljson": ".json"}


def _bib(path: Path, key: str, author: str, abstract: str) -> Path:
    path.write_text(
        f"@article{{{key},\n  author = {{{author}}},\n  title = {{On {author}}},\n"
        f"  year = {{2020}},\n  abstract = {{{abstract}}}\n}}\n",
        encoding="utf-8",
    )
    return path


def test_ingest_keeps_the_keys_the_sources_give(fake_index: Index) -> None:
    report = ingest([DATA / name for name in LIBRARY], fake_index)
    keys = {p.title: p.citation_key for p in fake_index.papers.values()}
    assert report.key_clashes == ()
    assert keys["Attention is All you Need"] == "vaswani2017attention"  # BibTeX entry key
    assert keys["Efficient Estimation of Word Representations in Vector Space"] == (
        "mikolov2013efficient"  # RIS ID
    )
    assert keys["Long Short-Term Memory"] == "hochreiterLongShortTermMemory1997"  # citation-key
    assert keys["ImageNet Classification with Deep Convolutional Neural Networks"] == (
        "krizhevsky2012imagenet"  # "Citation Key:" in Zotero's Extra (CSL note)
    )
    # No key in the source (a Zotero item URI is not one, nor PubMed): a derived key.
    assert keys["Human-level control through deep reinforcement learning"] == "mnih2015human"
    assert keys["Generative Adversarial Nets"] == "goodfellow2014generative"
    assert keys["Scalable and accurate deep learning with electronic health records"] == (
        "rajkomar2018scalable"
    )


def test_a_key_clash_is_settled_the_same_way_in_any_order_and_reported(
    tmp_path: Path, fake_index: Index
) -> None:
    a = _bib(tmp_path / "a.bib", "smith2020", "Ann Smith", "Graph models of protein folding.")
    b = _bib(tmp_path / "b.bib", "smith2020", "Bo Smith", "Sparse attention for long texts.")
    papers = [p for f in (a, b) for p in parse_path(f).papers]
    forward, backward = settle_keys(papers), settle_keys(papers[::-1])
    by_id = {p.id: p.citation_key for p in forward.papers}
    assert by_id == {p.id: p.citation_key for p in backward.papers}
    assert sorted(by_id.values()) == ["smith2020", "smith2020b"]
    report = ingest([b, a], fake_index)
    assert report.added == 2 and not report.errors
    assert {p.id: p.citation_key for p in fake_index.papers.values()} == by_id
    (clash,) = report.key_clashes
    loser = next(p for p in papers if by_id[p.id] == "smith2020b")
    winner = next(p for p in papers if by_id[p.id] == "smith2020")
    assert clash.startswith(f"{loser.source}: citation key 'smith2020' is already used by ")
    assert winner.source in clash and "cited as 'smith2020b'" in clash


def test_a_key_already_in_the_index_stays_with_its_paper(tmp_path: Path, fake_index: Index) -> None:
    first = _bib(tmp_path / "first.bib", "lee2021", "Kim Lee", "Protein folding with graphs.")
    ingest([first], fake_index)
    later = _bib(tmp_path / "later.bib", "lee2021", "Min Lee", "Speech recognition in noise.")
    report = ingest([later], fake_index)
    keys = {p.authors[0]: p.citation_key for p in fake_index.papers.values()}
    assert keys == {"Kim Lee": "lee2021", "Min Lee": "lee2021b"}
    assert report.key_clashes and "a paper already in the index" in report.key_clashes[0]


def test_a_source_key_wins_over_a_derived_one() -> None:
    derived = Paper.create(authors=["Wei Ju"], abstract="We propose ICGNN for noisy labels.")
    given = Paper.create(authors=["Wu Ju"], abstract="Another abstract.", citation_key="ju_icgnn")
    keyed = settle_keys([derived, given])
    assert [p.citation_key for p in keyed.papers] == ["ju_icgnnb", "ju_icgnn"]
    assert keyed.clashes == []  # a derived key was never the user's: nothing to report


@pytest.mark.parametrize(
    ("key", "kept"),
    [
        ("smith2020", "smith2020"),
        ("hochreiterLongShortTermMemory1997", "hochreiterLongShortTermMemory1997"),
        ("Müller:2022-ssl", "Müller:2022-ssl"),
        ("http://zotero.org/users/local/x/items/ABCD", None),
        ("12", None),  # an EndNote record number
        ("two words", None),
        ("a{b", None),
        ("", None),
    ],
)
def test_usable_key(key: str, kept: str | None) -> None:
    assert usable_key(key) == kept


def _library() -> list[Paper]:
    papers = [p for name in LIBRARY for p in parse_path(DATA / name).papers]
    # Both seed pages: only the second has authors cut short (`等`) and areas with commas.
    papers += [p for path in sorted(SEEDS.iterdir()) for p in parse_path(path).papers]
    return settle_keys(papers).papers


@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
def test_an_imported_library_exported_again_reads_back_the_same(fmt: str, tmp_path: Path) -> None:
    papers = _library()
    exported = tmp_path / f"library{EXTENSIONS[fmt]}"
    exported.write_text(render(papers, fmt), encoding="utf-8")
    assert detect_format(exported) == fmt
    result = parse_path(exported)
    assert result.errors == []
    # the external id too: PubMed's PMIDs were lost on every export (stop 58); and the
    # "et al." marker, the area and the label: CSL-JSON read its note as one line, so the
    # label ended in "The source lists more authors than these.", and split areas at commas
    fields = ("citation_key", "doi", "year", "title", "id", "authors", "abstract", "external_id")
    fields += ("authors_truncated", "area", "label", "label_derived")
    assert any(p.authors_truncated for p in papers) and any("," in (p.area or "") for p in papers)
    for paper, read in zip(papers, result.papers, strict=True):
        for name in fields:
            assert getattr(read, name) == getattr(paper, name), (fmt, paper.citation_key, name)


@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
def test_an_export_ingested_into_its_own_index_changes_no_paper(
    fmt: str, tmp_path: Path, seed_index: Index
) -> None:
    before = {p.id: p for p in seed_index.papers.values()}
    exported = tmp_path / f"library{EXTENSIONS[fmt]}"
    exported.write_text(render(list(before.values()), fmt), encoding="utf-8")
    report = ingest([exported], seed_index)
    assert report.added == 0 and not report.errors, report
    after = {p.id: p for p in seed_index.papers.values()}
    assert after.keys() == before.keys()  # no duplicate beside any paper
    fields = ("citation_key", "authors", "authors_truncated", "area", "label", "abstract")
    for pid, paper in before.items():
        for name in fields:
            assert getattr(after[pid], name) == getattr(paper, name), (fmt, pid, name)


def test_content_detection_and_format_override(tmp_path: Path) -> None:
    ris = tmp_path / "export.txt"
    ris.write_bytes((DATA / "zotero-export.ris").read_bytes())
    medline = tmp_path / "pubmed-result.txt"
    medline.write_bytes((DATA / "pubmed-export.nbib").read_bytes())
    assert detect_format(ris) == "ris" and detect_format(medline) == "pubmed"
    odd = tmp_path / "references.dat"
    odd.write_bytes((DATA / "zotero-export.ris").read_bytes())
    assert len(parse_path(odd, "ris").papers) == 4  # --format ris reads any file name
    assert detect_format(DATA / "papers.jsonl") == "jsonl"  # our schema is not CSL-JSON


def test_a_stored_paper_takes_the_key_the_users_library_now_gives(
    tmp_path: Path, fake_index: Index
) -> None:
    from rag.cite.export import to_bibtex

    ingest([SEEDS], fake_index)
    papers = {p.citation_key: p for p in fake_index.papers.values()}
    ju, mai = papers["ju_icgnn"], papers["mai"]
    mine = tmp_path / "my-library.bib"
    mine.write_text(
        to_bibtex([ju.with_(citation_key="juNoisyLabelsGraphs")])
        + to_bibtex([mai.with_(citation_key="li_cell")]),  # another paper holds this key
        encoding="utf-8",
    )
    report = ingest([mine], fake_index)
    assert report.added == 0 and report.updated == 2  # the same papers, read from a new file
    keys = {p.id: p.citation_key for p in fake_index.papers.values()}
    assert keys[ju.id] == "juNoisyLabelsGraphs" and keys[mai.id] == "mai"
    assert report.key_changes == (
        f"{mine}:1: citation key 'ju_icgnn' is now 'juNoisyLabelsGraphs', as the source gives it",
    )
    (clash,) = report.key_clashes
    assert "'li_cell' is already used by another paper: this paper stays 'mai'" in clash
    assert len(set(keys.values())) == len(keys)
