"""Input formats: BibTeX, CSV, the arXiv snapshot, more seed pages, JSON lines, RIS, CSL-JSON,
PubMed.

Each sample in tests/data/ is small and real-looking, with one or two bad records; a good
record must go in and each bad one must be reported with its file and line.
"""

# Typographic Unicode (dashes, quotes, math signs, Greek) is what these tests are about.
# ruff: noqa: RUF001

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rag.errors import ParseError
from rag.index.paper_index import Index
from rag.ingest.parsers import detect_format, parse_path
from rag.ingest.parsers.bibtex import decode_latex
from rag.ingest.parsers.bibtex import parse_text as parse_bibtex
from rag.ingest.pipeline import ingest

DATA = Path(__file__).parents[1] / "data"

# file → (format, papers read, [lines of the entries without an abstract],
#         [(line, words in the error)])
SAMPLES = {
    "references.bib": ("bibtex", 3, [38], [(46, "expected ','")]),
    "zotero-export.csv": ("csv", 3, [5], [(6, "'year'")]),
    "arxiv-snapshot.jsonl": ("arxiv", 3, [4], [(5, "invalid JSON")]),
    "more-seeds.txt": ("seed", 2, [], [(13, "without an abstract")]),
    "papers.jsonl": ("jsonl", 2, [3], []),
    "zotero-export.ris": ("ris", 4, [37], [(55, "no 'ER  - ' line")]),
    "zotero-library.json": ("csljson", 3, [35], [(57, "'issued'")]),
    "pubmed-export.nbib": ("pubmed", 3, [53], []),
    "savedrecs.txt": ("wos", 3, [41], [(50, "'PY'"), (67, "no 'ER' line")]),
    "savedrecs-tab.txt": ("wos", 2, [4], [(5, "'PY'")]),
    # Written from the shapes Zotero's and Better BibTeX's exports have: books, web pages and
    # reports without an abstract are normal in a library.
    "zotero-library.bib": ("bibtex", 2, [1, 28, 34, 58], []),
    "bbt-library.json": ("csljson", 2, [3, 4], []),
    "cochrane-export.bib": ("bibtex", 3, [], []),
    "pipeline.jsonl": ("jsonl", 3, [3], []),
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_each_sample_is_read_and_its_bad_records_named(name: str) -> None:
    fmt, count, untold, bad = SAMPLES[name]
    path = DATA / name
    assert detect_format(path) == fmt
    result = parse_path(path)
    assert len(result.papers) == count
    assert [p.source for p in result.no_abstract] == [f"{path}:{line}" for line in untold]
    assert all(p.title_only for p in result.no_abstract)
    assert [(e.path, e.line) for e in result.errors] == [(str(path), line) for line, _ in bad]
    for error, (_, words) in zip(result.errors, bad, strict=True):
        assert words in error.reason
        assert str(error).startswith(f"{path}:{error.line}: ")


def test_ingesting_the_folder_picks_each_parser_and_reports_every_bad_record(
    tmp_path: Path, fake_index: Index
) -> None:
    folder = tmp_path / "library"
    shutil.copytree(DATA, folder, ignore=shutil.ignore_patterns("cite_*"))
    report = ingest([folder], fake_index)
    assert report.added == sum(count for _, count, _, _ in SAMPLES.values())
    assert report.files == len(SAMPLES)
    expected = {
        f"{folder / name}:{line}" for name, (_, _, _, bad) in SAMPLES.items() for line, _ in bad
    }
    assert {e.split(": ", 1)[0] for e in report.errors} == expected
    # One note per file with entries lacking an abstract, naming the flag that keeps them.
    notes = [n for n in report.notes if "without an abstract" in n]
    untold = {name: len(lines) for name, (_, _, lines, _) in SAMPLES.items() if lines}
    assert len(notes) == len(untold)
    for name, n in untold.items():
        (note,) = [x for x in notes if x.startswith(f"{folder / name}: ")]
        assert f": {n} entr" in note and "`rag ingest --title-only` keeps" in note
    assert ingest([folder], fake_index).added == 0


def test_bibtex_fields_are_decoded() -> None:
    papers = {p.citation_key: p for p in parse_path(DATA / "references.bib").papers}
    vaswani = papers["vaswani2017attention"]
    assert vaswani.authors[6] == "Łukasz Kaiser"  # "Kaiser, {\L}ukasz"
    assert vaswani.year == 2017 and vaswani.title == "Attention is All you Need"
    assert vaswani.area == "transformers · attention · machine translation"
    assert vaswani.abstract.startswith("The dominant sequence transduction models are based")
    assert "\n" not in vaswani.abstract
    scholkopf = papers["scholkopf2021causal"]
    assert scholkopf.authors[0] == "Bernhard Schölkopf"
    assert scholkopf.doi == "10.1109/JPROC.2021.3058954"
    muller = papers["muller2022self"]
    assert muller.authors == ("Thomas Müller", "María García") and muller.authors_truncated
    assert muller.title == "Self-Supervised Pretraining for Earth Observation: a Überblick"
    assert muller.external_id == "arXiv:2206.01234"
    assert "4.1% in accuracy at 1% of the labels" in muller.abstract


def test_bibtex_reader_goes_on_after_a_broken_entry() -> None:
    text = "@misc{a,\n  title = {Unclosed\n\n@misc{b, author = {Roe, R.}, abstract = {Fine.}}\n"
    items = list(parse_bibtex(text, "x.bib"))
    assert [type(i).__name__ for i in items] == ["ParseError", "Paper"]
    assert items[0].line == 2 and "unbalanced" in str(items[0])  # type: ignore[union-attr]


def test_bibtex_undefined_macro_is_named() -> None:
    (error,) = list(parse_bibtex("@misc{a, journal = jmlr, abstract = {A.}}", "x.bib"))
    assert "'jmlr' is not defined" in str(error)


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        (r"M{\"u}ller", "Müller"),
        (r"M\"{u}ller", "Müller"),
        (r"{\o}stergaard", "østergaard"),
        (r"Gro\ss e", "Große"),
        (r"na\"{\i}ve", "naïve"),
        (r"{\.I}{\c{s}}ler", "İşler"),
        (r"\v{C}apek", "Čapek"),
        (r"50\% \& x\_i", "50% & x_i"),
        (r"$\leq$ 5 $\times$ 3", "≤ 5 × 3"),
        (r"pages 1--2, ``quoted''", "pages 1–2, “quoted”"),
        (r"\textbraceleft{}x\textbraceright{} C:\textbackslash{}tmp", "{x} C:\\tmp"),
        (r"The {LoRA} \emph{method}", "The LoRA method"),
        # Zotero's export of a biomedical library: these read "textpm" and "kappaB" (stop 58)
        (r"12.2{\textpm}3.1 ppm at 37{\textdegree}C, 5 \textmu{}g", "12.2±3.1 ppm at 37°C, 5 µg"),
        (r"NF-{$\kappa$}B and IFN-$\gamma$", "NF-κB and IFN-γ"),
        (r"the \modelname{} and $\kappa=2$", "the modelname and kappa=2"),  # as before
    ],
)
def test_decode_latex(latex: str, text: str) -> None:
    assert decode_latex(latex) == text


def test_csv_maps_common_column_names_and_keeps_multiline_cells() -> None:
    papers = parse_path(DATA / "zotero-export.csv").papers
    adam, resnet, bert = papers
    assert adam.authors == ("Kingma, Diederik P.", "Ba, Jimmy")
    assert adam.area == "Optimization · Deep Learning" and adam.year == 2015
    assert adam.doi == "10.48550/arXiv.1412.6980" and adam.url == "http://arxiv.org/abs/1412.6980"
    assert "deeper than those used previously. We explicitly reformulate" in resnet.abstract
    assert resnet.source.endswith("zotero-export.csv:3")
    assert bert.year == 2019  # from the date 2019-05-24
    assert bert.citation_key == ""  # keys are given at ingest


def test_csv_without_an_abstract_column_says_which_columns_it_has(tmp_path: Path) -> None:
    path = tmp_path / "scopus.csv"
    path.write_text("Authors;Title;Year\nA. Smith;On Things;2020\n", encoding="utf-8")
    (error,) = parse_path(path).errors
    assert error.line == 1 and "no abstract column" in error.reason and "'Title'" in error.reason


def test_csv_semicolon_separated_with_plain_author_list(tmp_path: Path) -> None:
    path = tmp_path / "export.tsv"
    path.write_text("title\tauthors\tsummary\nX\tA. Smith, B. Jones and C. Wu\tAn abstract.\n")
    (paper,) = parse_path(path).papers
    assert paper.authors == ("A. Smith", "B. Jones", "C. Wu")


def test_arxiv_year_is_the_first_version_not_the_update_date() -> None:
    diphoton, maldacena, attention = parse_path(DATA / "arxiv-snapshot.jsonl").papers
    assert diphoton.year == 2007  # update_date is 2008-11-13
    assert diphoton.authors[0] == "C. Balázs"  # "C. Bal\\'azs"
    assert diphoton.title == (
        "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
    )
    assert maldacena.year == 1997 and maldacena.authors == ("Juan M. Maldacena",)  # no "(Harvard)"
    assert maldacena.abstract.startswith("We show that the large N limit")
    assert attention.area == "cs.CL cs.LG" and attention.doi is None
    assert attention.url == "https://arxiv.org/abs/1706.03762"
    assert attention.external_id == "arXiv:1706.03762"


def test_arxiv_lines_in_a_json_file_are_detected_by_content(tmp_path: Path) -> None:
    path = tmp_path / "slice.json"
    shutil.copy(DATA / "arxiv-snapshot.jsonl", path)
    assert detect_format(path) == "arxiv"
    ours = tmp_path / "ours.json"
    shutil.copy(DATA / "papers.jsonl", ours)
    assert detect_format(ours) == "jsonl"


def test_bibtex_in_a_txt_file_is_detected_by_content(tmp_path: Path) -> None:
    path = tmp_path / "refs.txt"
    path.write_text("% my refs\n@article{k, abstract = {An abstract.}}\n", encoding="utf-8")
    assert detect_format(path) == "bibtex"
    assert len(parse_path(path).papers) == 1


def test_bibtex_entries_without_a_key_get_a_derived_one_said_once(fake_index: Index) -> None:
    # The Cochrane Library writes `@article{,` (and some tools `@article{author = ...`).
    path = DATA / "cochrane-export.bib"
    result = parse_path(path)
    assert [p.citation_key for p in result.papers] == ["CD012345", "", ""]
    assert not result.errors
    (notice,) = result.notices
    assert str(notice) == (
        f"{path}: 2 entries have no citation key (lines 14, 23): each gets one derived "
        "from its authors, year and title"
    )
    report = ingest([path], fake_index)
    assert report.added == 3 and report.errors == () and report.notes == (str(notice),)
    keys = {p.title: p.citation_key for p in fake_index.papers.values()}
    assert keys["Psychological therapies for anxiety in older adults"] == "brown2022psychological"
    assert keys["Interventions for insomnia in shift workers"] == "white2021interventions"


def test_bibtex_entry_that_is_neither_keyed_nor_fielded_is_named() -> None:
    (error,) = list(parse_bibtex("@article{ = {x}}\n", "x.bib"))
    assert isinstance(error, ParseError) and error.line == 1
    assert "expected a citation key or a field" in error.reason


def test_jsonl_pipeline_id_is_kept_as_the_external_id() -> None:
    path = DATA / "pipeline.jsonl"
    result = parse_path(path)
    assert [p.external_id for p in result.papers] == ["doc-001", "1002", "beir-7"]  # _id wins
    assert [p.external_id for p in result.no_abstract] == ["doc-003"]


def test_our_own_records_do_not_take_the_content_hash_for_an_external_id(
    tmp_path: Path,
) -> None:
    paper = parse_path(DATA / "papers.jsonl").papers[0]
    path = tmp_path / "export.jsonl"
    path.write_text(paper.to_json() + "\n", encoding="utf-8")
    (again,) = parse_path(path).papers
    assert again.external_id == paper.external_id and again.id == paper.id


def test_zotero_bibtex_library_reads_every_abstract_and_the_rest_as_title_only() -> None:
    result = parse_path(DATA / "zotero-library.bib")
    assert [p.citation_key for p in result.papers] == ["vaswani_attention_2017", "he_deep_2016"]
    assert [p.citation_key for p in result.no_abstract] == [
        "bishop_pattern_2006",
        "noauthor_pytorch_nodate",
        "european_commission_ethics_2019",
        "zotero_attachment_only_2020",
    ]
    bishop = result.no_abstract[0]
    assert bishop.title == "Pattern recognition and machine learning" and bishop.year == 2006
    assert bishop.area == "Machine learning · Pattern perception"
    assert result.no_abstract[3].title is None  # neither title nor abstract: nothing to keep


def test_better_bibtex_csl_json_keeps_its_keys_for_title_only_items() -> None:
    result = parse_path(DATA / "bbt-library.json")
    assert [p.citation_key for p in result.papers] == [
        "vaswaniAttentionAllYou2017",
        "heDeepResidualLearning2016",
    ]
    assert [(p.citation_key, p.title) for p in result.no_abstract] == [
        ("bishopPatternRecognitionMachine2006", "Pattern recognition and machine learning"),
        ("PyTorchDocumentation", "PyTorch documentation"),
    ]


def test_csl_json_from_a_bibtex_converter_keeps_et_al_keywords_and_extra_lines(
    tmp_path: Path,
) -> None:
    # What BibTeX-to-CSL converters write for `and others`, a keyword list with commas inside
    # its keywords, and a Zotero Extra field of several `Key: value` lines.
    path = tmp_path / "converted.json"
    path.write_text(
        '[{"id": "smith2020", "type": "article", "issued": {"date-parts": [[2020]]},'
        ' "author": [{"family": "Smith", "given": "Ann"}, {"literal": "others"}],'
        ' "keyword": "Fairness; Accountability, Transparency, and Interpretability",'
        ' "note": "Citation Key: smithFair2020\\ntex.howpublished: preprint",'
        ' "abstract": "We audit ranking systems for fairness."}]',
        encoding="utf-8",
    )
    (paper,) = parse_path(path).papers
    assert paper.authors == ("Ann Smith",) and paper.authors_truncated
    assert paper.area == "Fairness · Accountability, Transparency, and Interpretability"
    assert paper.citation_key == "smithFair2020"


def test_scopus_placeholder_abstract_is_no_abstract(tmp_path: Path) -> None:
    path = tmp_path / "scopus.csv"
    path.write_text(
        'Authors,Title,Year,Abstract\n"Smith A.","Erratum",2020,"[No abstract available]"\n',
        encoding="utf-8",
    )
    result = parse_path(path)
    assert not result.papers and not result.errors
    assert [p.title for p in result.no_abstract] == ["Erratum"]
