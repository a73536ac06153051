"""Scale benchmark: generated corpora of 1k, 10k and 100k abstracts, embedded and server mode.

Run from the repository root (the 100k ingest takes hours on two cores; it resumes when run
again, and the times of all its runs are added up):

    .venv/bin/python bench/ingest/scale.py [--sizes 1000,10000,100000] [--modes embedded,server]
                                    [--work bench/work] [--serve-embedded]

`--serve-embedded` skips the server-mode ingest of a size and has `chroma run` serve a copy of
the embedded index of that size instead (ingest is encoder-bound in both modes, and at 100k it
takes hours); the row then has no ingest figures.

Corpora: each abstract recombines SciFact sentences (`bench/ingest/scale_corpus.py`). For every size
and mode: `rag ingest` as a new process (its wall time, abstracts/s and peak RSS; in server
mode also the `chroma run` server's peak RSS), throughput as a share of bare
`SentenceTransformer.encode` on a sample of the same passages measured just before (a rerun
over a finished ingest keeps that figure and measures the rest again), the index
size on disk, `rag search` cold start as a new process, and warm in-process search latency
p50/p95 (hybrid and dense) over SciFact training queries. Results are merged into
bench/results/scale.json and rendered to bench/results/scale.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from bench.ingest.scale_corpus import DATA, generate  # noqa: E402
from rag.index.embedding import load_embedder  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.retrieve import search  # noqa: E402
from rag.ingest.chunking import chunk_paper  # noqa: E402
from rag.ingest.parsers import parse_path  # noqa: E402
from rag.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"
BIN = Path(sys.executable).parent
BARE_SAMPLE = 400  # abstracts whose passages time bare encode before each ingest
QUERIES = 200
COLLECTION = "scale"
WARMUP = 20


def passages(corpus: Path, limit: int | None = None) -> list[str]:
    papers = parse_path(corpus).papers[:limit]
    return [text for paper in papers for text in chunk_paper(paper)]


def bare_rate(texts: list[str]) -> float:
    """Passages per second of bare `SentenceTransformer.encode` on `texts`."""
    embedder = load_embedder()
    embedder.embed(texts[:32])
    start = time.perf_counter()
    embedder._model.encode(
        texts, batch_size=embedder.batch_size, normalize_embeddings=True, show_progress_bar=False
    )
    return len(texts) / (time.perf_counter() - start)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def chroma_server(path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Run `chroma run` on a free loopback port over `path`; yield its URL and process."""
    import httpx

    port = free_port()
    command = [str(BIN / "chroma"), "run", "--path", str(path), "--host", "127.0.0.1"]
    proc = subprocess.Popen(
        [*command, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                break
        if time.monotonic() > deadline or proc.poll() is not None:
            raise RuntimeError(f"chroma run did not come up on {url}")
        time.sleep(0.3)
    try:
        yield url, proc
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def peak_rss_mb(pid: int) -> float | None:
    """The peak resident set of a running process (VmHWM), in MB."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return None


def run_ingest(corpus: Path, env: dict[str, str], state: Path, runs: list[dict[str, Any]]) -> None:
    """Run `rag ingest corpus` as a new process, appending its record to `runs`.

    The record (wall time, exit, peak RSS) is saved to `state` every few seconds while the
    process runs, so a run killed with this script still counts up to its last save.
    """
    log = state.with_name(f"ingest-{len(runs) + 1}.log")
    run: dict[str, Any] = {"seconds": 0.0, "exit": "running", "load_before": os.getloadavg()[0]}
    runs.append(run)
    samples: list[float] = []
    start = time.perf_counter()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(BIN / "rag"), "ingest", str(corpus)], env=env, stdout=out, stderr=out
        )
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            run["seconds"] = round(time.perf_counter() - start, 1)
            if pid:
                proc.returncode = os.waitstatus_to_exitcode(status)
                run.update(exit=proc.returncode, peak_rss_mb=round(usage.ru_maxrss / 1024, 1))
                break
            run["peak_rss_mb"] = peak_rss_mb(proc.pid)
            samples.append(os.getloadavg()[0])
            run["load_mean"] = round(sum(samples) / len(samples), 2)
            state.write_text(json.dumps(runs, indent=2))
            time.sleep(5)
    run["load_after"] = os.getloadavg()[0]
    run["output_tail"] = log.read_text(errors="replace").strip().splitlines()[-3:]
    state.write_text(json.dumps(runs, indent=2))


def cold_search(env: dict[str, str], query: str, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            [str(BIN / "rag"), "search", query, "-k", "10"],
            env=env,
            capture_output=True,
            check=True,
        )
        times.append(time.perf_counter() - start)
    return round(float(np.median(times)), 2)


def warm_latency(settings: Settings, queries: list[str]) -> dict[str, Any]:
    """Open the index in-process, time the first search, then warm searches per retriever."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(
        1
    )  # as bench/retrieval/retrieval.py: one thread per query on a shared machine
    try:
        embedder = load_embedder()  # loaded and warm before the clock starts: the index is timed
        embedder.embed([queries[0]])
        start = time.perf_counter()
        index = Index(settings, embedder)
        search(index, queries[0], k=10)  # reads the catalog and loads BM25
        first = time.perf_counter() - start
        out: dict[str, Any] = {"open_and_first_search_s": round(first, 2)}
        for retriever in ("hybrid", "dense"):
            for q in queries[:WARMUP]:
                search(index, q, k=10, retriever=retriever)
            times = []
            for q in queries:
                t0 = time.perf_counter()
                search(index, q, k=10, retriever=retriever)
                times.append((time.perf_counter() - t0) * 1000)
            out[f"{retriever}_p50_ms"] = round(float(np.percentile(times, 50)), 1)
            out[f"{retriever}_p95_ms"] = round(float(np.percentile(times, 95)), 1)
        return out
    finally:
        torch.set_num_threads(threads)


def disk_mb(*paths: Path) -> float:
    total = sum(f.stat().st_size for p in paths if p.exists() for f in p.rglob("*") if f.is_file())
    return round(total / 1e6, 1)


def copy_embedded_store(size: int, work: Path, folder: Path) -> None:
    """Lay out `folder` as a server-mode index holding a copy of the embedded one of `size`.

    `chroma run --path` serves the files an embedded client wrote; BM25 stays in the index
    folder, as in server mode.
    """
    source = work / f"embedded-{size}" / "index"
    if not (source / "chroma.sqlite3").exists():
        raise RuntimeError(f"--serve-embedded: no embedded index of {size} at {source}")
    if (folder / "chroma").exists():
        return
    bm25 = f"bm25-{COLLECTION}"
    shutil.copytree(source, folder / "chroma.partial", ignore=shutil.ignore_patterns(bm25))
    shutil.copytree(source / bm25, folder / "index" / bm25, dirs_exist_ok=True)
    (folder / "chroma.partial").rename(folder / "chroma")


def bench_one(
    size: int,
    mode: str,
    work: Path,
    queries: list[str],
    serve_embedded: bool = False,
    previous: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Measure one size in one mode; `previous` is its row from an earlier run, if any."""
    corpus = generate(size, work / f"corpus-{size}.jsonl")
    folder = work / f"{mode}-{size}"
    folder.mkdir(parents=True, exist_ok=True)
    state_file = folder / "runs.json"
    runs: list[dict[str, Any]] = json.loads(state_file.read_text()) if state_file.exists() else []
    copied = mode == "server" and serve_embedded and not runs
    if copied:
        copy_embedded_store(size, work, folder)
    total_passages = len(passages(corpus))
    ingested = bool(runs) and runs[-1]["exit"] in (0, 3)
    if copied:
        bare = None  # no ingest to compare with
    elif ingested and previous and previous.get("bare_passages_per_s"):
        bare = previous["bare_passages_per_s"]  # timed just before the ingest it is compared with
    else:
        bare = bare_rate(passages(corpus, BARE_SAMPLE))
    env = {**os.environ, "RAG_INDEX_DIR": str(folder / "index"), "RAG_COLLECTION": COLLECTION}
    env.pop("RAG_CHROMA_URL", None)
    with contextlib.ExitStack() as stack:
        server_rss = None
        if mode == "server":
            url, server = stack.enter_context(chroma_server(folder / "chroma"))
            env["RAG_CHROMA_URL"] = url
        if not copied and not ingested:
            run_ingest(corpus, env, state_file, runs)
            print(f"{mode} {size}: ingest {runs[-1]}", flush=True)
        if not copied and runs[-1]["exit"] not in (0, 3):
            raise RuntimeError(f"{mode} {size}: rag ingest failed: {runs[-1]['output_tail']}")
        settings = Settings(
            index_dir=folder / "index", collection=COLLECTION, chroma_url=env.get("RAG_CHROMA_URL")
        )
        latency = warm_latency(settings, queries)
        cold = cold_search(env, queries[1])
        if mode == "server":
            server_rss = peak_rss_mb(server.pid)
    ingest_s = sum(r["seconds"] for r in runs)
    return {
        "size": size,
        "mode": mode,
        "served_copy_of_embedded": copied,
        "passages": total_passages,
        "ingest_s": round(ingest_s, 1) if runs else None,
        "ingest_runs": len(runs),
        "abstracts_per_s": round(size / ingest_s, 1) if runs else None,
        "bare_passages_per_s": bare and round(bare, 1),
        "ratio_to_bare": round(total_passages / ingest_s / bare, 3) if runs and bare else None,
        "ingest_peak_rss_mb": max((r["peak_rss_mb"] or 0 for r in runs), default=None),
        "server_peak_rss_mb": server_rss and round(server_rss, 1),
        "disk_mb": disk_mb(folder / "index", folder / "chroma"),
        "cold_search_s": cold,
        **latency,
        "load_during_ingest": [r.get("load_mean", r.get("load_before")) for r in runs],
    }


def render(rows: list[dict[str, Any]]) -> str:
    head = (
        "| Size | Mode | Ingest (s) | Abstracts/s | Share of bare encode | Ingest peak RSS (MB) "
        "| Server peak RSS (MB) | Disk (MB) | Open + first search (s) | `rag search` cold (s) "
        "| Hybrid p50/p95 (ms) | Dense p50/p95 (ms) | Load during ingest |\n" + "|---" * 13 + "|\n"
    )
    lines = [
        f"| {r['size']:,} | {r['mode']}{' †' if r.get('served_copy_of_embedded') else ''} | "
        f"{r['ingest_s'] or '—'} | {r['abstracts_per_s'] or '—'} | "
        f"{_share(r['ratio_to_bare'])} | {_mb(r['ingest_peak_rss_mb'])} | "
        f"{r['server_peak_rss_mb'] or '—'} | {r['disk_mb']:.0f} | "
        f"{r['open_and_first_search_s']} | {r['cold_search_s']} | "
        f"{r['hybrid_p50_ms']} / {r['hybrid_p95_ms']} | "
        f"{r['dense_p50_ms']} / {r['dense_p95_ms']} | "
        f"{', '.join(f'{x:.1f}' for x in r['load_during_ingest'] if x is not None) or '—'} |"
        for r in sorted(rows, key=lambda r: (r["size"], r["mode"]))
    ]
    return (
        f"Scale benchmark, {os.cpu_count()} CPU cores, {platform.machine()}, Python "
        f"{platform.python_version()}. Corpora recombine SciFact sentences "
        "(bench/ingest/scale_corpus.py); ingest is `rag ingest` as a new process (imports and "
        "model "
        "load included); the share of bare encode compares its passages/s with "
        f"`SentenceTransformer.encode` on the passages of {BARE_SAMPLE} of the same abstracts, "
        f"timed just before. Latency: warm, in-process, k=10, over {QUERIES} SciFact training "
        "queries, torch on one thread. Load: the mean 1-minute load average during each ingest "
        "run (its start for the first rows; 2.0 means one other process kept both cores "
        "busy).\n\n"
        + head
        + "\n".join(lines)
        + "\n\n"
        + (COPIED_NOTE if any(r.get("served_copy_of_embedded") for r in rows) else "")
        + "Command: `.venv/bin/python bench/ingest/scale.py`\n"
    )


COPIED_NOTE = (
    "† No ingest of its own: `chroma run` serves a copy of the embedded index of the same "
    "size (`--serve-embedded`), so the server's peak RSS is what loading and querying the "
    "collection takes, not ingesting it.\n\n"
)


def _share(ratio: float | None) -> str:
    return "—" if ratio is None else f"{ratio:.0%}"


def _mb(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--modes", default="embedded,server")
    parser.add_argument("--work", type=Path, default=ROOT / "bench" / "work")
    parser.add_argument(
        "--serve-embedded",
        action="store_true",
        help="server mode: serve a copy of the embedded index instead of ingesting again",
    )
    args = parser.parse_args()
    if not (DATA / "corpus.jsonl").exists():
        print(f"skipped: no SciFact corpus at {DATA}", file=sys.stderr)
        return
    with (DATA / "queries.jsonl").open() as fh:
        queries = [json.loads(line)["text"] for line in fh][:QUERIES]
    args.work.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "scale.json"
    rows = json.loads(out.read_text()) if out.exists() else []
    for size in (int(s) for s in args.sizes.split(",")):
        for mode in args.modes.split(","):
            previous = next((r for r in rows if (r["size"], r["mode"]) == (size, mode)), None)
            row = bench_one(size, mode, args.work, queries, args.serve_embedded, previous)
            rows = [r for r in rows if r is not previous] + [row]
            out.write_text(json.dumps(rows, indent=2) + "\n")
            (RESULTS / "scale.md").write_text(render(rows))
            print(json.dumps(row), flush=True)
    print(render(rows))


if __name__ == "__main__":
    main()
