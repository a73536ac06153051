"""Reading paper files: the seed pages, JSON lines (ours and BEIR's), and bad files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rag.errors import ParseError
from rag.ingest.parsers import detect_format, iter_files, parse_path
from rag.records import Paper

SEED_DIR = Path(__file__).parents[2] / "seeds"


@pytest.fixture(scope="module")
def seeds() -> list[Paper]:
    papers: list[Paper] = []
    for path in iter_files([SEED_DIR]):
        result = parse_path(path)
        assert result.errors == []
        papers.extend(result.papers)
    return papers


def _by_first_author(papers: list[Paper], name: str) -> Paper:
    (paper,) = [p for p in papers if p.authors[0] == name]
    return paper


def test_seeds_give_40_distinct_papers(seeds: list[Paper]) -> None:
    assert len(seeds) == 40
    assert len({p.id for p in seeds}) == 40


def test_area_less_seed_papers_have_no_area(seeds: list[Paper]) -> None:
    assert _by_first_author(seeds, "Wei Ju").area is None
    assert _by_first_author(seeds, "Renxiang Guan").area is None
    assert sum(p.area is None for p in seeds) == 2


def test_area_with_commas_survives(seeds: list[Paper]) -> None:
    pei = _by_first_author(seeds, "Yuhang Pei")
    assert pei.area == "General Machine Learning · Sequential, Network, and Time Series Modeling"


def test_truncated_author_lists_are_flagged(seeds: list[Paper]) -> None:
    truncated = [p for p in seeds if p.authors_truncated]
    assert {p.authors[0] for p in truncated} == {"Chuxue Cao", "Yizhi Li"}
    assert all("等" not in name for p in seeds for name in p.authors)
    assert _by_first_author(seeds, "Yizhi Li").authors[-2:] == ("周欣", "Xingwei Qu")


def test_unicode_names_survive_exactly(seeds: list[Paper]) -> None:
    names = {name for p in seeds for name in p.authors}
    assert {"Devriş İşler", "Oğuz Yüksel", "周欣", "wenlong deng", "Xiaoyi MAI"} <= names
    assert "Tse-Hsun (Peter) Chen" in names


def test_markup_is_cleaned_in_seed_abstracts(seeds: list[Paper]) -> None:
    assert "we propose CalM, a self-supervised" in _by_first_author(seeds, "Xinhong Xu").abstract
    abbasi = _by_first_author(seeds, "Ali Abbasi").abstract
    assert "We propose Zero Sum SVD (ZS-SVD), a post-training method" in abbasi
    assert not any(mark in p.abstract for p in seeds for mark in ("\\textbf", "**", "\\%", "$"))


def test_every_seed_paper_is_complete(seeds: list[Paper]) -> None:
    for paper in seeds:
        assert paper.authors, paper.source
        assert len(paper.abstract.split()) >= 50, paper.source
        assert paper.label_derived and paper.label
        assert paper.citation_key == ""


def test_source_points_at_the_entry_line(seeds: list[Paper]) -> None:
    for paper in seeds:
        path, line = paper.source.rsplit(":", 1)
        first_line = Path(path).read_text(encoding="utf-8").splitlines()[int(line) - 1]
        expected = paper.area if paper.area is not None else paper.authors[0]
        assert first_line.startswith(expected), paper.source


def test_seed_parse_is_stable(seeds: list[Paper]) -> None:
    again = [p for path in iter_files([SEED_DIR]) for p in parse_path(path).papers]
    assert again == seeds


def test_seed_entry_without_abstract_is_reported(tmp_path: Path) -> None:
    abstract = " ".join(["This sentence describes a method in some detail."] * 6)
    page = tmp_path / "page.txt"
    page.write_text(
        f"论文检索\n\nTheory · Learning\n\nAda Lovelace, Alan Turing\n\n{abstract}\n\n"
        f"Theory · Games\n\nJohn Nash\n\nDeep Learning · Other\n\nGrace Hopper\n\n{abstract}\n",
        encoding="utf-8",
    )
    result = parse_path(page)
    assert [p.authors for p in result.papers] == [
        ("Ada Lovelace", "Alan Turing"),
        ("Grace Hopper",),
    ]
    assert result.papers[1].area == "Deep Learning · Other"
    assert [(e.path, e.line) for e in result.errors] == [(str(page), 9)]


def test_beir_corpus(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    rows = [
        {"_id": "4983", "title": "Microstructural development", "text": "Alterations of the brain.",
         "metadata": {"url": "https://example.org/4983"}},
        {"_id": 5836, "title": "", "text": "Induction of myelodysplasia by gene products."},
    ]  # fmt: skip
    corpus.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    result = parse_path(corpus)
    assert result.errors == []
    first, second = result.papers
    assert (first.external_id, first.title, first.abstract) == (
        "4983",
        "Microstructural development",
        "Alterations of the brain.",
    )
    assert first.url == "https://example.org/4983"
    assert first.authors == ()
    assert (second.external_id, second.title) == ("5836", None)
    assert second.source == f"{corpus}:2"


def test_our_schema_with_author_strings(tmp_path: Path) -> None:
    own = Paper.create(authors=["Wei Ju", "Ming Zhang"], abstract="We study graphs.", year=2024)
    path = tmp_path / "papers.jsonl"
    rows = [
        own.to_json(),
        json.dumps(
            {"authors": "A. Smith, B. Jones and C. Wu", "abstract": "x **y**", "area": "ML"}
        ),
        json.dumps({"authors": "Berg, Jan; Smith, Ann", "abstract": "z", "doi": "10.1/x"}),
    ]
    path.write_text("\n".join(rows), encoding="utf-8")
    result = parse_path(path)
    assert result.errors == []
    ours, smith, berg = result.papers
    assert ours.id == own.id
    assert (ours.authors, ours.year) == (("Wei Ju", "Ming Zhang"), 2024)
    assert smith.authors == ("A. Smith", "B. Jones", "C. Wu")
    assert (smith.abstract, smith.area, smith.label) == ("x y", "ML", "Smith et al.")
    assert (berg.authors, berg.doi) == (("Berg, Jan", "Smith, Ann"), "10.1/x")


def test_json_array_file(tmp_path: Path) -> None:
    path = tmp_path / "papers.json"
    path.write_text('[\n {"abstract": "one", "authors": ["A"]},\n {"abstract": "two"}\n]')
    result = parse_path(path)
    assert [p.abstract for p in result.papers] == ["one", "two"]
    assert [p.source for p in result.papers] == [f"{path}:2", f"{path}:3"]


def test_bad_lines_are_reported_and_good_ones_kept(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    lines = [
        json.dumps({"abstract": "good one"}),
        '{"abstract": "truncated',
        json.dumps({"title": "no abstract"}),
        json.dumps({"abstract": "bad year", "year": 99999}),
        json.dumps({"abstract": "bad authors", "authors": 42}),
        "[1, 2]",
        "",
        json.dumps({"_id": "d1", "text": "good two"}),
    ]
    path.write_bytes(("\n".join(lines)).encode() + b"\n" + b'{"abstract": "\xff"}\n')
    result = parse_path(path)
    assert [p.abstract for p in result.papers] == ["good one", "good two"]
    assert [(e.path, e.line) for e in result.errors] == [(str(path), n) for n in (2, 4, 5, 6, 9)]
    assert "year" in result.errors[1].reason and "authors" in result.errors[2].reason
    # An entry without an abstract is not a bad record: it is a title-only paper, apart.
    (untold,) = result.no_abstract
    assert untold.title == "no abstract" and untold.title_only and untold.source == f"{path}:3"
    assert str(result.errors[0]).startswith(f"{path}:2: invalid JSON")


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("empty.jsonl", b"", "empty"),
        ("blank.txt", b" \n\n ", "empty"),
        ("binary.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        (
            "latin1.txt",
            "论文检索\n\nA · B\n\nJosé Pérez\n\n".encode() + b"Caf\xe9 au lait.\n",
            "UTF-8",
        ),
        ("notes.txt", b"Just some notes, nothing more.\n", "format"),
        ("table.csv", b"a,b\n1,2\n", "no abstract column"),
        ("paper.docx", b"PK\x03\x04", "unsupported"),
    ],
)
def test_bad_files_give_an_error_naming_the_file(
    tmp_path: Path, name: str, content: bytes, words: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    result = parse_path(path)
    assert result.papers == []
    (error,) = result.errors
    assert isinstance(error, ParseError)
    assert error.path == str(path)
    assert words in error.reason


def test_invalid_utf8_error_has_its_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("论文检索\n\nA · B\n\nJosé Pérez\n\n".encode() + b"Caf\xe9 au lait.\n")
    (error,) = parse_path(path).errors
    assert error.line == 7


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    (error,) = parse_path(tmp_path / "nope.jsonl").errors
    assert "no such file" in error.reason


def test_detect_format() -> None:
    assert {detect_format(p) for p in SEED_DIR.glob("*.txt")} == {"seed"}
    assert detect_format(Path("corpus.jsonl")) == "jsonl"


def test_iter_files_walks_sorted_skipping_hidden_and_loops(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "2.txt").write_text("x")
    (tmp_path / "a.jsonl").write_text("x")
    (tmp_path / ".hidden.txt").write_text("x")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "c.txt").write_text("x")
    os.symlink(tmp_path, tmp_path / "b" / "loop")
    files = list(iter_files([tmp_path, tmp_path / "a.jsonl"]))
    assert files == [tmp_path / "a.jsonl", tmp_path / "b" / "2.txt"]
