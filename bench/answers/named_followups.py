"""Does a follow-up that names another paper by its method name ask that paper too?

    .venv/bin/python bench/answers/named_followups.py --index COPY --tag TAG

After an answer on one paper ("what is CLINIC?"), a follow-up names a second paper of the
collection by the method name the answers show ("how does it compare to CELL?"). Sessions are
made from every seed paper with such a name: each paper X asks "what is X?" then one of five
follow-up phrasings about another paper Y (drawn with a fixed seed, ids divisible by 3 held
out, the phrasings written before any was asked). Scored on the second answer: both X and Y
cited, Y cited, X cited. Appends a table to bench/results/named_followups.md and writes
bench/results/named_followups_TAG.json.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.labelled_runs import follow_ups_asked, session_bench  # noqa: E402
from rag import api  # noqa: E402
from rag.answer.named_papers import method_of  # noqa: E402
from rag.settings import Settings  # noqa: E402

PHRASINGS = (
    "how does it compare to {y}?",
    "is it better than {y}?",
    "and how is that different from {y}?",
    "what does {y} do differently?",
    "does it beat {y}?",
)


def sessions(papers: list[Any]) -> list[dict[str, Any]]:
    rng = random.Random(49)
    named = sorted((p for p in papers if method_of(p)), key=lambda p: p.id)
    rows = []
    for i, x in enumerate(named):
        y = rng.choice([p for p in named if p.id != x.id])
        rows.append(
            {
                "id": i,
                "split": "heldout" if i % 3 == 0 else "fit",
                "first": f"what is {method_of(x)}?",
                "second": PHRASINGS[i % len(PHRASINGS)].format(y=method_of(y)),
                "x": x.id,
                "y": y.id,
            }
        )
    return rows


def run(index_dir: Path) -> list[dict[str, Any]]:
    index = api.open_index(settings=Settings(index_dir=index_dir))
    rows = []
    for s, first, second in follow_ups_asked(index, sessions(list(index.papers.values()))):
        cited = {c.hit.paper.id for c in second.citations}
        first_cited = [c.hit.paper.id for c in first.citations]
        rows.append(
            {
                **s,
                "first_is_x": first_cited[:1] == [s["x"]],
                "both": {s["x"], s["y"]} <= cited,
                "y_cited": s["y"] in cited,
                "x_cited": s["x"] in cited,
                "others": len(cited - {s["x"], s["y"]}),
                "standalone": second.standalone,
                "answer": second.answer[:300],
            }
        )
    return rows


def table(rows: list[dict[str, Any]], tag: str) -> list[str]:
    lines = [
        f"### {tag}",
        "",
        "| part | sessions | first answer on X | X and Y cited | Y cited | X cited | others |",
        "|---|---|---|---|---|---|---|",
    ]
    for split in ("fit", "heldout"):
        part = [r for r in rows if r["split"] == split]
        counts = [sum(r[k] for r in part) for k in ("first_is_x", "both", "y_cited", "x_cited")]
        others = sum(r["others"] for r in part)
        lines.append(
            f"| {split} | {len(part)} | " + " | ".join(map(str, counts)) + f" | {others} |"
        )
    return [*lines, ""]


def main() -> None:
    session_bench("named_followups", "A follow-up naming another paper", __doc__, run, table)


if __name__ == "__main__":
    main()
