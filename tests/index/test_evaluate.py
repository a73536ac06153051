"""`rag.evaluate`: metrics on a tiny BEIR folder checked against values computed by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from rag.errors import ConfigError, ParseError
from rag.evaluation import EvalResult, evaluate
from rag.settings import Settings
from tests.fake_embedding import FakeEmbedding

CORPUS = [
    {"_id": "d1", "title": "", "text": "Zorblat zorblat zorblat drives membrane transport."},
    {"_id": "d2", "title": "", "text": "Zorblat changes membrane kinetics in cells."},
    {"_id": "d3", "title": "", "text": "Quintor signalling controls budding in yeast."},
    {"_id": "d4", "title": "", "text": "Soil bacteria fix nitrogen near plant roots."},
]
QUERIES = [
    {"_id": "q1", "text": "zorblat"},
    {"_id": "q2", "text": "quintor"},
    {"_id": "q3", "text": "a query nobody judged"},
]
# q1: BM25 ranks d1 (three mentions) above d2, and only d2 is relevant: rank 2.
# q2: d3 is relevant at rank 1; d4 is relevant too but shares no word with the query.
QRELS = "query-id\tcorpus-id\tscore\nq1\td2\t1\nq2\td3\t1\nq2\td4\t1\n"


def make_beir(folder: Path, qrels: str = QRELS, split: str = "test") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(r) for r in CORPUS) + "\n")
    (folder / "queries.jsonl").write_text("\n".join(json.dumps(r) for r in QUERIES) + "\n")
    (folder / "qrels").mkdir(exist_ok=True)
    (folder / "qrels" / f"{split}.tsv").write_text(qrels)
    return folder


@pytest.fixture
def beir(tmp_path: Path) -> Path:
    return make_beir(tmp_path / "tiny")


def test_metrics_match_values_computed_by_hand(beir: Path, settings: Settings) -> None:
    result = evaluate(beir, settings=settings, retriever="bm25", embedder=FakeEmbedding())

    q1_ndcg = (1 / math.log2(3)) / 1  # one relevant paper, found at rank 2
    q2_ndcg = 1 / (1 + 1 / math.log2(3))  # two relevant, found only the first, at rank 1
    assert result.n_queries == 2  # q3 has no judgement
    assert result.ndcg_at_10 == pytest.approx((q1_ndcg + q2_ndcg) / 2, abs=1e-6)
    assert result.mrr_at_10 == pytest.approx((1 / 2 + 1 / 1) / 2)
    assert result.recall_at_10 == pytest.approx((1 + 1 / 2) / 2)
    assert result.recall_at_100 == pytest.approx((1 + 1 / 2) / 2)
    assert result.to_dict()["nDCG@10"] == result.ndcg_at_10


def test_run_file_is_trec_format_with_corpus_ids(beir: Path, settings: Settings) -> None:
    run = beir / "run.trec"
    evaluate(beir, settings=settings, retriever="bm25", run_out=run, embedder=FakeEmbedding())

    rows = [line.split() for line in run.read_text().splitlines()]
    assert all(len(r) == 6 and r[1] == "Q0" and r[5] == "rag" for r in rows)
    by_query: dict[str, list[list[str]]] = {}
    for r in rows:
        by_query.setdefault(r[0], []).append(r)
    assert set(by_query) == {"q1", "q2"}
    assert [r[2] for r in by_query["q1"]] == ["d1", "d2"]
    assert [r[2] for r in by_query["q2"]] == ["d3"]
    for ranking in by_query.values():
        assert [int(r[3]) for r in ranking] == list(range(1, len(ranking) + 1))
        scores = [float(r[4]) for r in ranking]
        assert scores == sorted(scores, reverse=True)


def test_hybrid_eval_runs_and_reuses_its_index(beir: Path, settings: Settings) -> None:
    embedder = FakeEmbedding()
    first = evaluate(beir, settings=settings, embedder=embedder)
    embedded = embedder.texts_embedded
    second = evaluate(beir, settings=settings, embedder=embedder)

    assert (settings.index_dir / "eval-tiny" / "chroma.sqlite3").exists()
    assert isinstance(first, EvalResult) and first == second
    # The second run embedded only the two judged queries: the corpus was not ingested again.
    assert embedder.texts_embedded - embedded == 2
    # Dense search ranks all four papers, so d4 (no word in common with q2) is found by 100.
    assert first.recall_at_100 == pytest.approx(1.0)


def test_missing_file_is_named(tmp_path: Path, settings: Settings) -> None:
    folder = make_beir(tmp_path / "tiny")
    (folder / "queries.jsonl").unlink()
    with pytest.raises(ConfigError, match=r"queries\.jsonl"):
        evaluate(folder, settings=settings, embedder=FakeEmbedding())


def test_missing_split_lists_the_ones_there_are(tmp_path: Path, settings: Settings) -> None:
    folder = make_beir(tmp_path / "tiny", split="train")
    with pytest.raises(ConfigError, match=r"'test'.*train"):
        evaluate(folder, settings=settings, embedder=FakeEmbedding())


def test_bad_qrels_line_names_file_and_line(tmp_path: Path, settings: Settings) -> None:
    folder = make_beir(tmp_path / "tiny", qrels="query-id\tcorpus-id\tscore\nq1\td2\tyes\n")
    with pytest.raises(ParseError, match=r"test\.tsv:2"):
        evaluate(folder, settings=settings, embedder=FakeEmbedding())


def test_eval_never_touches_the_users_index(
    beir: Path, settings: Settings, seeds_copy: Path
) -> None:
    from rag.index.paper_index import Index
    from rag.ingest.pipeline import ingest

    embedder = FakeEmbedding()
    ingest([seeds_copy], Index(settings, embedder, create=True))
    evaluate(beir, settings=settings, retriever="bm25", embedder=embedder)

    assert len(Index(settings, embedder).papers) == 40
    eval_settings = settings.model_copy(
        update={"index_dir": settings.index_dir / "eval-tiny", "collection": "eval-tiny"}
    )
    assert {p.external_id for p in Index(eval_settings, embedder).papers.values()} == {
        "d1", "d2", "d3", "d4"
    }  # fmt: skip
