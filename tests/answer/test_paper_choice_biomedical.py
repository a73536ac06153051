"""Which papers an answer uses, over biomedical abstracts (SciFact's), with the real MiniLM.

A yes/no question a study's authors set out to answer is addressed by that study; the other
abstracts on its subject (the drug, the disease) are not about it. The judgement, fitted on the
seeds' topical questions, still cites some of them (2.5 papers per SciFact claim, at precision
0.30: bench/results/paper_choice_domains.md, where a candidate fitted on both fields and why it
is not shipped are measured). Skipped where ../shared/data/scifact is absent.
"""

from __future__ import annotations

import re

import pytest

from rag import api
from rag.index.paper_index import Index
from rag.settings import Settings
from tests.conftest import SCIFACT

# Abstracts on four subjects, about 130 in all: each question below is one study's aim, reworded,
# and the rest of its subject's abstracts are its neighbours.
SUBJECTS = re.compile(r"type 2 diabetes|BRCA|coronary syndrome|tamoxifen")

NEIGHBOUR_CITED = pytest.mark.xfail(
    strict=True,
    reason="the neighbour passes the per-paper judgement fitted on the seeds' topical questions; "
    "trees fitted on both fields drop it but lose set and named follow-ups "
    "(bench/results/paper_choice_domains.md)",
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SCIFACT.is_dir(), reason=f"{SCIFACT} is absent"),
]


@pytest.fixture(scope="module")
def biomedical_index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    from rag.ingest.pipeline import ingest

    folder = tmp_path_factory.mktemp("biomedical")
    lines = (SCIFACT / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    corpus = folder / "corpus.jsonl"
    corpus.write_text("\n".join(x for x in lines if SUBJECTS.search(x)) + "\n", encoding="utf-8")
    index = Index(Settings(index_dir=folder / "index", backend="extractive"), create=True)
    ingest([corpus], index)
    return index


def cited(index: Index, question: str) -> list[str]:
    answer = api.ask(question, index=index, backend=None, history=[])
    return [str(c.hit.paper.external_id or c.hit.paper.id) for c in answer.citations]


@pytest.mark.parametrize(
    ("question", "study", "neighbour"),
    [
        pytest.param(
            "Are individual fruits associated differently with the risk of type 2 diabetes?",
            "1974176",  # fruit consumption and the risk of type 2 diabetes
            "9822397",  # sugar-sweetened beverages and type 2 diabetes
            marks=NEIGHBOUR_CITED,
        ),
        (
            "Do the clinical and pathologic features of tumours differ between patients with and "
            "without BRCA mutations?",
            "3285322",  # characteristics of BRCA-positive and BRCA-negative breast cancer
            "9394119",  # where in BRCA1 and BRCA2 a mutation lies, and the risk of cancer
        ),
        pytest.param(
            "Is there a sex difference in the severity, management and outcomes of acute "
            "coronary syndromes?",
            "29253460",  # sex-related differences among patients with acute coronary syndromes
            "12561083",  # angina with normal coronary arteries: sex differences in outcomes
            marks=NEIGHBOUR_CITED,
        ),
    ],
)
def test_a_studys_own_question_cites_it_and_not_its_subjects_neighbour(
    biomedical_index: Index, question: str, study: str, neighbour: str
) -> None:
    found = cited(biomedical_index, question)
    assert study in found
    assert neighbour not in found
