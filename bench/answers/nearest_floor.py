"""Choose how near a paper must come to be listed as the nearest when `ask` abstains.

    .venv/bin/python bench/answers/nearest_floor.py --index COPY

An abstention lists the nearest papers, none close enough to answer: useful after a near miss
("speculative decoding": papers on decoding), noise after "what's the weather like today?",
and worse than noise after it, since "what did the first one find?" then counted in that list
(a new user's trial, stop 64). The decision reads the best passage's cosine among the retrieved
papers (`Hit.relevance`, as the abstention's `dense` signal does): the papers are listed when it
reaches `Settings.nearest_floor`. Labelled messages that no paper addresses, each
set with its own held-out third: near misses, whose topic no abstract has though a generic word
of it is (`near_miss_queries.jsonl`, kind `near_miss`: list), and everyday messages
(`offtopic_messages.jsonl`; `everyday_common_words.jsonl`, whose words the abstracts use: no
list); `offtopic_questions.jsonl` (no split) is judged only. The floor is the one on a 0.01
grid with the best balanced accuracy on the fitting part. Writes
bench/results/nearest_floor.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.paper_choice import read  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.retrieve import search  # noqa: E402
from rag.index.spelling import corrected  # noqa: E402
from rag.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"
GRID = [round(x, 2) for x in np.arange(0.10, 0.41, 0.01)]


def labelled() -> list[dict[str, Any]]:
    """Every labelled message: its text, whether its nearest papers should be listed, its part."""
    rows = [
        {"q": r["q"], "list": True, "split": r["split"], "set": "near_miss_queries"}
        for r in read("near_miss_queries.jsonl")
        if r["kind"] == "near_miss"
    ]
    rows += [
        {"q": r["message"], "list": False, "split": r["split"], "set": "offtopic_messages"}
        for r in read("offtopic_messages.jsonl")
    ]
    rows += [
        {"q": r["message"], "list": False, "split": r["split"], "set": "everyday_common_words"}
        for r in read("everyday_common_words.jsonl")
        if r["kind"] != "research"
    ]
    rows += [
        {"q": r["question"], "list": False, "split": "judged", "set": "offtopic_questions"}
        for r in read("offtopic_questions.jsonl")
    ]
    return rows


def nearest_cosine(index: Index, message: str) -> float:
    """The best passage cosine among the papers `ask` retrieves for `message`."""
    query = corrected(index, message)
    hits = search(index, query, k=index.settings.top_k, retriever="hybrid", rescore=True)
    return max((h.relevance for h in hits), default=0.0)


def scores(rows: list[dict[str, Any]], floor: float) -> dict[str, Any]:
    """Share listed of the near misses and share not listed of the everyday messages."""
    near = [r["cosine"] >= floor for r in rows if r["list"]]
    far = [r["cosine"] < floor for r in rows if not r["list"]]
    out: dict[str, Any] = {"near misses listed": _share(near), "everyday not listed": _share(far)}
    out["balanced"] = round((out["near misses listed"][0] + out["everyday not listed"][0]) / 2, 3)
    return out


def _share(flags: list[bool]) -> tuple[float, int]:
    return (round(sum(flags) / len(flags), 3) if flags else 1.0, len(flags))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a seed index (a copy)")
    args = parser.parse_args()
    index = Index(Settings(index_dir=args.index))
    shipped = index.settings.nearest_floor
    rows = labelled()
    for r in rows:
        r["cosine"] = round(nearest_cosine(index, r["q"]), 4)
    fit = [r for r in rows if r["split"] == "fit"]
    held = [r for r in rows if r["split"] == "heldout"]
    chosen = max(GRID, key=lambda f: (scores(fit, f)["balanced"], -f))
    table = []
    for name, part in (("fit", fit), ("held out", held)):
        for floor in sorted({chosen, shipped}):
            table.append({"part": name, "floor": floor, **scores(part, floor)})
    judged = [r for r in rows if r["split"] == "judged"]
    data = {
        "command": "python bench/answers/nearest_floor.py --index COPY",
        "chosen": chosen,
        "shipped": shipped,
        "table": table,
        "offtopic_questions not listed (shipped)": _share([r["cosine"] < shipped for r in judged]),
        "held-out mistakes (shipped)": [
            {k: r[k] for k in ("q", "set", "list", "cosine")}
            for r in held
            if (r["cosine"] >= shipped) != r["list"]
        ],
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "nearest_floor.json").write_text(
        json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8"
    )
    lines = [
        "# How near a paper must come to be listed as the nearest "
        "(`bench/answers/nearest_floor.py`)",
        "",
        f"Command: `{data['command']}`. Chosen on the fitting part: {chosen}; shipped: {shipped}.",
        "",
        "| part | floor | near misses listed | everyday messages not listed | balanced |",
        "|---|---|---|---|---|",
    ]
    for t in table:
        near, far = t["near misses listed"], t["everyday not listed"]
        lines.append(
            f"| {t['part']} | {t['floor']} | {near[0]} ({near[1]}) | {far[0]} ({far[1]}) | "
            f"{t['balanced']} |"
        )
    share, n = data["offtopic_questions not listed (shipped)"]
    lines += ["", f"offtopic_questions.jsonl (judged only): {share} of {n} not listed.", ""]
    lines += ["Held-out mistakes at the shipped floor:", ""]
    lines += [
        f"- {'listed wanted' if m['list'] else 'no list wanted'}, cosine {m['cosine']}: "
        f"{m['q']} ({m['set']})"
        for m in data["held-out mistakes (shipped)"]
    ]
    (RESULTS / "nearest_floor.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
