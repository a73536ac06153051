"""Does "it" after a keyword query stand for the topic, not for the answer's first paper?

    .venv/bin/python bench/answers/topic_followups.py --index COPY --tag TAG

bench/data/topic_it_followups.jsonl: 48 two-turn sessions written blind by a helper who read
only the seed files: a few bare words ("privacy", "graph neural networks"), then a follow-up in
which "it" is that topic ("how is it protected?", "does it scale?"), labelled with the papers
whose abstract answers the follow-up (`relevant`) and those on the topic at all
(`topic_papers`); in t001-t036 at least two papers are on the topic, in t037-t048 one. Ids
divisible by 3 are held out. Each session is asked with `rag.api.ask` (extractive, the first
answer as history) and scored on the second answer's cited papers: recall and precision against
`relevant`, the share citing a paper off the topic, and abstentions where a paper answers.
Appends a table to bench/results/topic_followups.md and writes
bench/results/topic_followups_TAG.json.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.labelled_runs import (  # noqa: E402
    cited_recall_precision,
    follow_ups_asked,
    session_bench,
)
from bench.answers.paper_choice import read  # noqa: E402
from rag import api  # noqa: E402
from rag.settings import Settings  # noqa: E402


def run(index_dir: Path) -> list[dict[str, Any]]:
    index = api.open_index(settings=Settings(index_dir=index_dir))
    rows = []
    for s, first, second in follow_ups_asked(index, read("topic_it_followups.jsonl")):
        cited = {c.hit.paper.authors[0] for c in second.citations}
        relevant, topic = set(s["relevant"]), set(s["topic_papers"])
        rows.append(
            {
                "id": s["id"],
                "split": s["split"],
                "several": int(s["id"][1:]) <= 36,
                "first_cited": [c.hit.paper.authors[0] for c in first.citations],
                "cited": sorted(cited),
                "relevant": sorted(relevant),
                "hits": len(cited & relevant),
                "off_topic": bool(cited - topic),
                "abstained": second.abstained or not cited,
                "standalone": second.standalone,
                "answer": second.answer[:300],
            }
        )
    return rows


def summary(part: list[dict[str, Any]]) -> dict[str, Any]:
    recall, precision = cited_recall_precision(part)
    answerable = [r for r in part if r["relevant"]]
    return {
        "sessions": len(part),
        "recall": recall,
        "precision": precision,
        "off_topic": sum(r["off_topic"] for r in part),
        "abstained": f"{sum(r['abstained'] for r in answerable)}/{len(answerable)}",
    }


def table(rows: list[dict[str, Any]], tag: str) -> list[str]:
    lines = [
        f"### {tag}",
        "",
        "| part | sessions | recall | precision | citing a paper off the topic | "
        "no paper where one answers |",
        "|---|---|---|---|---|---|",
    ]
    parts = {
        f"{split}: {kind}": [
            r for r in rows if r["split"] == split and r["several"] == (kind == "several papers")
        ]
        for split in ("fit", "heldout")
        for kind in ("several papers", "one paper")
    }
    for name, part in parts.items():
        s = summary(part)
        lines.append(
            f"| {name} | {s['sessions']} | {s['recall']} | {s['precision']} | "
            f"{s['off_topic']} | {s['abstained']} |"
        )
    return [*lines, ""]


def main() -> None:
    session_bench("topic_followups", "'It' after a keyword query", __doc__, run, table)


if __name__ == "__main__":
    main()
