"""What the llama-index faces cost over the plain API, on the seeds with the bundled MiniLM.

Run from the repository root:

    .venv/bin/python bench/startup/llamaindex_overhead.py [--index DIR] [--repeat 5]

Side by side in one process, over the 40 seed questions (bench/data/seed_questions.jsonl),
warm, k=5, each query `--repeat` times:
  1. `rag.search` (hybrid);
  2. `PaperRetriever.retrieve` (the same search plus one llama-index node per paper);
  3. `rag.ask` extractive against `PaperQueryEngine(backend="extractive").query`;
plus the time to import `rag.llamaindex` (llama-index itself) in a new process.
Without --index the seeds are ingested into a temporary folder first.
Results go to bench/results/llamaindex_overhead.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.pop("OPENAI_API_KEY", None)  # nothing here may call OpenAI

RESULTS = ROOT / "bench" / "results"
QUESTIONS = ROOT / "bench" / "data" / "seed_questions.jsonl"


def timed(call: Callable[[str], Any], queries: list[str], repeat: int) -> dict[str, float]:
    """Median and 95th percentile in ms of `call` over the queries (after one warm-up each)."""
    for q in queries:
        call(q)
    samples = []
    for _ in range(repeat):
        for q in queries:
            start = time.perf_counter()
            call(q)
            samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return {
        "p50_ms": round(statistics.median(samples), 2),
        "p95_ms": round(samples[int(0.95 * (len(samples) - 1))], 2),
        "n": len(samples),
    }


def import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import rag.llamaindex; "
    code += "print(time.perf_counter() - t)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return round(float(done.stdout.strip().splitlines()[-1]), 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, help="An index of the seeds (default: build one).")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import rag
    from rag.index.paper_index import Index
    from rag.llamaindex import PaperQueryEngine, PaperRetriever
    from rag.settings import Settings

    queries = [json.loads(line)["question"] for line in QUESTIONS.read_text().splitlines()]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.index or Path(tmp) / "index"
        settings = Settings(index_dir=folder, backend="extractive")
        index = Index(settings, create=args.index is None)
        if args.index is None:
            rag.ingest([ROOT / "seeds"], index=index)
        retriever = PaperRetriever(index, k=5)
        engine = PaperQueryEngine(index, backend=None)
        rows = {
            "rag.search": timed(lambda q: rag.search(q, index=index, k=5), queries, args.repeat),
            "PaperRetriever.retrieve": timed(retriever.retrieve, queries, args.repeat),
            "rag.ask (extractive)": timed(
                lambda q: rag.ask(q, index=index, backend=None), queries, args.repeat
            ),
            "PaperQueryEngine.query (extractive)": timed(engine.query, queries, args.repeat),
        }
        same = all(
            [n.node.node_id for n in retriever.retrieve(q)]
            == [h.paper.id for h in rag.search(q, index=index, k=5)]
            for q in queries
        )
    result = {
        "rows": rows,
        "same_ranking": same,
        "import_rag_llamaindex_s": import_seconds(),
        "queries": len(queries),
        "repeat": args.repeat,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}",
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "llamaindex_overhead.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "| Call | p50 (ms) | p95 (ms) | calls |",
        "|---|---|---|---|",
        *(f"| {k} | {v['p50_ms']} | {v['p95_ms']} | {v['n']} |" for k, v in rows.items()),
        "",
        f"Same papers in the same order as `rag.search` for all {len(queries)} questions: {same}.",
        f"`import rag.llamaindex` in a new process: {result['import_rag_llamaindex_s']} s.",
        f"Machine: {result['machine']}.",
    ]
    (RESULTS / "llamaindex_overhead.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
