"""Time `rag mcp` tool calls as an assistant makes them: the SDK's stdio client, real server.

    .venv/bin/python bench/startup/mcp_latency.py [--index DIR] [--runs 20] [--local-runs 5]

Without --index it indexes seeds/ into a temporary folder first (`rag ingest`, real MiniLM).
One server process over stdio; the first search_papers call (model load included) is timed
apart, then each warm call round trip: search_papers and ask (extractive) over the 40 seed
questions, and ask with the local SmolLM2 backend. The same searches and extractive answers
are also timed in this process through `rag.api` (each answer's first look at a paper embeds
its abstract's sentences, in both), to show what the protocol adds. Writes
bench/results/mcp_latency.json and .md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
QUESTIONS = ROOT / "bench" / "data" / "seed_questions.jsonl"


def _env(index: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "RAG_INDEX_DIR": str(index),
    }


def _summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "n": len(times),
        "p50_ms": round(1000 * statistics.median(times), 1),
        "p95_ms": round(1000 * p95, 1),
    }


async def _timed(session: ClientSession, name: str, args: dict[str, Any]) -> float:
    start = time.perf_counter()
    result = await session.call_tool(name, args)
    elapsed = time.perf_counter() - start
    if result.is_error:
        raise SystemExit(f"{name} failed: {result.content[0].text}")
    return elapsed


async def _session(index: Path, questions: list[str], runs: int, local_runs: int) -> dict:
    code = "from rag.cli import main; main()"
    params = StdioServerParameters(
        command=sys.executable, args=["-c", code, "mcp"], env=_env(index), cwd=str(ROOT)
    )
    out: dict[str, Any] = {}
    start = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        out["initialize_s"] = round(time.perf_counter() - start, 2)
        first = await _timed(session, "search_papers", {"query": questions[0], "k": 5})
        out["first_search_s"] = round(first, 2)
        search = [
            await _timed(session, "search_papers", {"query": q, "k": 5}) for q in questions[:runs]
        ]
        ask = [await _timed(session, "ask", {"question": q}) for q in questions[:runs]]
        local = [
            await _timed(session, "ask", {"question": q, "backend": "local"})
            for q in questions[:local_runs]
        ]
    out["search_papers"] = _summary(search)
    out["ask_extractive"] = _summary(ask)
    if local:
        out["ask_local_first_s"] = round(local[0], 2)
        out["ask_local_warm"] = _summary(local[1:] or local)
    return out


def _in_process(index: Path, questions: list[str]) -> dict[str, dict[str, float]]:
    os.environ.update(_env(index))
    sys.path.insert(0, str(ROOT))
    import rag
    from rag.settings import load_settings

    settings = load_settings(index_dir=index)
    rag.search(questions[0], settings=settings, k=5)  # warm up: model and index
    search, ask = [], []
    for q in questions:
        start = time.perf_counter()
        rag.search(q, settings=settings, k=5)
        search.append(time.perf_counter() - start)
    for q in questions:
        start = time.perf_counter()
        rag.ask(q, settings=settings, backend="extractive")
        ask.append(time.perf_counter() - start)
    return {"search": _summary(search), "ask_extractive": _summary(ask)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, help="An index to serve (default: the seeds).")
    parser.add_argument("--runs", type=int, default=20, help="Warm calls per tool.")
    parser.add_argument("--local-runs", type=int, default=5, help="ask calls with SmolLM2.")
    args = parser.parse_args()
    questions = [json.loads(line)["question"] for line in QUESTIONS.read_text().splitlines()]
    with tempfile.TemporaryDirectory() as tmp:
        index = args.index
        if index is None:
            index = Path(tmp) / "index"
            subprocess.run(
                [sys.executable, "-c", "from rag.cli import main; main()", "ingest", "seeds"],
                env=_env(index),
                cwd=ROOT,
                check=True,
                stderr=subprocess.DEVNULL,
            )
        result = asyncio.run(_session(index, questions, args.runs, args.local_runs))
        result["in_process"] = _in_process(index, questions[: args.runs])
    result["load_1min"] = round(os.getloadavg()[0], 1)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "mcp_latency.json").write_text(json.dumps(result, indent=2) + "\n")
    rows = [
        ("search_papers (k=5)", result["search_papers"]),
        ("ask, extractive", result["ask_extractive"]),
        ("ask, local SmolLM2 (after its first call)", result.get("ask_local_warm")),
        ("rag.search in process, same queries", result["in_process"]["search"]),
        ("rag.ask in process, extractive, same questions", result["in_process"]["ask_extractive"]),
    ]
    lines = [
        "# MCP call latency (warm, stdio round trip through the SDK client)",
        "",
        f"Command: `.venv/bin/python bench/startup/mcp_latency.py --runs {args.runs} "
        f"--local-runs {args.local_runs}`; 1-minute load average at the end: "
        f"{result['load_1min']} on 2 cores.",
        "",
        "| call | n | p50 (ms) | p95 (ms) |",
        "|---|---|---|---|",
        *(f"| {name} | {r['n']} | {r['p50_ms']} | {r['p95_ms']} |" for name, r in rows if r),
        "",
        f"Server start to initialized: {result['initialize_s']} s; first search_papers (loads "
        f"the model and the index): {result['first_search_s']} s; first local ask (loads "
        f"SmolLM2): {result.get('ask_local_first_s', '-')} s.",
        "",
    ]
    (RESULTS / "mcp_latency.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
