"""Opening an index: the paper records read back from Chroma against the local copy.

Run from the repository root, on indexes `bench/ingest/scale.py` built (10k and 100k by default):

    .venv/bin/python bench/ingest/open_index.py [--index DIR --collection NAME]...

Side by side, on the same index in the same run, each in a new process (median of 3):
  1. chroma: every record read back from Chroma (what each process did before the copy);
  2. copy: the same records from the local copy (rag/index/catalog.py), ids checked against Chroma;
  3. first open after a write: no valid copy, so Chroma is read and a new copy saved;
  4. `rag search` cold, as a new process, with and without a valid copy.
Results go to bench/results/open_index.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

RESULTS = ROOT / "bench" / "results"
WORK = ROOT / "bench" / "work"
REPEAT = 3
QUERY = "Vitamin D supplementation reduces the risk of fractures in older adults."


def measure(what: str, index_dir: Path, collection: str) -> float:
    """Seconds taken by `what`, in this (new) process."""
    from rag.index.paper_index import Index
    from rag.settings import Settings

    index = Index(Settings(index_dir=index_dir, collection=collection))
    start = time.perf_counter()
    # "copy" and "no_copy" take the real path, which saves a copy when it finds none valid
    papers = index.papers if what != "chroma" else index.store.records()
    seconds = time.perf_counter() - start
    assert papers, f"no papers in {index_dir}"
    return seconds


def in_new_process(what: str, index_dir: Path, collection: str) -> float:
    if what == "no_copy":
        (index_dir / f"catalog-{collection}.jsonl").unlink(missing_ok=True)
    command = [sys.executable, __file__, "--measure", what, "--index", str(index_dir)]
    done = subprocess.run(
        [*command, "--collection", collection], capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip().splitlines()[-1])


def cold_search(index_dir: Path, collection: str, copy: bool) -> float:
    if not copy:
        (index_dir / f"catalog-{collection}.jsonl").unlink(missing_ok=True)
    env = {**os.environ, "RAG_INDEX_DIR": str(index_dir), "RAG_COLLECTION": collection}
    env.pop("RAG_CHROMA_URL", None)
    start = time.perf_counter()
    rag = Path(sys.executable).parent / "rag"
    subprocess.run(
        [str(rag), "search", QUERY, "-k", "10"], env=env, capture_output=True, check=True
    )
    return time.perf_counter() - start


def bench(index_dir: Path, collection: str) -> dict[str, Any]:
    median = statistics.median
    row: dict[str, Any] = {"index": str(index_dir), "collection": collection}
    in_new_process("copy", index_dir, collection)  # leaves a valid copy, warms the page cache
    for what in ("chroma", "copy", "no_copy"):
        row[f"{what}_s"] = round(
            median(in_new_process(what, index_dir, collection) for _ in range(REPEAT)), 2
        )
    for copy in (False, True):
        key = "cold_search_with_copy_s" if copy else "cold_search_without_copy_s"
        row[key] = round(median(cold_search(index_dir, collection, copy) for _ in range(REPEAT)), 2)
    from rag.index.paper_index import Index
    from rag.settings import Settings

    index = Index(Settings(index_dir=index_dir, collection=collection))
    row["papers"] = index.store.count()
    row["copy_mb"] = round(index.catalog_path.stat().st_size / 1e6, 1)
    return row


def render(rows: list[dict[str, Any]]) -> str:
    head = (
        "| Papers | Records from Chroma (s) | From the copy (s) | Ratio | First open after a "
        "write (s) | Copy (MB) | `rag search` cold, no copy / copy (s) |\n" + "|---" * 7 + "|\n"
    )
    lines = [
        f"| {r['papers']:,} | {r['chroma_s']} | {r['copy_s']} | "
        f"{float(r['chroma_s']) / max(float(r['copy_s']), 0.01):.1f}x | {r['no_copy_s']} | "
        f"{r['copy_mb']} | {r['cold_search_without_copy_s']} / {r['cold_search_with_copy_s']} |"
        for r in sorted(rows, key=lambda r: int(r["papers"]))
    ]
    return (
        f"Opening an index, {os.cpu_count()} CPU cores, Python {platform.python_version()}: "
        f"each figure the median of {REPEAT} new processes on the same index in one run.\n\n"
        + head
        + "\n".join(lines)
        + "\n\nCommand: `.venv/bin/python bench/ingest/open_index.py`\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, action="append")
    parser.add_argument("--collection", action="append")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(measure(args.measure, args.index[0], args.collection[0]))
        return
    indexes = args.index or [WORK / f"embedded-{n}" / "index" for n in (10_000, 100_000)]
    collections = args.collection or ["scale"] * len(indexes)
    present = [(i, c) for i, c in zip(indexes, collections, strict=True) if i.exists()]
    if not present:
        print("skipped: no index; build one with bench/ingest/scale.py first", file=sys.stderr)
        return
    rows = [bench(i, c) for i, c in present]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "open_index.json").write_text(json.dumps(rows, indent=2) + "\n")
    (RESULTS / "open_index.md").write_text(render(rows))
    print(render(rows))


if __name__ == "__main__":
    main()
