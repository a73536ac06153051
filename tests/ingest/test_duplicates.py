"""The same paper in two files of a library: one record, with what each copy gives.

A user's library exported twice (Zotero's .bib and Mendeley's .ris) held a paper whose .bib
copy had the user's key but no DOI and whose .ris copy had the DOI but no key: the copy read
first was kept whole, so the DOI or the key was lost, depending on the order of the files,
and nothing said so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.index.paper_index import Index
from rag.ingest.pipeline import ingest

ABSTRACT = (
    "We propose selective search, which combines exhaustive search and segmentation to find "
    "object locations. It yields a small set of high-quality locations for recognition."
)
BIB = f"""@article{{uijlings_selective_2013,
  author = {{Uijlings, Jasper and Smeulders, Arnold}},
  title = {{Selective Search for Object Recognition}},
  year = {{2013}},
  abstract = {{{ABSTRACT}}}
}}
"""
RIS = f"""TY  - JOUR
AU  - Uijlings, Jasper
AU  - Smeulders, Arnold
TI  - Selective Search for Object Recognition
PY  - 2013
DO  - 10.1007/s11263-013-0620-5
AB  - {ABSTRACT}
ER  -
"""


@pytest.fixture
def library(tmp_path: Path) -> tuple[Path, Path]:
    bib, ris = tmp_path / "zotero.bib", tmp_path / "mendeley.ris"
    bib.write_text(BIB, encoding="utf-8")
    ris.write_text(RIS, encoding="utf-8")
    return bib, ris


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_two_copies_are_one_record_with_what_each_gives(
    fake_index: Index, library: tuple[Path, Path], order: tuple[int, int]
) -> None:
    report = ingest([library[i] for i in order], fake_index)
    assert report.added == 1
    (paper,) = fake_index.papers.values()
    assert paper.citation_key == "uijlings_selective_2013"
    assert paper.doi == "10.1007/s11263-013-0620-5"
    (said,) = [n for n in report.notes if "the same paper as" in n]
    taken = "DOI" if order == (0, 1) else "citation key"
    assert f"stored once, its {taken} taken from here" in said, said


def test_a_copy_read_later_gives_the_stored_record_what_it_lacks(
    fake_index: Index, library: tuple[Path, Path]
) -> None:
    bib, ris = library
    ingest([bib], fake_index)
    ingest([ris], fake_index)
    (paper,) = fake_index.papers.values()
    assert paper.doi == "10.1007/s11263-013-0620-5"
    assert paper.citation_key == "uijlings_selective_2013"


def test_an_entry_edited_in_its_file_updates_the_record(
    fake_index: Index, library: tuple[Path, Path]
) -> None:
    _, ris = library
    ingest([ris], fake_index)
    ris.write_text(RIS.replace("PY  - 2013", "PY  - 2015"), encoding="utf-8")
    report = ingest([ris], fake_index)
    (paper,) = fake_index.papers.values()
    assert paper.year == 2015
    assert report.added == 0 and report.updated == 1


def test_re_reading_one_file_keeps_what_the_other_copy_gave(
    fake_index: Index, library: tuple[Path, Path]
) -> None:
    bib, ris = library
    ingest([bib, ris], fake_index)  # stored from the .bib, its DOI from the .ris
    ingest([bib], fake_index)
    (paper,) = fake_index.papers.values()
    assert paper.doi == "10.1007/s11263-013-0620-5"


NBIB = f"""PMID- 26751583
TI  - Selective Search for Object Recognition.
AB  - {ABSTRACT}
FAU - Uijlings, Jasper R R
AU  - Uijlings JR
FAU - Smeulders, Arnold W M
AU  - Smeulders AW
DP  - 2013 Sep
"""
DOTTED_RIS = RIS.replace("Uijlings, Jasper", "Uijlings, Jasper R. R.").replace(
    "Smeulders, Arnold", "Smeulders, Arnold W. M."
)


@pytest.mark.parametrize("together", [True, False])
def test_copies_whose_initials_are_written_otherwise_are_one_record(
    fake_index: Index, tmp_path: Path, together: bool
) -> None:
    # Before: PubMed's "Jasper R R Uijlings" and the RIS export's "Jasper R. R. Uijlings" made
    # two records of one paper, with two keys (a new user's biomedical library, stop 58).
    nbib, ris = tmp_path / "pubmed.nbib", tmp_path / "endnote.ris"
    nbib.write_text(NBIB.replace("Uijlings JR", "Uijlings JRR"), encoding="utf-8")
    ris.write_text(DOTTED_RIS, encoding="utf-8")
    if together:
        report = ingest([nbib, ris], fake_index)
    else:
        ingest([nbib], fake_index)
        report = ingest([ris], fake_index)
    assert report.added == (1 if together else 0)
    (paper,) = fake_index.papers.values()
    assert paper.external_id == "PMID:26751583" and paper.doi == "10.1007/s11263-013-0620-5"
    assert ingest([nbib, ris], fake_index).added == 0  # its source may follow the first copy
    assert ingest([nbib, ris], fake_index).unchanged == 1
    assert len(fake_index.papers) == 1


def test_papers_by_other_authors_with_the_same_text_stay_apart(
    fake_index: Index, tmp_path: Path
) -> None:
    other = tmp_path / "other.ris"
    other.write_text(RIS.replace("Smeulders, Arnold", "Gevers, Theo"), encoding="utf-8")
    (tmp_path / "mendeley.ris").write_text(RIS, encoding="utf-8")
    assert ingest([tmp_path], fake_index).added == 2
