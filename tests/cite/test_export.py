"""Reference export: BibTeX, RIS, CSL-JSON and Markdown, read back by real parsers."""

# Typographic Unicode (dashes, quotes, math signs, Greek) is what these tests are about.
# ruff: noqa: RUF001

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import bibtexparser
import pytest
from bibtexparser.middlewares import LatexDecodingMiddleware, SeparateCoAuthors, SplitNameParts

from rag.cite.export import (
    bibtex_entry,
    latex_escape,
    render,
    split_name,
    to_bibtex,
    to_csl_json,
    to_markdown,
    to_ris,
)
from rag.errors import ConfigError
from rag.ingest.naming import assign_keys, family_name
from rag.ingest.parsers import parse_path
from rag.ingest.parsers.bibtex import parse_text as read_bibtex
from rag.records import Paper

SEEDS = sorted((Path(__file__).parents[2] / "seeds").glob("*.txt"))
DATA = Path(__file__).parents[1] / "data"


@pytest.fixture(scope="module")
def seeds() -> list[Paper]:
    return assign_keys([p for path in SEEDS for p in parse_path(path).papers])


@pytest.fixture(scope="module")
def tricky() -> Paper:
    """A paper with every kind of character that breaks a careless exporter."""
    return Paper.create(
        authors=["Martin Luther King Jr.", "Ludwig van Beethoven", "Oğuz Yüksel", "周欣"],
        abstract=(
            "We show {braces} & 50% of $x$ cost ~ 3^2 <a|b> with x_i in C:\\tmp and # tags; "
            "the model’s naïve “quotes” — dashes… ≤ 5 × α."
        ),
        title="ICGNN: Noisy {Labels} on Graphs & LoRA",
        year=2024,
        doi="10.1000/x_y",
        url="https://example.org/a?b=1&c=2",
        area="General Machine Learning · Sequential, Network, and Time Series Modeling",
        authors_truncated=True,
        citation_key="king2024icgnn",
    )


def _by_key(seeds: list[Paper], key: str) -> Paper:
    return next(p for p in seeds if p.citation_key == key)


# -- BibTeX


def test_bibtex_of_the_seeds_parses_with_bibtexparser(seeds: list[Paper]) -> None:
    library = bibtexparser.parse_string(
        to_bibtex(seeds),
        append_middleware=[LatexDecodingMiddleware(), SeparateCoAuthors(), SplitNameParts()],
    )
    assert library.failed_blocks == []
    assert [e.key for e in library.entries] == [p.citation_key for p in seeds]
    for paper, entry in zip(seeds, library.entries, strict=True):
        fields = entry.fields_dict
        assert entry.entry_type == "misc"
        # No title, no year: the seeds have none, and none is invented.
        assert "title" not in fields and "year" not in fields
        assert fields["note"].value == f"Derived label, not the title: {paper.label}"
        names = fields["author"].value
        expected = list(paper.authors) + (["others"] if paper.authors_truncated else [])
        assert len(names) == len(expected)
        for name, author in zip(names, expected, strict=True):
            if author == "others":
                assert name.last == ["others"]
            elif split_name(author).literal:  # 周欣 is braced whole: one "last name"
                assert name.last == [author]
            else:
                assert " ".join(name.von + name.last) == family_name(author)


def test_bibtex_author_names_from_the_issue(seeds: list[Paper]) -> None:
    text = bibtex_entry(_by_key(seeds, "mai")) + bibtex_entry(_by_key(seeds, "li_conrad"))
    assert "author    = {MAI, Xiaoyi and Loubes, Jean-Michel}" in text
    assert "Chen, Tse-Hsun (Peter)}" in text
    treepo = bibtex_entry(next(p for p in seeds if "周欣" in p.authors))
    assert "{周欣}" in treepo and treepo.split("author    = {")[1].split("},")[0].endswith(
        " and others"
    )


def test_bibtex_round_trips_through_our_reader(seeds: list[Paper], tricky: Paper) -> None:
    papers = [*seeds, tricky]
    back = list(read_bibtex(to_bibtex(papers), "refs.bib"))
    assert all(isinstance(p, Paper) for p in back)
    fields = ("id", "authors", "authors_truncated", "abstract", "title", "year", "doi", "url")
    for paper, read in zip(papers, back, strict=True):
        assert isinstance(read, Paper)
        for name in fields:
            assert getattr(read, name) == getattr(paper, name), (paper.citation_key, name)
        assert read.citation_key == paper.citation_key
        assert read.area == paper.area or read.area == (paper.area or "").replace(", ", " · ")


def test_bibtex_escapes_specials_and_keeps_the_entry_balanced(tricky: Paper) -> None:
    entry = bibtex_entry(tricky)
    assert entry.count("{") == entry.count("}")
    body = entry.split("abstract  = {", 1)[1]
    assert not re.search(r"(?<!\\)[&%#_~^]", body)  # every special escaped
    for raw in ("{braces}", "$x$", "C:\\tmp"):
        assert raw not in body
    assert r"\textbraceleft{}braces\textbraceright{}" in body and r"50\%" in body
    assert r"na{\"i}ve" in body and r"$\leq$" in body
    assert "title     = {{ICGNN:} Noisy" in entry and "{LoRA}}" in entry  # kept upper-case
    assert "year      = {2024}" in entry
    assert "url       = {https://example.org/a?b=1&c=2}" in entry  # URLs stay verbatim
    assert "keywords  = {General Machine Learning, {Sequential, Network," in entry


def test_bibtex_in_bibtexparser_decodes_to_the_same_text(tricky: Paper) -> None:
    library = bibtexparser.parse_string(
        bibtex_entry(tricky), append_middleware=[LatexDecodingMiddleware()]
    )
    (entry,) = library.entries
    assert entry["title"] == "ICGNN: Noisy Labels on Graphs & LoRA"  # pylatexenc drops \textbrace
    assert entry["author"].startswith("King, Jr., Martin Luther and van Beethoven, Ludwig")
    assert "Yüksel, Oğuz and 周欣 and others" in entry["author"]


def _bibtex_binary() -> str | None:
    binary = shutil.which("bibtex")
    if binary is None:
        return None
    found = subprocess.run(["kpsewhich", "plain.bst"], capture_output=True, text=True)
    return binary if found.returncode == 0 and found.stdout.strip() else None


@pytest.mark.skipif(_bibtex_binary() is None, reason="bibtex/plain.bst not installed")
def test_bibtex_itself_reads_the_export_without_errors(
    tmp_path: Path, seeds: list[Paper], tricky: Paper
) -> None:
    (tmp_path / "refs.bib").write_text(to_bibtex([*seeds, tricky]), encoding="utf-8")
    (tmp_path / "paper.aux").write_text(
        "\\relax\n\\citation{*}\n\\bibstyle{plain}\n\\bibdata{refs}\n", encoding="utf-8"
    )
    run = subprocess.run(
        ["bibtex", "paper"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stdout  # 1 would be warnings, 2 errors
    assert "error message" not in run.stdout and "Warning" not in run.stdout
    bbl = (tmp_path / "paper.bbl").read_text(encoding="utf-8")
    assert bbl.count("\\bibitem{") == len(seeds) + 1
    assert "Xiaoyi MAI and Jean-Michel Loubes." in bbl
    assert "{周欣}, Xingwei Qu, et~al." in bbl


# -- RIS

_RIS_LINE = re.compile(r"^([A-Z][A-Z0-9])  - (.*)$")


def _read_ris(text: str) -> list[list[tuple[str, str]]]:
    records: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    for line in text.splitlines():
        if not line:
            continue
        match = _RIS_LINE.match(line)
        assert match, f"not a RIS line: {line!r}"
        current.append((match.group(1), match.group(2)))
        if match.group(1) == "ER":
            records.append(current)
            current = []
    assert current == [], "record without ER"
    return records


def test_ris_structure(seeds: list[Paper], tricky: Paper) -> None:
    papers = [*seeds, tricky]
    records = _read_ris(to_ris(papers))
    assert len(records) == len(papers)
    for paper, record in zip(papers, records, strict=True):
        tags = [t for t, _ in record]
        assert tags[0] == "TY" and record[0][1] == "GEN" and tags[-1] == "ER"
        assert dict(record)["ID"] == paper.citation_key
        assert tags.count("AU") == len(paper.authors)
        assert dict(record)["AB"] == paper.abstract
        assert ("TI" in tags) == bool(paper.title) and ("PY" in tags) == (paper.year is not None)
    mai = records[[p.citation_key for p in papers].index("mai")]
    assert [v for t, v in mai if t == "AU"] == ["MAI, Xiaoyi", "Loubes, Jean-Michel"]
    assert [v for t, v in mai if t == "KW"] == ["Social Aspects", "Fairness"]
    assert ("N1", "Derived label, not the title: MAI & Loubes") in mai
    last = records[-1]
    assert ("AU", "King, Martin Luther, Jr.") in last and ("AU", "周欣") in last
    assert ("PY", "2024") in last and ("DO", "10.1000/x_y") in last


# -- CSL-JSON


def test_csl_json_structure(seeds: list[Paper], tricky: Paper) -> None:
    items = json.loads(to_csl_json([*seeds, tricky]))
    assert isinstance(items, list) and len(items) == len(seeds) + 1
    allowed = {"id", "type", "author", "title", "issued", "DOI", "URL", "keyword", "note"}
    for paper, item in zip([*seeds, tricky], items, strict=True):
        assert set(item) <= allowed | {"abstract"}
        assert item["id"] == paper.citation_key and item["type"] == "article"
        assert item["abstract"] == paper.abstract
        assert len(item["author"]) == len(paper.authors)
        for person in item["author"]:
            assert set(person) in ({"family", "given"}, {"family"}, {"literal"}) or set(person) == {
                "family",
                "given",
                "suffix",
            }
        assert ("title" in item) == bool(paper.title)
    treepo = next(i for i in items if {"literal": "周欣"} in i["author"])
    assert "more authors" in treepo["note"]
    assert items[-1]["issued"] == {"date-parts": [[2024]]}
    assert items[-1]["author"][0] == {"family": "King", "given": "Martin Luther", "suffix": "Jr."}


# -- Markdown


def test_markdown_reference_list(seeds: list[Paper], tricky: Paper) -> None:
    lines = to_markdown([*seeds, tricky]).splitlines()
    assert len(lines) == len(seeds) + 1
    for paper, line in zip([*seeds, tricky], lines, strict=True):
        assert line.startswith(f"- [@{paper.citation_key}] ")
    assert "(derived label; the source gives no title)" in lines[0]
    assert r"*ICGNN: Noisy {Labels} on Graphs & LoRA*. 2024." in lines[-1]
    assert r"doi:10.1000/x\_y." in lines[-1]


# -- names and the dispatcher


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ("Jean-Michel Loubes", ("Loubes", "Jean-Michel", "", "")),
        ("Tse-Hsun (Peter) Chen", ("Chen", "Tse-Hsun (Peter)", "", "")),
        ("Xiaoyi MAI", ("MAI", "Xiaoyi", "", "")),
        ("周欣", ("", "", "", "周欣")),
        ("van der Berg, Jan", ("van der Berg", "Jan", "", "")),
        ("Martin Luther King Jr.", ("King", "Martin Luther", "Jr.", "")),
        ("Plato", ("Plato", "", "", "")),
    ],
)
def test_split_name(name: str, parts: tuple[str, str, str, str]) -> None:
    got = split_name(name)
    assert (got.family, got.given, got.suffix, got.literal) == parts


def test_latex_escape_of_accents_and_cjk() -> None:
    assert latex_escape("Oğuz Yüksel, Søren, İşler") == (
        r"O{\u{g}}uz Y{\"u}ksel, S{\o}ren, {\.I}{\c{s}}ler"
    )
    assert latex_escape("周欣") == "周欣"


def test_render_rejects_an_unknown_format(seeds: list[Paper]) -> None:
    with pytest.raises(ConfigError, match="bibtex, ris, csljson, markdown"):
        render(seeds[:1], "endnote")


def test_imported_bibtex_exports_its_title_and_year() -> None:
    papers = assign_keys(parse_path(DATA / "references.bib").papers)
    entry = bibtex_entry(papers[0])
    assert "title     = {Attention is All you Need}" in entry and "year      = {2017}" in entry
    assert "note" not in entry  # a real title: no derived label


def test_ris_and_csl_json_can_leave_the_abstracts_out(seeds: list[Paper]) -> None:
    # the chat gives entries to copy ("RIS please"), short enough to read: no abstracts
    ris = to_ris(seeds[:2], abstracts=False)
    assert ris.count("TY  - GEN") == 2 and "AB  - " not in ris
    assert "AB  - " in to_ris(seeds[:2])
    items = json.loads(to_csl_json(seeds[:2], abstracts=False))
    assert len(items) == 2 and all("abstract" not in item and item["author"] for item in items)
    assert all("abstract" in item for item in json.loads(to_csl_json(seeds[:2])))
