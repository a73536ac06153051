"""Cold start of the query commands: each one a new process, before and after, in one run.

Run from the repository root (about 10 minutes on a loaded 2-core machine):

    .venv/bin/python bench/startup/startup.py --tree /work/main --tree .

Each `--tree` is a checkout whose `rag` is run (PYTHONPATH points at it; the first is "before",
the last "after"). For every command, every tree and every repetition (median of 5, trees
interleaved so that both see the same load): wall time and CPU time (user + system) of
  - `python -c pass` (the floor; the ratios are against it),
  - `rag search`, `rag ask --backend extractive`, `rag cite` (each of the last two also with
    the index's stored sentence vectors deleted first: the first lookup of those papers),
  - `rag serve` until its page answers HTTP 200,
  - `rag ask` with the local model (SmolLM2 through llama.cpp: load and answer).
On the seed index (built in bench/work/ when missing) and on the 100,000-abstract index of
bench/ingest/scale.py where it is present. Then warm in-process search latency with each query
encoder of the last tree (ONNX and sentence-transformers). Results go to
bench/results/startup.json and .md.

The machine's load average is recorded beside the figures: other jobs inflate wall time, much
less CPU time, which is closer to what an idle machine shows.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
WORK = ROOT / "bench" / "work"
SEED_INDEX = WORK / "startup-seeds" / "index"
BIG_INDEX = WORK / "embedded-100000" / "index"  # bench/ingest/scale.py's, collection "scale"
RAG = [sys.executable, "-c", "from rag.cli import main; main()"]
QUESTION = "Which papers deal with noisy labels on graphs?"
CLAIM = "Label noise on graphs can be detected from the graph structure."
SERVE_TIMEOUT = 180.0
# Commands run with the index's stored sentence vectors (rag/index/vector_cache.py) deleted first:
# what the first lookup of some papers costs. The plain rows then find them stored.
FIRST = " (sentences not yet stored)"
SENTENCE_VECTORS = "sentence-vectors.sqlite3"


def commands(port: int) -> dict[str, list[str]]:
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "rag search": [*RAG, "search", "label noise in graph neural networks", "-k", "3"],
        "rag ask --backend extractive" + FIRST: [*RAG, "ask", "--backend", "extractive", QUESTION],
        "rag ask --backend extractive": [*RAG, "ask", "--backend", "extractive", QUESTION],
        "rag cite" + FIRST: [*RAG, "cite", CLAIM],
        "rag cite": [*RAG, "cite", CLAIM],
        "rag serve (page answers)": [*RAG, "serve", "--port", str(port)],
        "rag ask (local model)": [*RAG, "ask", "--backend", "local", QUESTION],
    }


def environment(tree: Path, index: Path, collection: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAG_", "OPENAI_"))}
    env.update(
        PYTHONPATH=str(tree),
        HF_HUB_OFFLINE="1",
        GRADIO_ANALYTICS_ENABLED="False",
        ANONYMIZED_TELEMETRY="False",
        RAG_INDEX_DIR=str(index),
        RAG_COLLECTION=collection,
    )
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Return (wall, cpu) seconds of one run of a command to its end."""
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{command[3:]} failed ({done.returncode}): {done.stderr[-800:]}")
    return wall, _children_cpu() - cpu


def _process_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve_once(
    command: list[str], env: dict[str, str], cwd: Path, port: int
) -> tuple[float, float]:
    """Return (wall, cpu) seconds from starting `rag serve` until its page answers."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        while time.perf_counter() - start < SERVE_TIMEOUT:
            if process.poll() is not None:
                raise RuntimeError(f"rag serve exited: {process.stderr.read()[-800:]!r}")  # type: ignore[union-attr]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as page:
                    if page.status == 200:
                        return time.perf_counter() - start, _process_cpu(process.pid)
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"rag serve did not answer within {SERVE_TIMEOUT:.0f} s")
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def ensure_seed_index(tree: Path) -> None:
    if (SEED_INDEX / "chroma.sqlite3").exists():
        return
    SEED_INDEX.parent.mkdir(parents=True, exist_ok=True)
    env = environment(tree, SEED_INDEX, "papers")
    subprocess.run([*RAG, "ingest", str(ROOT / "seeds")], env=env, check=True)


def ensure_export(tree: Path) -> None:
    """Make the ONNX export the after-tree's queries use, so that no run pays for it."""
    probe = "import rag.index.onnx_export as e; print(e.ensure_exported())"
    env = environment(tree, SEED_INDEX, "papers")
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode == 0:
        print(f"ONNX export of {tree}: {done.stdout.strip()}", file=sys.stderr)


def cold(
    trees: list[Path], index: Path, collection: str, repeat: int, port: int, only: set[str]
) -> dict[str, Any]:
    work = WORK / "startup-cwd"  # no rag.toml here
    work.mkdir(parents=True, exist_ok=True)
    samples: dict[str, dict[str, list[tuple[float, float]]]] = {}
    loads = [os.getloadavg()[0]]
    for n in range(repeat):
        for name, command in commands(port).items():
            if only and name not in only and name != "python -c pass":
                continue
            for tree in trees:
                env = environment(tree, index, collection)
                if name.endswith(FIRST):
                    (index / SENTENCE_VECTORS).unlink(missing_ok=True)
                measured = (
                    serve_once(command, env, work, port)
                    if "serve" in name
                    else run_once(command, env, work)
                )
                samples.setdefault(name, {}).setdefault(str(tree), []).append(measured)
                print(f"{n + 1}/{repeat} {name} [{tree}]: {measured[0]:.2f} s", file=sys.stderr)
        loads.append(os.getloadavg()[0])
    median = statistics.median
    floor = {str(t): median(w for w, _ in samples["python -c pass"][str(t)]) for t in trees}
    rows = []
    for name, per_tree in samples.items():
        row: dict[str, Any] = {"command": name}
        for tree, values in per_tree.items():
            wall = median(w for w, _ in values)
            row[tree] = {
                "wall_s": round(wall, 3),
                "cpu_s": round(median(c for _, c in values), 3),
                "ratio_to_pass": round(wall / floor[tree], 1),
                "walls_s": [round(w, 3) for w, _ in values],
            }
        rows.append(row)
    return {
        "index": str(index),
        "collection": collection,
        "papers": _papers(trees[-1], index, collection),
        "repeat": repeat,
        "load_average": [round(x, 1) for x in loads],
        "rows": rows,
    }


def _papers(tree: Path, index: Path, collection: str) -> int:
    env = environment(tree, index, collection)
    done = subprocess.run(
        [*RAG, "list", "--json"], env=env, capture_output=True, text=True, check=True
    )
    return len(json.loads(done.stdout))


WARM = """
import json, statistics, sys, time
sys.path.insert(0, {tree!r})
from rag import api
from rag.settings import Settings
questions = [json.loads(l)["question"] for l in open({questions!r})]
out = {{}}
for encoder in ("onnx", "sentence-transformers"):
    s = Settings(index_dir={index!r}, collection={collection!r}, query_encoder=encoder)
    index = api.open_index(s)
    api.search(questions[0], index=index, k=10)  # loads the model
    times = []
    for q in questions:
        start = time.perf_counter()
        api.search(q, index=index, k=10)
        times.append(1000 * (time.perf_counter() - start))
    times.sort()
    out[encoder] = {{"p50_ms": round(statistics.median(times), 1),
                    "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1), "n": len(times)}}
print(json.dumps(out))
"""


def warm(tree: Path, index: Path, collection: str) -> dict[str, Any]:
    script = WARM.format(
        tree=str(tree),
        questions=str(ROOT / "bench" / "data" / "seed_questions.jsonl"),
        index=str(index),
        collection=collection,
    )
    env = environment(tree, index, collection)
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def render(result: dict[str, Any]) -> str:
    trees = result["trees"]
    before, after = trees[0], trees[-1]
    out = [
        f"Cold start, each command a new process, median of {result['repeat']} "
        f"({os.cpu_count()} CPU cores, Python {platform.python_version()}); before = "
        f"`{before}`, after = `{after}`, interleaved in one run.\n"
    ]
    for run in result["cold"]:
        out.append(
            f"\n**{run['papers']:,} papers** (`{run['index']}`), load average during the run "
            f"{min(run['load_average'])}-{max(run['load_average'])}:\n\n"
            "| command | before wall (s) | after wall (s) | speed-up | before / after, x "
            "`python -c pass` | before CPU (s) | after CPU (s) |\n" + "|---" * 7 + "|"
        )
        for row in run["rows"]:
            b, a = row[before], row[after]
            out.append(
                f"| `{row['command']}` | {b['wall_s']:.2f} | {a['wall_s']:.2f} | "
                f"{b['wall_s'] / a['wall_s']:.1f}x | {b['ratio_to_pass']} / "
                f"{a['ratio_to_pass']} | {b['cpu_s']:.2f} | {a['cpu_s']:.2f} |"
            )
    if result.get("warm"):
        w = result["warm"]
        out.append(
            f"\nWarm `rag.search` (k=10, in-process, {w['onnx']['n']} seed questions), after "
            f"tree: ONNX encoder p50 {w['onnx']['p50_ms']} ms / p95 {w['onnx']['p95_ms']} ms; "
            f"sentence-transformers p50 {w['sentence-transformers']['p50_ms']} ms / p95 "
            f"{w['sentence-transformers']['p95_ms']} ms."
        )
    out.append(
        "\nCommand: `.venv/bin/python bench/startup/startup.py --tree /work/main --tree .` "
        "(`--only 'rag search'` for one command, `--repeat N`)\n"
    )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, action="append", help="checkout to run (repeat)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--port", type=int, default=7867)
    parser.add_argument("--only", action="append", default=[], help="a command name to run")
    parser.add_argument("--out", default="startup", help="results file stem")
    args = parser.parse_args()
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    ensure_seed_index(trees[-1])
    ensure_export(trees[-1])
    indexes = [(SEED_INDEX, "papers")]
    if (BIG_INDEX / "chroma.sqlite3").exists():
        indexes.append((BIG_INDEX, "scale"))
    else:
        print(f"no 100,000-abstract index at {BIG_INDEX}: seed index only", file=sys.stderr)
    result: dict[str, Any] = {"trees": [str(t) for t in trees], "repeat": args.repeat}
    result["cold"] = [
        cold(trees, index, coll, args.repeat, args.port, set(args.only)) for index, coll in indexes
    ]
    result["warm"] = warm(trees[-1], SEED_INDEX, "papers")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / f"{args.out}.md").write_text(render(result))
    print(render(result))


if __name__ == "__main__":
    main()
