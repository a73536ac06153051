"""A follow-up that asks past the papers just shown ("any other ways to extend context length?",
"anything else on label noise?"): does the answer leave them out and search the collection?

    .venv/bin/python bench/answers/other_followups.py --index COPY --tag TAG

bench/data/other_followups.jsonl: 60 two-turn sessions written blind by a helper who read only
the seed files: a first question on one or two papers (`first_papers`), then a follow-up with
"other", "else", "another", "besides" or "alternative". `wants_others`: it asks for other papers
than those just discussed (35; in 11 the collection has none, `relevant` empty), or it asks about
the papers just discussed ("how does it compare to other methods?", "what else did they
find?": 25, `relevant` = `first_papers`). Ids divisible by 3 are held out.

Each session is asked with `rag.api.ask` (extractive, the first answer as history). Scored on the
second answer: for `wants_others`, whether it leaves out every paper the first answer cited,
and, where the collection has others, recall and precision of its papers against `relevant`;
where it has none, whether it cites none (it says no other paper is on it); for the others,
recall and precision against `relevant`. Appends a table to bench/results/other_followups.md
and writes bench/results/other_followups_TAG.json.
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
    for s, first, second in follow_ups_asked(index, read("other_followups.jsonl")):
        shown = {c.hit.paper.authors[0] for c in first.citations}
        cited = [] if second.abstained else [c.hit.paper.authors[0] for c in second.citations]
        relevant = set(s["relevant"])
        rows.append(
            {
                "id": s["id"],
                "split": s["split"],
                "wants_others": s["wants_others"],
                "none_other": s["wants_others"] and not relevant,
                "first_cited": sorted(shown),
                "searched": second.standalone or s["second"],
                "cited": sorted(set(cited)),
                "relevant": sorted(relevant),
                "hits": len(set(cited) & relevant),
                "left_out_shown": not (set(cited) & shown),
                "answer": second.answer[:300],
            }
        )
    return rows


def table(rows: list[dict[str, Any]], tag: str) -> list[str]:
    lines = [
        f"### {tag}",
        "",
        "| part | sessions | left out the papers shown | recall | precision | none cited |",
        "|---|---|---|---|---|---|",
    ]
    for split in ("fit", "heldout"):
        for kind, test in (
            ("others, some exist", lambda r: r["wants_others"] and not r["none_other"]),
            ("others, none exist", lambda r: r["none_other"]),
            ("about the papers shown", lambda r: not r["wants_others"]),
        ):
            part = [r for r in rows if r["split"] == split and test(r)]
            recall, precision = cited_recall_precision(part)
            lines.append(
                f"| {split}: {kind} | {len(part)} | {sum(r['left_out_shown'] for r in part)} | "
                f"{recall} | {precision} | {sum(not r['cited'] for r in part)} |"
            )
    return [*lines, ""]


def main() -> None:
    session_bench(
        "other_followups", "Follow-ups that ask past the papers shown", __doc__, run, table
    )


if __name__ == "__main__":
    main()
