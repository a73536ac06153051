"""Retrieval quality on a BEIR-format folder: nDCG@10, recall@10/100 and MRR@10 via ir-measures.

A BEIR folder holds `corpus.jsonl` (`_id`, `title`, `text`), `queries.jsonl` (`_id`, `text`)
and `qrels/<split>.tsv` (`query-id`, `corpus-id`, `score`). The corpus is ingested into an index
of its own (ingest is idempotent, so a second run reuses it), every judged query is searched
with the same `search` users call, and the papers found are mapped back to the corpus `_id`.
"""

from __future__ import annotations

import csv
import json
import logging
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.errors import ConfigError, ParseError
from rag.index.embedding import Embedder
from rag.records import Hit
from rag.settings import Settings

if TYPE_CHECKING:
    from rag.index.paper_index import Index

log = logging.getLogger(__name__)

RUN_TAG = "rag"


@dataclass(frozen=True)
class EvalResult:
    """Mean metrics over the judged queries of one split."""

    ndcg_at_10: float
    recall_at_10: float
    recall_at_100: float
    mrr_at_10: float
    n_queries: int
    retriever: str = "hybrid"
    split: str = "test"

    def to_dict(self) -> dict[str, Any]:
        """Return the metrics under their usual names (`nDCG@10`, ...), plus the context."""
        return {
            "nDCG@10": self.ndcg_at_10,
            "recall@10": self.recall_at_10,
            "recall@100": self.recall_at_100,
            "MRR@10": self.mrr_at_10,
            "queries": self.n_queries,
            "retriever": self.retriever,
            "split": self.split,
        }


def _required(path: Path, what: str) -> Path:
    if not path.is_file():
        raise ConfigError(
            f"No {what} at {path}: a BEIR folder holds corpus.jsonl, queries.jsonl and "
            "qrels/<split>.tsv."
        )
    return path


def read_queries(path: Path) -> dict[str, str]:
    """Return `_id` -> text from a BEIR `queries.jsonl`.

    Raises:
        ParseError: a line is not a JSON object with `_id` and `text` (names file and line).
    """
    queries: dict[str, str] = {}
    with path.open(encoding="utf-8-sig") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                queries[str(record["_id"])] = str(record["text"])
            except (json.JSONDecodeError, KeyError, TypeError):
                raise ParseError(
                    str(path), "expected a JSON object with '_id' and 'text'", number
                ) from None
    return queries


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """Return query id -> {corpus id: relevance} from a BEIR qrels TSV (header optional).

    Raises:
        ParseError: a row is not `query-id<TAB>corpus-id<TAB>score` with an integer score.
    """
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8-sig", newline="") as fh:
        for number, row in enumerate(csv.reader(fh, delimiter="\t"), start=1):
            if not row or (number == 1 and row[0] == "query-id"):
                continue
            try:
                qid, docid, score = row
                qrels.setdefault(qid, {})[docid] = int(score)
            except ValueError:
                raise ParseError(
                    str(path), "expected 'query-id<TAB>corpus-id<TAB>score' (an integer)", number
                ) from None
    return qrels


def _corpus_ids(corpus: Path) -> dict[str, list[str]]:
    """Return paper id -> the corpus `_id`s with that content (identical records share a paper)."""
    from rag.ingest.parsers.jsonl import parse

    ids: dict[str, list[str]] = {}
    for paper in parse(corpus):
        if not isinstance(paper, ParseError):
            ids.setdefault(paper.id, []).append(paper.external_id or paper.id)
    return ids


def _ranking(hits: Iterable[Hit], ids: dict[str, list[str]]) -> Iterator[tuple[str, float]]:
    for hit in hits:
        for docid in ids.get(hit.paper.id, [hit.paper.external_id or hit.paper.id]):
            yield docid, hit.score


def write_run(run: dict[str, list[tuple[str, float]]], path: Path, tag: str = RUN_TAG) -> None:
    """Write rankings as a TREC run file: `qid Q0 docid rank score tag`, one line per result."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for qid, ranking in run.items():
            for rank, (docid, score) in enumerate(ranking, start=1):
                fh.write(f"{qid} Q0 {docid} {rank} {score:.6f} {tag}\n")


def score_run(
    run: dict[str, list[tuple[str, float]]], qrels: dict[str, dict[str, int]]
) -> dict[str, float]:
    """Return nDCG@10, R@10, R@100 and RR@10 (= MRR@10), each averaged over the judged queries.

    Args:
        run: query id -> ranked (corpus id, score) pairs, best first.
        qrels: query id -> {corpus id: relevance}; every query here counts, found or not.
    """
    import ir_measures
    from ir_measures import RR, R, nDCG

    # Scores from the rank, not the fused score: trec_eval breaks score ties by docid, and the
    # ranking a user sees is the one to measure.
    ranked: dict[str, dict[str, float]] = {}
    for qid, ranking in run.items():
        scores = ranked.setdefault(qid, {})
        for i, (docid, _) in enumerate(ranking):
            scores.setdefault(docid, float(len(ranking) - i))
    totals = dict.fromkeys(["nDCG@10", "R@10", "R@100", "RR@10"], 0.0)
    # pytrec_eval skips queries absent from the run; they count as 0 here, so sum and divide.
    for metric in ir_measures.iter_calc([nDCG @ 10, R @ 10, R @ 100, RR @ 10], qrels, ranked):
        totals[str(metric.measure)] += metric.value
    return {name: total / len(qrels) for name, total in totals.items()}


def open_eval_index(
    dataset_dir: Path,
    *,
    settings: Settings,
    embedder: Embedder | None = None,
    progress: bool = False,
) -> Index:
    """Return the index of a BEIR corpus, ingesting it first if needed.

    It lives in `settings.index_dir / "eval-<folder name>"` (on a Chroma server: in the
    collection `eval-<folder name>`), never in the user's own index, and holds exactly this
    corpus: ingest adds only what is new, and papers from any other file are removed.

    Args:
        dataset_dir: the BEIR folder.
        settings: the settings (index location, embedding model, Chroma server).
        embedder: an embedder to use instead of the configured model (tests).
        progress: show a progress bar while embedding.

    Raises:
        ConfigError: the folder has no corpus.jsonl.
    """
    from rag.index.paper_index import Index
    from rag.ingest.pipeline import ingest, remove

    corpus = _required(Path(dataset_dir) / "corpus.jsonl", "corpus.jsonl").resolve()
    name = "eval-" + (re.sub(r"[^A-Za-z0-9_-]+", "-", corpus.parent.name).strip("-_") or "data")
    own = {"index_dir": Path(settings.index_dir) / name, "collection": name}
    index = Index(settings.model_copy(update=own), embedder, create=True)
    report = ingest([corpus], index, progress=progress)
    if report.errors:
        log.warning("%d corpus records skipped, e.g. %s", len(report.errors), report.errors[0])
    foreign = [pid for pid, p in index.papers.items() if p.source_file != str(corpus)]
    if foreign:
        remove(index, foreign)
    return index


def evaluate(
    dataset_dir: Path,
    *,
    settings: Settings,
    split: str = "test",
    retriever: str = "hybrid",
    run_out: Path | None = None,
    k: int = 100,
    embedder: Embedder | None = None,
    progress: bool = False,
    rescore: bool = False,
) -> EvalResult:
    """Search every judged query of a BEIR folder and score the rankings.

    The corpus goes into its own index (see `open_eval_index`), built on the first run and
    reused afterwards.

    Args:
        dataset_dir: the BEIR folder.
        settings: the settings (index location, embedding model).
        split: which `qrels/<split>.tsv` to use.
        retriever: "hybrid", "dense" or "bm25".
        run_out: where to write the TREC run file, if anywhere.
        k: papers retrieved per query (the depth of the run; recall@100 needs 100).
        embedder: an embedder to use instead of the configured model (tests).
        progress: show a progress bar while the corpus is embedded (the first run only).
        rescore: search as answers do (`rag.index.retrieve.search`'s `rescore`).

    Returns:
        The mean nDCG@10, recall@10, recall@100 and MRR@10 over the judged queries.

    Raises:
        ConfigError: a file of the BEIR folder is missing, or no judged query is in it.
        ParseError: a line of queries.jsonl or of the qrels is malformed.
    """
    from rag.index.retrieve import search

    dataset_dir = Path(dataset_dir)
    _required(dataset_dir / "corpus.jsonl", "corpus.jsonl")
    queries = read_queries(_required(dataset_dir / "queries.jsonl", "queries.jsonl"))
    qrels_file = dataset_dir / "qrels" / f"{split}.tsv"
    if not qrels_file.is_file():
        found = sorted(p.stem for p in (dataset_dir / "qrels").glob("*.tsv"))
        raise ConfigError(
            f"No judgements for split {split!r} at {qrels_file}: "
            + (f"use --split with one of {', '.join(found)}." if found else "add qrels/.")
        )
    qrels = read_qrels(qrels_file)
    judged = [qid for qid in queries if qid in qrels]
    if not judged:
        raise ConfigError(f"No query of {dataset_dir / 'queries.jsonl'} is judged in {qrels_file}.")

    index = open_eval_index(dataset_dir, settings=settings, embedder=embedder, progress=progress)
    ids = _corpus_ids(dataset_dir / "corpus.jsonl")

    run: dict[str, list[tuple[str, float]]] = {}
    for qid in judged:
        hits = search(index, queries[qid], k=k, retriever=retriever, rescore=rescore)
        run[qid] = list(_ranking(hits, ids))
    if run_out is not None:
        write_run(run, Path(run_out))

    means = score_run(run, {q: qrels[q] for q in judged})
    return EvalResult(
        ndcg_at_10=means["nDCG@10"],
        recall_at_10=means["R@10"],
        recall_at_100=means["R@100"],
        mrr_at_10=means["RR@10"],
        n_queries=len(judged),
        retriever=retriever,
        split=split,
    )
