"""A publisher's copyright line or index terms at an abstract's end are not part of it.

An answer quoted "... not identified in previous literature. © 2015 Elsevier Ltd [1]." and
another "Zhang: Index Terms | Data mining, knowledge discovery, ..." as findings.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.index.paper_index import Index
from rag.ingest.boilerplate import without_notices
from rag.ingest.pipeline import ingest

TEXT = "We find new motives for social media use not identified in previous literature."


@pytest.mark.parametrize(
    "notice",
    [
        " © 2015 Elsevier Ltd. All rights reserved.",
        " Copyright © 2019 The Authors. Published by Wiley Periodicals, Inc.",
        "©2016 AACR.This article is highlighted in the In This Issue feature, p. 561.",
        " (c) 2012 Elsevier B.V.",
        " Index Terms | Data mining, knowledge discovery, association rules",
        " Index Terms—social media, motives.",
        " Keywords: social media; motives; survey",
    ],
)
def test_a_notice_at_the_end_is_cut(notice: str) -> None:
    assert without_notices(TEXT + notice) == TEXT


@pytest.mark.parametrize(
    "text",
    [
        "We study (c) 2015 filings. They are late.",  # not where a sentence opens
        "Copyright law shapes datasets. We find that copyright matters.",  # the topic itself
        "We list keywords: a and b. Then we show that they predict use, in six studies.",
        "© 2015 Elsevier Ltd. All rights reserved.",  # nothing would be left
    ],
)
def test_the_abstracts_own_text_stays(text: str) -> None:
    assert without_notices(text) == text


def test_an_imported_abstract_loses_its_copyright_line(fake_index: Index, tmp_path: Path) -> None:
    ris = tmp_path / "scopus.ris"
    ris.write_text(
        "TY  - JOUR\nAU  - Tanaka, Aiko\nTI  - Motives for social media use\nPY  - 2015\n"
        f"AB  - {TEXT} © 2015 Elsevier Ltd. All rights reserved.\nER  -\n",
        encoding="utf-8",
    )
    ingest([ris], fake_index)
    (paper,) = fake_index.papers.values()
    assert paper.abstract == TEXT
