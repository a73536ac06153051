"""Compare the answer composers on the dev chat sessions: extractive lines vs the local model.

    .venv/bin/python bench/answers/composers.py                   # extractive and local, about 5
    min .venv/bin/python bench/answers/composers.py --backends extractive

Every turn of `../shared/data/chat/sessions-dev.jsonl` (Chinese turns left out: another helper's
part) is asked in order with the earlier (question, answer) pairs as history. Per backend, over
the turns with right papers that were answered: right paper cited; sentences shown and the share
of them citing one of the turn's right papers ("about the question"); answers whose first line
is the model's own synthesis; fallbacks (nothing the model wrote was shown); shown sentences that
open with a dangling connective; median time to the first sentence and in total.
Writes bench/results/composers.json and composers.md; exits cleanly without the data.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from rag.answer.discourse import dangling_opener  # noqa: E402
from rag.answer.pipeline import answer  # noqa: E402
from rag.answer.rendering import Answer  # noqa: E402
from rag.backends.registry import get_backend  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.ingest.pipeline import ingest  # noqa: E402
from rag.settings import Settings  # noqa: E402

# The shared data sits beside the checkout (../shared), or beside the folder of worktrees.
CHAT = (
    next(
        (d / "shared" / "data" for d in ROOT.parents if (d / "shared" / "data").is_dir()),
        ROOT.parent / "shared" / "data",
    )
    / "chat"
    / "sessions-dev.jsonl"
)
RESULTS = ROOT / "bench" / "results"


def run(index: Index, settings: Settings, name: str, sessions: list[dict[str, Any]]) -> dict:
    backend = None if name == "extractive" else get_backend(name, settings)
    if backend is not None:  # load the model before timing
        answer(index, "graph neural networks with noisy labels", settings=settings, backend=backend)
    rows = []
    for session in sessions:
        history: list[tuple[str, Answer]] = []
        for turn in session["turns"]:
            if turn.get("lang"):
                continue
            started = time.perf_counter()
            result = answer(index, turn["q"], settings=settings, backend=backend, history=history)
            elapsed = time.perf_counter() - started
            history.append((turn["q"], result))
            by_n = {c.n: c.hit.paper.authors[0] for c in result.citations}
            shown = [s for s in result.sentences if s["shown"] and not s.get("note")]
            gold = set(turn.get("gold", []))
            rows.append(
                {
                    "session": session["id"],
                    "q": turn["q"],
                    "gold": sorted(gold),
                    "abstained": result.abstained,
                    "right": bool(gold & set(by_n.values()))
                    and not set(turn.get("forbid", [])) & set(by_n.values()),
                    "shown": len(shown),
                    "about": sum(any(by_n.get(n) in gold for n in s["citations"]) for s in shown),
                    "model_first": bool(shown)
                    and shown[0]["reason"] != "quoted"
                    and not result.notice
                    and backend is not None
                    and not result.answer.startswith("- "),
                    "fallback": result.notice is not None,
                    "dangling": sum(dangling_opener(s["text"]) for s in shown),
                    "first_s": result.timings.get("first_sentence_s"),
                    "total_s": elapsed,
                    "answer": result.answer,
                }
            )
    answered = [r for r in rows if r["gold"] and not r["abstained"]]
    shown = sum(r["shown"] for r in answered)

    def median(key: str) -> float | None:
        values = [r[key] for r in answered if r[key] is not None]
        return round(statistics.median(values), 2) if values else None

    return {
        "backend": name,
        "turns_with_gold": sum(bool(r["gold"]) for r in rows),
        "answered": len(answered),
        "right_paper": sum(r["right"] for r in answered),
        "sentences_shown": shown,
        "about_question": round(sum(r["about"] for r in answered) / max(1, shown), 3),
        "model_synthesis_shown": sum(r["model_first"] for r in answered),
        "fallbacks": sum(r["fallback"] for r in answered),
        "dangling": sum(r["dangling"] for r in rows),
        "median_first_sentence_s": median("first_s"),
        "median_total_s": median("total_s"),
        "rows": rows,
    }


def write_markdown(data: dict[str, Any], path: Path) -> None:
    lines = [
        "# Composers on the dev chat sessions",
        "",
        f"Command: `{data['command']}`. Turns with right papers that were answered (not "
        "abstained: abstention is another part of issue 12); Chinese turns left out. The 2-core "
        "machine was shared with other jobs, so times are upper bounds.",
        "",
        "| backend | answered | right paper | sentences shown | about the question | "
        "model synthesis shown | fallbacks | dangling openers | first sentence | total |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for b in data["backends"]:
        lines.append(
            f"| {b['backend']} | {b['answered']}/{b['turns_with_gold']} | {b['right_paper']} | "
            f"{b['sentences_shown']} | {b['about_question']:.0%} | {b['model_synthesis_shown']} | "
            f"{b['fallbacks']} | {b['dangling']} | {b['median_first_sentence_s']} s | "
            f"{b['median_total_s']} s |"
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="extractive,local")
    parser.add_argument("--out", default="composers")
    args = parser.parse_args()
    if not CHAT.is_file():
        print(f"no chat sessions at {CHAT}: nothing to measure")
        return
    sessions = [json.loads(line) for line in CHAT.read_text(encoding="utf-8").splitlines() if line]
    data: dict[str, Any] = {
        "command": "python bench/answers/composers.py " + " ".join(sys.argv[1:]),
        "backends": [],
    }
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(index_dir=Path(folder), temperature=0.0)
        index = Index(settings, create=True)
        ingest([ROOT / "seeds"], index)
        for name in args.backends.split(","):
            result = run(index, settings, name, sessions)
            data["backends"].append(result)
            print({k: v for k, v in result.items() if k != "rows"}, flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(
        json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8"
    )
    write_markdown(data, RESULTS / f"{args.out}.md")


if __name__ == "__main__":
    main()
