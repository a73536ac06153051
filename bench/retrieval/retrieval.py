"""Retrieval benchmark on SciFact (train): BM25, dense, the LlamaIndex starter, and ours.

Run from the repository root; it embeds the corpus once per passage method (today's windows,
then late chunking) and once for LlamaIndex, which takes about half an hour on two cores:

    .venv/bin/python bench/retrieval/retrieval.py [--data ../shared/data/scifact] [--split train]
        [--passages windows late] [--skip-llama-index] [--name retrieval]

Quality comes from `rag.evaluate` (ir-measures); latency is the warm, in-process time of one
query (embedding included), over all judged queries, after a warm-up. Results go to
bench/results/retrieval.json and bench/results/retrieval.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.pop("OPENAI_API_KEY", None)  # llama-index must never reach for OpenAI

from rag.evaluation import evaluate, open_eval_index, read_qrels, read_queries, score_run  # noqa: E402
from rag.index.lexical import BM25Index, paper_text  # noqa: E402
from rag.index.model_files import bundled_model_path  # noqa: E402
from rag.index.retrieve import search  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "scifact"
RESULTS = ROOT / "bench" / "results"
WARMUP = 20
LATENCY_K = 10  # papers per query when timing, as a user asks for


QUERY_THREADS = 1  # torch threads while timing queries; see latencies()


def latencies(run_one: Callable[[str], object], queries: Sequence[str]) -> dict[str, float]:
    """Return p50/p95 milliseconds of `run_one` over `queries`, after a warm-up.

    Every system is timed with torch on QUERY_THREADS intra-op threads. With two threads on a
    two-core machine that other processes also use, one short query stalls now and then for
    hundreds of milliseconds (OpenMP threads waiting for each other): p50 120-740 ms against
    11-34 ms on one thread, measured side by side. Index builds keep torch's default.
    """
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(QUERY_THREADS)
    try:
        for q in queries[:WARMUP]:
            run_one(q)
        times = []
        for q in queries:
            start = time.perf_counter()
            run_one(q)
            times.append((time.perf_counter() - start) * 1000)
    finally:
        torch.set_num_threads(threads)
    return {
        "latency_ms_p50": round(float(np.percentile(times, 50)), 1),
        "latency_ms_p95": round(float(np.percentile(times, 95)), 1),
    }


def metrics(values: dict[str, float]) -> dict[str, float]:
    names = {"nDCG@10": "nDCG@10", "recall@10": "R@10", "recall@100": "R@100", "MRR@10": "RR@10"}
    return {name: round(values[key], 4) for name, key in names.items()}


def read_run(path: Path) -> dict[str, list[tuple[str, float]]]:
    """Read a TREC run file back into ranked (docid, score) lists."""
    run: dict[str, list[tuple[str, float]]] = {}
    for line in path.read_text().splitlines():
        qid, _, docid, _, score, _ = line.split()
        run.setdefault(qid, []).append((docid, float(score)))
    return run


def reciprocal_rank_fusion(
    runs: Sequence[dict[str, list[tuple[str, float]]]], k: int = 60
) -> dict[str, list[tuple[str, float]]]:
    """Fuse rankings by reciprocal rank (Cormack et al., 2009): the floor ours must beat."""
    fused: dict[str, dict[str, float]] = {}
    for run in runs:
        for qid, ranking in run.items():
            scores = fused.setdefault(qid, {})
            for rank, (docid, _) in enumerate(ranking, start=1):
                scores[docid] = scores.get(docid, 0.0) + 1 / (k + rank)
    return {q: sorted(s.items(), key=lambda item: -item[1]) for q, s in fused.items()}


PASSAGES = {"windows": "passages", "late": "late-chunked passages"}


def ours(
    data: Path,
    split: str,
    folder: Path,
    qrels: dict[str, dict[str, int]],
    texts: list[str],
    passages: str = "windows",
) -> dict[str, dict[str, object]]:
    """Build our index once, then measure BM25 alone, dense alone, their RRF, and hybrid.

    `passages` is the passage method (`rag.settings.Settings.passage_vectors`): today's
    windows encoded one by one, or late chunking (one pass per abstract, windows pooled).
    """
    settings = Settings(index_dir=folder, passage_vectors=passages)
    start = time.perf_counter()
    index = open_eval_index(data, settings=settings, progress=True)
    build = time.perf_counter() - start
    papers = list(index.papers.values())
    start = time.perf_counter()
    BM25Index.build([p.id for p in papers], [paper_text(p) for p in papers])
    bm25_build = time.perf_counter() - start

    rows: dict[str, dict[str, object]] = {}
    kind = PASSAGES[passages]
    names = {
        "bm25": "BM25 alone (bm25s, title + abstract)",
        "dense": f"Dense alone (MiniLM, {kind})",
        "hybrid": "Ours (hybrid)" if passages == "windows" else f"Ours (hybrid, {kind})",
    }
    for retriever, name in names.items():
        run_file = folder / f"{retriever}.trec"
        result = evaluate(
            data, settings=settings, split=split, retriever=retriever, run_out=run_file
        )
        print(f"{name}: {result.to_dict()}", flush=True)
        row: dict[str, object] = {"system": name, "retriever": retriever, "passages": passages}
        row.update({k: round(v, 4) for k, v in result.to_dict().items() if "@" in k})
        row["build_s"] = round(bm25_build if retriever == "bm25" else build, 1)
        timed = latencies(lambda q, r=retriever: search(index, q, k=LATENCY_K, retriever=r), texts)
        row.update(timed)
        rows[retriever] = row
    fused = reciprocal_rank_fusion(
        [read_run(folder / "bm25.trec"), read_run(folder / "dense.trec")]
    )
    rows["rrf"] = {
        "system": f"RRF of BM25 and dense ({kind}, k=60), quality only",
        "retriever": "rrf",
        "passages": passages,
        **metrics(score_run(fused, qrels)),
        "build_s": round(build, 1),
        "latency_ms_p50": None,
        "latency_ms_p95": None,
    }
    print(f"{rows['rrf']}", flush=True)
    if passages != "windows":
        # An answer's search scores its first papers by their windows, encoded when first asked
        # for and then cached: time it as if every query touched only papers never seen before.
        result = evaluate(data, settings=settings, split=split, rescore=True)
        print(f"as answers search: {result.to_dict()}", flush=True)
        row = {"system": f"Ours (hybrid, {kind}) as answers search", "retriever": "hybrid"}
        row.update({"passages": passages, "build_s": round(build, 1)})
        row.update({k: round(v, 4) for k, v in result.to_dict().items() if "@" in k})
        cache = index._sentence_embedder
        index._sentence_embedder = index.embedder  # every query encodes its first windows
        row.update(latencies(lambda q: search(index, q, k=LATENCY_K, rescore=True), texts))
        index._sentence_embedder = cache
        rows["hybrid uncached"] = row
    return rows


class LoadSampler:
    """Sample the 1-minute load average while the benchmark runs (other processes skew it)."""

    def __init__(self, every: float = 15.0) -> None:
        import threading

        self.samples: list[float] = []
        self._stop = threading.Event()
        self._every = every
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append(os.getloadavg()[0])
            self._stop.wait(self._every)

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join()
        return {
            "mean": round(float(np.mean(self.samples)), 2),
            "max": round(float(np.max(self.samples)), 2),
        }


def llama_index_starter(
    data: Path, queries: dict[str, str], qrels: dict[str, dict[str, int]]
) -> list[dict[str, object]]:
    """The LlamaIndex starter: default chunking, in-memory vector store, cosine top-k."""
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core import Settings as LlamaSettings
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding

    LlamaSettings.llm = None
    LlamaSettings.embed_model = HuggingFaceEmbedding(model_name=str(bundled_model_path()))
    docs = []
    with (data / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            title, text = record.get("title") or "", record["text"]
            docs.append(Document(text=f"{title}\n\n{text}" if title else text, id_=record["_id"]))
    start = time.perf_counter()
    index = VectorStoreIndex.from_documents(docs)
    build = time.perf_counter() - start

    rows: list[dict[str, object]] = []
    for top_k in (2, 10):
        retriever = index.as_retriever(similarity_top_k=top_k)

        def ranked(query: str, retriever=retriever) -> list[tuple[str, float]]:
            seen: dict[str, float] = {}
            for node in retriever.retrieve(query):
                seen.setdefault(str(node.node.ref_doc_id), float(node.score or 0.0))
            return list(seen.items())

        run = {qid: ranked(queries[qid]) for qid in qrels}
        name = f"LlamaIndex starter (similarity_top_k={top_k})"
        row: dict[str, object] = {"system": name, "retriever": f"llama-index top {top_k}"}
        row.update(metrics(score_run(run, qrels)))
        row["build_s"] = round(build, 1)
        row.update(latencies(ranked, [queries[q] for q in qrels]))
        print(f"{name}: {row}", flush=True)
        rows.append(row)
    return rows


def markdown(report: dict[str, object]) -> str:
    rows = report["rows"]
    assert isinstance(rows, list)
    lines = [
        f"Retrieval on SciFact ({report['split']} split, {report['queries']} queries, "
        f"{report['corpus']} abstracts), {report['machine']}.",
        "",
        "| System | nDCG@10 | Recall@10 | Recall@100 | MRR@10 | Build (s) | p50 (ms) | p95 (ms) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['system']} | {r['nDCG@10']:.3f} | {r['recall@10']:.3f} | "
            f"{r['recall@100']:.3f} | {r['MRR@10']:.3f} | {r['build_s']} | "
            f"{r['latency_ms_p50'] or '—'} | {r['latency_ms_p95'] or '—'} |"
        )
    lines += [
        "",
        f"Latency: {report['latency']}. Load average during the run (other processes share "
        f"the machine): {report['load_average']}. LlamaIndex rows retrieve only "
        "`similarity_top_k` chunks, so their recall@100 is their recall at that depth.",
        "",
        f"Command: `{report['command']}`",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="BEIR SciFact folder")
    parser.add_argument("--split", default="train", help="qrels split (the test one is held out)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the results")
    parser.add_argument("--skip-llama-index", action="store_true", help="only our retrievers")
    parser.add_argument(
        "--passages",
        nargs="+",
        choices=sorted(PASSAGES),
        default=["windows", "late"],
        help="passage methods to build an index with (each is one full encode)",
    )
    parser.add_argument("--name", default="retrieval", help="file name of the results")
    args = parser.parse_args()
    if not (args.data / "corpus.jsonl").is_file():
        print(f"skipped: no BEIR corpus at {args.data} (see bench/README or ../shared/data).")
        return 0

    queries = read_queries(args.data / "queries.jsonl")
    qrels = read_qrels(args.data / "qrels" / f"{args.split}.tsv")
    qrels = {q: r for q, r in qrels.items() if q in queries}
    texts = [queries[q] for q in qrels]
    load = LoadSampler()
    measured = {}
    for method in args.passages:
        with tempfile.TemporaryDirectory(prefix="rag-bench-") as tmp:
            measured[method] = ours(args.data, args.split, Path(tmp), qrels, texts, method)
    starter = [] if args.skip_llama_index else llama_index_starter(args.data, queries, qrels)
    first = measured[args.passages[0]]
    rows = [first["bm25"]]
    rows += [m[r] for r in ("dense", "rrf") for m in measured.values()]
    rows += [*starter, *(m["hybrid"] for m in measured.values())]
    rows += [m["hybrid uncached"] for m in measured.values() if "hybrid uncached" in m]
    with (args.data / "corpus.jsonl").open(encoding="utf-8") as fh:
        corpus = sum(1 for line in fh if line.strip())
    report = {
        "dataset": "BEIR SciFact",
        "split": args.split,
        "queries": len(qrels),
        "corpus": corpus,
        "machine": f"{os.cpu_count()} CPU cores, {platform.machine()}, Python "
        f"{platform.python_version()}",
        "load_average": load.stop(),
        "latency": f"warm, in-process, k={LATENCY_K}, query embedding included, torch on "
        f"{QUERY_THREADS} thread(s) while timing; the 'as answers search' row encodes the first "
        "ten papers' windows every query, as if none had been asked about before",
        "command": " ".join([".venv/bin/python bench/retrieval/retrieval.py", *sys.argv[1:]]),
        "rows": rows,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / f"{args.name}.md").write_text(markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
