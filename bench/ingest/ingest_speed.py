"""Ingest throughput against bare `SentenceTransformer.encode`, and what a re-ingest costs.

Run from the repository root (SciFact's 5,183 abstracts take several minutes on two cores):

    .venv/bin/python bench/ingest/ingest_speed.py [--data ../shared/data/scifact] [--limit N]
                                           [--chroma-url http://127.0.0.1:8000]

Side by side in one run, on the same texts with the same batch size and the same loaded model:
  1. bare: `SentenceTransformer.encode` of every passage `rag ingest` would embed, in one call;
  2. ingest: `rag.ingest` of the corpus file into a new index (parse, hash, chunk, embed,
     Chroma writes, BM25 build), in-process;
  3. re-ingest: the same file again, in-process and as a new `rag ingest` process.
Results go to bench/results/ingest_speed.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from rag.index.embedding import load_embedder  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.ingest.chunking import chunk_paper  # noqa: E402
from rag.ingest.parsers import parse_path  # noqa: E402
from rag.ingest.pipeline import ingest  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "scifact"
RESULTS = ROOT / "bench" / "results"


def corpus_file(data: Path, limit: int | None, folder: Path) -> Path:
    """Copy the first `limit` lines of the BEIR corpus to `folder`; return the copy."""
    out = folder / "corpus.jsonl"
    with (data / "corpus.jsonl").open(encoding="utf-8") as src, out.open("w") as dst:
        for number, line in enumerate(src):
            if limit is not None and number >= limit:
                break
            dst.write(line)
    return out


def timed(action) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=None, help="first N abstracts")
    parser.add_argument("--chroma-url", default=None, help="a running Chroma server")
    parser.add_argument("--out", default="ingest_speed")
    args = parser.parse_args()
    if not (args.data / "corpus.jsonl").exists():
        print(f"skipped: no BEIR corpus at {args.data}", file=sys.stderr)
        return

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source = corpus_file(args.data, args.limit, folder)
        papers = parse_path(source).papers
        texts = [text for paper in papers for text in chunk_paper(paper)]
        embedder = load_embedder()
        embedder.embed(texts[:64])  # warm-up: first-call allocations are not throughput
        loads = [os.getloadavg()[0]]

        bare_s, _ = timed(
            lambda: embedder._model.encode(
                texts,
                batch_size=embedder.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        )
        loads.append(os.getloadavg()[0])
        settings = Settings(
            index_dir=folder / "index", chroma_url=args.chroma_url, collection="speed"
        )
        index = Index(settings, embedder, create=True)
        ingest_s, report = timed(lambda: ingest([source], index))
        loads.append(os.getloadavg()[0])
        again_s, again = timed(lambda: ingest([source], Index(settings, embedder)))
        env = {**os.environ, "RAG_INDEX_DIR": str(folder / "index"), "RAG_COLLECTION": "speed"}
        if args.chroma_url:
            env["RAG_CHROMA_URL"] = args.chroma_url
        cli_s, proc = timed(
            lambda: subprocess.run(
                [str(Path(sys.executable).parent / "rag"), "ingest", str(source)],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
        )
        loads.append(os.getloadavg()[0])

    result = {
        "abstracts": len(papers),
        "passages": len(texts),
        "batch_size": embedder.batch_size,
        "mode": "server" if args.chroma_url else "embedded",
        "bare_encode_s": round(bare_s, 2),
        "ingest_s": round(ingest_s, 2),
        "ingest_added": report.added,  # type: ignore[attr-defined]
        "ratio_to_bare": round(bare_s / ingest_s, 3),
        "abstracts_per_s": round(len(papers) / ingest_s, 1),
        "passages_per_s_bare": round(len(texts) / bare_s, 1),
        "reingest_s": round(again_s, 2),
        "reingest_added": again.added,  # type: ignore[attr-defined]
        "reingest_share": round(again_s / ingest_s, 4),
        "reingest_cli_s": round(cli_s, 2),
        "reingest_cli_exit": proc.returncode,  # type: ignore[attr-defined]
        "reingest_cli_share": round(cli_s / ingest_s, 4),
        "load_average_1min": loads,
        "machine": f"{os.cpu_count()} CPU cores, {platform.machine()}, "
        f"Python {platform.python_version()}",
        "command": " ".join(["bench/ingest/ingest_speed.py", *sys.argv[1:]]),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / f"{args.out}.md").write_text(render(result))
    print(render(result))


def render(r: dict) -> str:  # type: ignore[type-arg]
    return (
        f"Ingest speed, {r['abstracts']} SciFact abstracts ({r['passages']} passages), "
        f"{r['mode']} Chroma, batch size {r['batch_size']}, {r['machine']}.\n\n"
        "| Step | Time (s) | Rate | Share |\n|---|---|---|---|\n"
        f"| Bare `SentenceTransformer.encode` of the same passages | {r['bare_encode_s']} | "
        f"{r['passages_per_s_bare']} passages/s | — |\n"
        f"| `rag.ingest` (parse, chunk, embed, write, BM25) | {r['ingest_s']} | "
        f"{r['abstracts_per_s']} abstracts/s | {r['ratio_to_bare']:.1%} of bare encode "
        "throughput |\n"
        f"| Re-ingest, same process ({r['reingest_added']} added) | {r['reingest_s']} | — | "
        f"{r['reingest_share']:.1%} of the first ingest |\n"
        f"| Re-ingest, new `rag ingest` process (exit {r['reingest_cli_exit']}) | "
        f"{r['reingest_cli_s']} | — | {r['reingest_cli_share']:.1%} of the first ingest |\n\n"
        f"1-minute load average at each step: {r['load_average_1min']}.\n\n"
        f"Command: `.venv/bin/python {r['command']}`\n"
    )


if __name__ == "__main__":
    main()
