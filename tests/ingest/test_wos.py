"""Web of Science exports: the plain text (`savedrecs.txt`) and the tab-delimited file.

The samples in tests/data/ are written from Clarivate's field tags: `FN`/`VR` header, records
from `PT` to `ER`, `EF` at the end, continuation lines of three spaces; the tab-delimited file
has a header row of the same tags.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rag.index.paper_index import Index
from rag.ingest.parsers import detect_format, parse_path
from rag.ingest.pipeline import ingest

DATA = Path(__file__).parents[1] / "data"
PLAIN = DATA / "savedrecs.txt"
TABBED = DATA / "savedrecs-tab.txt"


def test_plain_text_fields_are_read_with_continuation_lines_joined() -> None:
    alphafold, sparse, consortium = parse_path(PLAIN).papers
    # AF (full names) wins over AU (initials); each continuation line is one more author.
    assert alphafold.authors == ("John Jumper", "Richard Evans", "Alexander Pritzel")
    assert alphafold.title == "Highly accurate protein structure prediction with AlphaFold"
    assert alphafold.abstract.startswith("Proteins are essential to life")
    assert alphafold.year == 2021 and alphafold.doi == "10.1038/s41586-021-03819-2"
    assert alphafold.external_id == "WOS:000684524800009"
    # DE (its continuation joined to the keyword it cuts) then ID, Keywords Plus, without the
    # one that repeats an author keyword; SO (the journal) is not kept anywhere.
    assert alphafold.area == (
        "protein structure prediction · deep learning · structural bioinformatics · "
        "NEURAL-NETWORKS · CONTACT PREDICTION"
    )
    assert "NATURE" not in alphafold.to_json()
    assert alphafold.source == f"{PLAIN}:3"
    assert sparse.authors == ("Xiaolong Ma",) and sparse.year == 2023  # EY: early access
    assert consortium.authors == ("Graph Learning Consortium",)  # CA: a group author


def test_plain_text_record_without_an_abstract_is_title_only_not_an_error() -> None:
    result = parse_path(PLAIN)
    (letter,) = result.no_abstract
    assert letter.title == "Correction to: Sparse graph attention for traffic forecasting"
    assert letter.external_id == "WOS:000900000000003" and letter.source == f"{PLAIN}:41"
    assert all("abstract" not in e.reason for e in result.errors)


def test_plain_text_bad_records_are_named_by_file_and_line() -> None:
    year, unended = parse_path(PLAIN).errors
    assert str(year).startswith(f"{PLAIN}:50: record WOS:000900000000004: 'PY' '20x3'")
    assert str(unended) == (
        f"{PLAIN}:67: record has no 'ER' line before the file's 'EF': it is skipped"
    )


def test_tab_delimited_fields_are_read() -> None:
    result = parse_path(TABBED)
    vaswani, ioffe = result.papers
    assert vaswani.authors == ("Ashish Vaswani", "Noam Shazeer", "Niki Parmar")
    assert vaswani.title == "Attention is all you need" and vaswani.year == 2017
    assert (
        vaswani.area == "transformer · attention · machine translation · NEURAL MACHINE TRANSLATION"
    )
    assert vaswani.external_id == "WOS:000452649406008" and vaswani.source == f"{TABBED}:2"
    assert ioffe.authors == ("Sergey Ioffe", "Christian Szegedy")
    (book,) = result.no_abstract
    assert book.title == "Pattern recognition and machine learning" and book.title_only
    (error,) = result.errors
    assert str(error).startswith(f"{TABBED}:5: record WOS:000250000000002: 'PY' 'MMXX'")


@pytest.mark.parametrize("name", ["savedrecs.ris", "savedrecs.csv", "savedrecs.tsv", "export"])
@pytest.mark.parametrize("sample", [PLAIN, TABBED])
def test_chosen_by_content_whatever_the_extension(tmp_path: Path, sample: Path, name: str) -> None:
    path = tmp_path / name
    shutil.copy(sample, path)
    assert detect_format(path) == "wos"
    assert len(parse_path(path).papers) == len(parse_path(sample).papers)


def test_concatenated_exports_and_crlf_read_as_one_file(tmp_path: Path) -> None:
    # Users `cat` several savedrecs.txt: each part has its own FN/VR header and EF.
    path = tmp_path / "all.txt"
    record = "PT J\nAU Doe, J\nTI Part {n}\nAB Abstract of part {n}.\nPY 2020\nER\n\nEF\n"
    parts = [f"FN Clarivate Analytics Web of Science\nVR 1.0\n{record.format(n=n)}" for n in (1, 2)]
    path.write_bytes("".join(parts).replace("\n", "\r\n").encode())
    result = parse_path(path)
    assert [p.title for p in result.papers] == ["Part 1", "Part 2"] and not result.errors


def test_text_outside_a_record_and_a_broken_line_are_named(tmp_path: Path) -> None:
    path = tmp_path / "savedrecs.txt"
    path.write_text(
        "FN Clarivate Analytics Web of Science\nVR 1.0\nsome pasted note\n"
        "PT J\nAU Doe, J\nTI A title\nbroken line\nAB An abstract.\nPY 2020\nER\nEF\n",
        encoding="utf-8",
    )
    result = parse_path(path)
    assert [p.title for p in result.papers] == ["A title"]
    assert [(e.line, e.reason.split(":")[0]) for e in result.errors] == [
        (3, "text outside a record"),
        (7, "not a 'TG value' line nor a continuation (three spaces, then the value)"),
    ]


def test_utf16_tab_delimited_export_says_to_save_as_utf8(tmp_path: Path) -> None:
    # Web of Science's "Tab-delimited (Win)" is UTF-16: named, not called binary.
    path = tmp_path / "savedrecs.txt"
    path.write_bytes(TABBED.read_text(encoding="utf-8-sig").encode("utf-16"))
    (error,) = parse_path(path).errors
    assert (
        str(error) == f"{path}: UTF-16 text, not UTF-8: re-save it as UTF-8 (or export it as UTF-8)"
    )


def test_ingest_of_a_wos_export_keeps_the_accession_number(fake_index: Index) -> None:
    report = ingest([PLAIN], fake_index)
    assert report.added == 3 and len(report.errors) == 2
    ids = {p.external_id for p in fake_index.papers.values()}
    assert "WOS:000684524800009" in ids
