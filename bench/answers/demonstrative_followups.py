"""Does a "that" or "this" that points back at the last answer keep the follow-up on its papers?

    .venv/bin/python bench/answers/demonstrative_followups.py --index COPY --tag TAG

bench/data/demonstrative_followups.jsonl: 80 two-turn sessions written blind by a helper who
read only the seed files, after the rule in rag/answer/condense.py (`_DEMONSTRATIVE`) was built:
40 whose second message uses "that" or "this" for what the last answer said ("why's that",
"does that hurt accuracy on OCR-heavy tasks?"), 40 where it does not ("is it true that ...",
"does this assistant only know the 40 abstracts?", a new topic). Ids divisible by 3 are the
held-out part of any rule chosen on the others. Each session is asked with `rag.api.ask`
(extractive, the first answer as history) and scored: whether `references.refers_back` reads the
second message as pointing back, and whether the answer was rewritten and keeps to the first
answer's papers. Appends a table to bench/results/demonstrative_followups.md and writes
bench/results/demonstrative_followups_TAG.json.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.labelled_runs import follow_ups_asked, session_bench  # noqa: E402
from bench.answers.paper_choice import read  # noqa: E402
from rag import api  # noqa: E402
from rag.answer.references import refers_back  # noqa: E402
from rag.settings import Settings  # noqa: E402


def run(index_dir: Path) -> list[dict[str, Any]]:
    index = api.open_index(settings=Settings(index_dir=index_dir))
    rows = []
    for s, first, second in follow_ups_asked(index, read("demonstrative_followups.jsonl")):
        before = {c.hit.paper.id for c in first.citations}
        cited = {c.hit.paper.id for c in second.citations}
        rows.append(
            {
                **s,
                "split": "heldout" if int(s["id"][1:]) % 3 == 0 else "fit",
                "refers_back": refers_back(s["second"]),
                "kept": second.standalone is not None and bool(cited) and cited <= before,
                "standalone": second.standalone,
                "answer": second.answer[:300],
            }
        )
    return rows


def table(rows: list[dict[str, Any]], tag: str) -> list[str]:
    lines = [
        f"### {tag}",
        "",
        "| part | points back | sessions | read as pointing back | kept to the last papers |",
        "|---|---|---|---|---|",
    ]
    for split in ("fit", "heldout"):
        for label in (True, False):
            part = [r for r in rows if r["split"] == split and r["points_back"] == label]
            read_back = sum(r["refers_back"] for r in part)
            kept = sum(r["kept"] for r in part)
            lines.append(
                f"| {split} | {'yes' if label else 'no'} | {len(part)} | {read_back} | {kept} |"
            )
    return [*lines, ""]


def main() -> None:
    session_bench(
        "demonstrative_followups", "'that' or 'this' after an answer", __doc__, run, table
    )


if __name__ == "__main__":
    main()
