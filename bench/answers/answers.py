"""Benchmark the answer backends on seed questions and off-topic questions.

    .venv/bin/python bench/answers/answers.py                      # all backends available here
    .venv/bin/python bench/answers/answers.py --backends extractive --limit 10

For each backend (extractive; local = bundled SmolLM2 in-process; openai = the same GGUF behind
`python -m llama_cpp.server` on 127.0.0.1, started and stopped here): the share of seed
questions whose answer cites the paper written for it, citation precision (shown citations
whose sentence a strict judge accepts), abstention precision/recall on the off-topic
questions, time to the first token and to the first shown sentence, and total time. Timed
parts run `--repeat` times (default 2) and the best run counts: the CPU is shared.

The strict judge, per shown (sentence, cited paper): "copy" when 80% of the sentence's word
trigrams occur in the cited abstract; otherwise the verdict written by hand in
`bench/data/judged_sentences.jsonl` (a person read the sentence against the abstract); a
sentence with neither is counted as "unjudged" and listed in the results for review.
Writes bench/results/answers.json and answers.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from rag.answer.pipeline import answer  # noqa: E402
from rag.answer.rendering import Answer  # noqa: E402
from rag.backends.base import Backend  # noqa: E402
from rag.backends.registry import get_backend  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.ingest.pipeline import ingest  # noqa: E402
from rag.records import Paper  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data"
RESULTS = ROOT / "bench" / "results"
JUDGED = DATA / "judged_sentences.jsonl"
FOLLOW_UPS = [
    ("graph neural networks on graph data", "what does the second one propose?"),
    ("reinforcement learning for large language model reasoning", "how does the first one work?"),
    ("federated learning with privacy", "what does the second paper do?"),
    ("attention and transformers learning in context", "what did the second one show?"),
    ("multimodal large language models and visual tokens", "what is the second one about?"),
    ("fairness of machine learning models", "and what does the first method do?"),
]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _trigrams(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", text.lower())
    return {tuple(words[i : i + 3]) for i in range(max(0, len(words) - 2))}


def judge(sentence: str, paper: Paper, manual: dict[tuple[str, str], bool]) -> str:
    """Return "copy", "yes", "no" or "unjudged" for a shown sentence and its cited paper."""
    grams = _trigrams(sentence)
    if grams and len(grams & _trigrams(paper.abstract)) / len(grams) >= 0.8:
        return "copy"
    verdict = manual.get((paper.citation_key, sentence))
    return "unjudged" if verdict is None else ("yes" if verdict else "no")


# -- the llama.cpp server for the openai backend


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def llama_server(model: Path, threads: int) -> Iterator[str | None]:
    """Run `python -m llama_cpp.server` on 127.0.0.1; yield its base URL (None: cannot)."""
    try:
        import llama_cpp.server.app  # noqa: F401  # needs the [server] extras
    except ImportError as exc:
        print(f"openai backend skipped: llama_cpp.server needs its extras ({exc})", file=sys.stderr)
        yield None
        return
    import httpx

    port = _free_port()
    log = open(RESULTS / "llama_server.log", "w")  # noqa: SIM115  # closed below
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--chat_format",
            "chatml",
            "--n_ctx",
            "2048",
            "--n_threads",
            str(threads),
            "--n_threads_batch",
            str(threads),
            "--model_alias",
            "smollm2",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if process.poll() is not None:
                print(
                    "llama.cpp server exited; see bench/results/llama_server.log", file=sys.stderr
                )
                yield None
                return
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def llama_speed(threads: int) -> dict[str, float]:
    """Measure this machine's llama.cpp prompt and decode speed now (tokens/s), uncached."""
    from rag.backends import local

    llama = local._load(local.bundled_model_path(), threads).llama
    text = " ".join(["Graph neural networks learn from noisy labels on graphs."] * 30)
    tokens = len(llama.tokenize(text.encode()))
    llama.reset()
    started = time.perf_counter()
    llama.create_completion(text, max_tokens=1, temperature=0.0)
    prompt_s = time.perf_counter() - started
    llama.reset()
    started = time.perf_counter()
    out = llama.create_completion("Once upon a time", max_tokens=64, temperature=0.0)
    decode_s = time.perf_counter() - started
    made = out["usage"]["completion_tokens"]  # type: ignore[index]
    llama.reset()
    return {
        "prompt_tokens_per_s": round(tokens / prompt_s, 1),
        "decode_tokens_per_s": round(made / decode_s, 1),
    }


# -- running


def run_question(
    index: Index, question: str, settings: Settings, backend: Backend | None, repeat: int
) -> Answer:
    """Answer `question` `repeat` times; return the run with the earliest first sentence."""
    runs = [answer(index, question, settings=settings, backend=backend) for _ in range(repeat)]
    return min(runs, key=lambda a: a.timings.get("first_sentence_s", a.timings["total_s"]))


def bench_backend(
    name: str,
    index: Index,
    settings: Settings,
    backend: Backend | None,
    seeds: list[dict[str, Any]],
    off_topic: list[dict[str, Any]],
    repeat: int,
    manual: dict[tuple[str, str], bool],
    timed: int,
) -> dict[str, Any]:
    papers = {p.citation_key: p for p in index.papers.values()}
    rows = []
    for i, q in enumerate([*seeds, *off_topic]):
        on_topic = "key" in q
        times = repeat if on_topic and i < timed else 1
        result = run_question(index, q["question"], settings, backend, times)
        cited = [c.hit.paper.citation_key for c in result.citations]
        by_n = {c.n: c.hit.paper for c in result.citations}
        verdicts = []
        for s in result.sentences:
            if s["shown"] and s["supported"]:
                for n in s["citations"]:
                    verdicts.append(
                        {
                            "sentence": s["text"],
                            "key": by_n[n].citation_key,
                            "judge": judge(s["text"], by_n[n], manual),
                        }
                    )
        rows.append(
            {
                "question": q["question"],
                "expected": q.get("key"),
                "on_topic": on_topic,
                "abstained": result.abstained,
                "cited": cited,
                "right_paper": bool(on_topic and q["key"] in cited),
                "answer": result.answer,
                "notice": result.notice,
                "dropped": sum(1 for s in result.sentences if not s["supported"]),
                "verdicts": verdicts,
                "timings": result.timings,
            }
        )
        assert all(k in papers for k in cited)
    return summarize(name, rows)


def summarize(name: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    on = [r for r in rows if r["on_topic"]]
    off = [r for r in rows if not r["on_topic"]]
    abstained = [r for r in rows if r["abstained"]]
    verdicts = [v for r in rows for v in r["verdicts"]]
    good = sum(v["judge"] in ("copy", "yes") for v in verdicts)
    judged = sum(v["judge"] != "unjudged" for v in verdicts)

    def median(key: str) -> float | None:
        values = [r["timings"][key] for r in on if key in r["timings"] and not r["abstained"]]
        return round(statistics.median(values), 2) if values else None

    return {
        "backend": name,
        "seed_questions": len(on),
        "offtopic_questions": len(off),
        "right_paper": round(sum(r["right_paper"] for r in on) / max(1, len(on)), 3),
        "citations_shown": len(verdicts),
        "citation_precision": round(good / judged, 3) if judged else None,
        "copies": sum(v["judge"] == "copy" for v in verdicts),
        "unjudged": len(verdicts) - judged,
        "abstain_precision": round(sum(not r["on_topic"] for r in abstained) / len(abstained), 3)
        if abstained
        else None,
        "abstain_recall": round(sum(r["abstained"] for r in off) / max(1, len(off)), 3),
        "fallbacks": sum(r["notice"] is not None for r in on),
        "median_first_token_s": median("first_token_s"),
        "median_first_sentence_s": median("first_sentence_s"),
        "median_total_s": median("total_s"),
        "rows": rows,
    }


def bench_follow_ups(index: Index, settings: Settings, backend: Backend | None) -> dict[str, Any]:
    """A broad question, then "the second one": is the follow-up answered from that paper?"""
    out = []
    for broad, follow_up in FOLLOW_UPS:
        first = answer(index, broad, settings=settings, backend=None)
        n = {"first": 1, "second": 2, "third": 3}[
            next(w for w in ("first", "second", "third") if w in follow_up)
        ]
        target = next((c.hit.paper for c in first.citations if c.n == n), None)
        result = answer(
            index, follow_up, settings=settings, backend=backend, history=[(broad, first)]
        )
        cited = [c.hit.paper.citation_key for c in result.citations]
        out.append(
            {
                "broad": broad,
                "follow_up": follow_up,
                "standalone": result.standalone,
                "target": target.citation_key if target else None,
                "cited": cited,
                "right": bool(target and cited == [target.citation_key]),
                "condense_s": round(result.timings.get("condense_s", 0.0), 3),
            }
        )
    return {
        "mode": settings.follow_up,
        "backend": backend.name if backend else "extractive",
        "right": sum(r["right"] for r in out),
        "of": len(out),
        "rows": out,
    }


def write_markdown(data: dict[str, Any], path: Path) -> None:
    lines = [
        "# Answer backends on the seed questions",
        "",
        f"Command: `{data['command']}`. {data['seed_questions']} seed questions written for "
        f"this benchmark (bench/data/seed_questions.jsonl, each with its paper) and "
        f"{data['offtopic_questions']} off-topic ones; support_threshold "
        f"{data['settings']['support_threshold']}, min_relevance "
        f"{data['settings']['min_relevance']}, paper_probability "
        f"{data['settings']['paper_probability']}, top_k {data['settings']['top_k']}. "
        f"With an LLM backend, the first {data['timed']} seed questions ran {data['repeat']}x, "
        "best kept; the 2-core CPU was shared with other jobs, so times are upper bounds.",
        "",
        "| backend | right paper cited | citations shown | citation precision (copies / "
        "unjudged) | abstain P | abstain R | fallbacks | first token | first sentence | total |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for b in data["backends"]:
        precision = "-" if b["citation_precision"] is None else f"{b['citation_precision']:.3f}"

        def t(v: float | None) -> str:
            return "-" if v is None else f"{v:.2f} s"

        lines.append(
            f"| {b['backend']} | {b['right_paper']:.0%} | {b['citations_shown']} | {precision} "
            f"({b['copies']} / {b['unjudged']}) | {b['abstain_precision']} | "
            f"{b['abstain_recall']:.0%} | {b['fallbacks']} | {t(b['median_first_token_s'])} | "
            f"{t(b['median_first_sentence_s'])} | {t(b['median_total_s'])} |"
        )
    if "llama_speed_before" in data:
        before, after = data["llama_speed_before"], data["llama_speed_after"]
        lines += [
            "",
            "llama.cpp speed measured on this machine around the local run (prompt / decode "
            f"tokens per second): before {before['prompt_tokens_per_s']} / "
            f"{before['decode_tokens_per_s']}, after {after['prompt_tokens_per_s']} / "
            f"{after['decode_tokens_per_s']}; an idle 2-core machine does about 220 / 80-90 "
            "(shared STACK-NOTES). Divide the local times by that ratio for an idle machine.",
        ]
    for note in data["notes"]:
        lines += ["", note]
    for f in data.get("follow_ups", []):
        lines += [
            "",
            f"Follow-ups ({f['mode']} rewrite, {f['backend']} answer): {f['right']}/{f['of']} "
            "answered from exactly the paper they refer to.",
        ]
    lines += [
        "",
        "Times are medians over the answered seed questions. First token: the model's first "
        "token; first sentence: the first sentence shown, i.e. after the citation check passed "
        "it. Fallbacks: answers where nothing the model wrote was supported, so the extractive "
        "answer was shown with a notice.",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def rejudge(path: Path, manual: dict[tuple[str, str], bool]) -> None:
    """Apply the hand verdicts to a finished run and rewrite its results.

    Rows of a backend whose server went away mid-run ("cannot reach") are left out of its
    summary, and the summary says how many questions it covers.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    for backend in data["backends"]:
        rows = backend["rows"]
        for row in rows:
            for v in row["verdicts"]:
                if v["judge"] not in ("copy",):
                    verdict = manual.get((v["key"], v["sentence"]))
                    v["judge"] = "unjudged" if verdict is None else ("yes" if verdict else "no")
        served = [r for r in rows if "cannot reach" not in (r["notice"] or "")]
        summary = summarize(backend["backend"], served)
        summary["seconds"] = backend.get("seconds")
        if len(served) < len(rows):
            summary["backend"] += f" ({len([r for r in served if r['on_topic']])} seed questions)"
        backend.clear()
        backend.update(summary)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    write_markdown(data, path.with_suffix(".md"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="extractive,local,openai")
    parser.add_argument("--limit", type=int, default=None, help="seed/off-topic questions each")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each timed question")
    parser.add_argument(
        "--timed", type=int, default=8, help="seed questions run --repeat times (best kept)"
    )
    parser.add_argument("--out", default="answers")
    parser.add_argument(
        "--rejudge", action="store_true", help="apply judged_sentences.jsonl to the last run"
    )
    args = parser.parse_args()
    if args.rejudge:
        manual = {(r["key"], r["sentence"]): bool(r["supported"]) for r in read_jsonl(JUDGED)}
        rejudge(RESULTS / f"{args.out}.json", manual)
        return

    settings = Settings(index_dir=ROOT / "index_store" / "bench-seeds", temperature=0.0)
    index = Index(settings, create=True)
    ingest([ROOT / "seeds"], index)
    seeds = read_jsonl(DATA / "seed_questions.jsonl")[: args.limit]
    off_topic = read_jsonl(DATA / "offtopic_questions.jsonl")[: args.limit]
    manual = {(r["key"], r["sentence"]): bool(r["supported"]) for r in read_jsonl(JUDGED)}
    data: dict[str, Any] = {
        "command": "python bench/answers/answers.py " + " ".join(sys.argv[1:]),
        "seed_questions": len(seeds),
        "offtopic_questions": len(off_topic),
        "repeat": args.repeat,
        "timed": args.timed,
        "settings": settings.model_dump(
            include={
                "support_threshold",
                "min_relevance",
                "paper_probability",
                "top_k",
                "evidence_sentences",
                "max_tokens",
                "unsupported",
            }
        ),
        "backends": [],
        "notes": [],
        "follow_ups": [],
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    for name in args.backends.split(","):
        started = time.perf_counter()
        if name == "extractive":
            result = bench_backend(name, index, settings, None, seeds, off_topic, 1, manual, 0)
            data["follow_ups"].append(bench_follow_ups(index, settings, None))
        elif name == "local":
            backend = get_backend("local", settings)
            data["llama_speed_before"] = llama_speed(settings.local_threads)
            result = bench_backend(
                name, index, settings, backend, seeds, off_topic, args.repeat, manual, args.timed
            )
            data["llama_speed_after"] = llama_speed(settings.local_threads)
            llm = settings.model_copy(update={"follow_up": "llm"})
            data["follow_ups"].append(bench_follow_ups(index, llm, backend))
        elif name == "openai":
            from rag.backends.local import bundled_model_path

            with llama_server(bundled_model_path(), settings.local_threads) as url:
                if url is None:
                    data["notes"].append("openai: skipped, the llama.cpp server did not start.")
                    continue
                api = settings.model_copy(
                    update={
                        "openai_base_url": url,
                        "openai_model": "smollm2",
                        "openai_api_key": None,
                    }
                )
                backend = get_backend("openai", api)
                answer(index, seeds[0]["question"], settings=api, backend=backend)  # warm
                result = bench_backend(
                    name, index, api, backend, seeds, off_topic, args.repeat, manual, args.timed
                )
            data["notes"].append(
                "openai: the same SmolLM2 GGUF served by `python -m llama_cpp.server` on "
                "127.0.0.1 (chatml, 2 threads), spoken to over HTTP with streaming."
            )
        else:
            raise SystemExit(f"unknown backend {name!r}")
        result["seconds"] = round(time.perf_counter() - started, 1)
        data["backends"].append(result)
        print(
            f"{name}: right paper {result['right_paper']:.0%}, precision "
            f"{result['citation_precision']}, unjudged {result['unjudged']}, abstain R "
            f"{result['abstain_recall']:.0%}, first sentence {result['median_first_sentence_s']} s "
            f"({result['seconds']} s)",
            flush=True,
        )
        # Written after every backend: a long run stopped midway keeps what it measured.
        (RESULTS / f"{args.out}.json").write_text(
            json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8"
        )
        write_markdown(data, RESULTS / f"{args.out}.md")


if __name__ == "__main__":
    main()
