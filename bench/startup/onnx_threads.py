"""How many ONNX Runtime threads the query encoder should use: idle machine and beside a busy one.

    .venv/bin/python bench/startup/onnx_threads.py

Embeds 80 SciFact abstract sentences (what `rag cite` embeds for 10 candidate papers) and one
short query, with 1 and 2 intra-op threads, spinning on and off, first on the machine as it
is, then beside one busy process. Writes bench/results/onnx_threads.md.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import onnxruntime  # noqa: E402

from rag.index import onnx_embedding  # noqa: E402
from rag.index.onnx_export import ensure_exported  # noqa: E402
from rag.text import split_sentences  # noqa: E402

CORPUS = ROOT.parent / "shared" / "data" / "scifact" / "corpus.jsonl"
SETTINGS = [(1, "1"), (2, "1"), (2, "0")]


def _busy() -> None:
    while True:
        pass


def measure(folder: Path, sentences: list[str]) -> list[tuple[int, str, float, float]]:
    rows = []
    for threads, spin in SETTINGS:
        embedder = onnx_embedding.OnnxEmbedder(folder)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", spin)
        embedder._session = onnxruntime.InferenceSession(
            str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        embedder.embed(["warm-up"])
        batch = []
        for _ in range(3):
            start = time.perf_counter()
            embedder.embed(sentences)
            batch.append(time.perf_counter() - start)
        start = time.perf_counter()
        for _ in range(20):
            embedder.embed(["a short question about graphs"])
        rows.append((threads, spin, min(batch), (time.perf_counter() - start) / 20 * 1000))
    return rows


def main() -> None:
    if not CORPUS.exists():
        sys.exit(f"{CORPUS} is absent: nothing to embed.")
    rows = [json.loads(line) for line in CORPUS.open()][:10]
    sentences = [s for r in rows for s in split_sentences(r["text"])][:80]
    folder = Path(ensure_exported())
    lines = [
        "# ONNX Runtime threads for the query encoder",
        "",
        f"Command: `.venv/bin/python bench/startup/onnx_threads.py`; {os.cpu_count()} cores, "
        f"{len(sentences)} sentences, best of 3; query: mean of 20.",
        "",
        "| machine | threads | spinning | 80 sentences (s) | one query (ms) |",
        "|---|---|---|---|---|",
    ]
    for label in ("as it is", "beside one busy process"):
        hog = None
        if label != "as it is":
            hog = multiprocessing.Process(target=_busy, daemon=True)
            hog.start()
            time.sleep(1)
        load = os.getloadavg()[0]
        for threads, spin, batch, query in measure(folder, sentences):
            lines.append(
                f"| {label} (load {load:.1f}) | {threads} | {'on' if spin == '1' else 'off'} "
                f"| {batch:.2f} | {query:.1f} |"
            )
        if hog:
            hog.terminate()
    out = ROOT / "bench" / "results" / "onnx_threads.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
