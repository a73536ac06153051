"""Follow-ups with no pronoun and no topic of their own ("main limitation?") after an answer.

    .venv/bin/python bench/answers/generic_followups.py --index DIR [--out generic_followups]

bench/data/generic_followups.jsonl (120 two-turn sessions over the seeds, written blind; ids
divisible by 3 held out) pairs a first question with a second message of one of three kinds:

- `generic_followup` (depends on the answer): "accuracy cost?", "any downsides", "evaluated
  how?": generic words only, about the papers just discussed;
- `topic_switch`: a new topic the collection covers, some sharing a generic word;
- `off_topic`: nothing in the collection.

Each session is asked as the chat asks it (`rag.api.ask` with the first turn as history,
extractive). Scored per kind and split: the second message rewritten as a follow-up (its
`standalone` differs), the second answer kept to the first answer's papers (cites only them),
cited-paper recall against `second_relevant`, and abstention (right for off-topic messages).
A signal for a rule to come is recorded beside them: where the first answer's best-placed
paper ranks when the second message is searched on its own words over the whole collection
(share in the top 3). Results: bench/results/OUT.md and OUT.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rag import api  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.retrieve import search  # noqa: E402
from rag.index.spelling import corrected  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data" / "generic_followups.jsonl"
RESULTS = ROOT / "bench" / "results"


def cited(answer: api.Answer) -> set[str]:
    return set() if answer.abstained else {c.hit.paper.authors[0] for c in answer.citations}


def run(index: Index, session: dict[str, Any]) -> dict[str, Any]:
    settings = index.settings.model_copy(update={"backend": "extractive"})
    first = api.ask(session["first"], settings=settings, index=index)
    second = api.ask(
        session["second"], settings=settings, index=index, history=[(session["first"], first)]
    )
    before, after = cited(first), cited(second)
    shown = set() if first.abstained else {c.hit.paper.id for c in first.citations}
    own = search(index, corrected(index, session["second"]), k=len(index.papers))
    rank = next((i for i, h in enumerate(own, 1) if h.paper.id in shown), len(own) + 1)
    relevant = set(session["second_relevant"])
    return {
        "id": session["id"],
        "kind": session["kind"],
        "split": session["split"],
        "rewritten": second.standalone is not None and second.standalone != session["second"],
        "on_previous": bool(after) and after <= before,
        "abstained": second.abstained,
        "hits": len(after & relevant),
        "relevant": len(relevant),
        "cited": len(after),
        "previous_rank": rank,
        "standalone": second.standalone,
        "answer": second.answer[:300],
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, float]:
    n = max(1, len(rows))
    relevant = sum(r["relevant"] for r in rows)
    cited_n = sum(r["cited"] for r in rows)
    return {
        "sessions": len(rows),
        "rewritten": round(sum(r["rewritten"] for r in rows) / n, 3),
        "on_previous_papers": round(sum(r["on_previous"] for r in rows) / n, 3),
        "abstained": round(sum(r["abstained"] for r in rows) / n, 3),
        "recall": round(sum(r["hits"] for r in rows) / relevant, 3) if relevant else float("nan"),
        "precision": round(sum(r["hits"] for r in rows) / cited_n, 3) if cited_n else float("nan"),
        "previous_in_top_3": round(sum(r["previous_rank"] <= 3 for r in rows) / n, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a seed index (a copy)")
    parser.add_argument("--out", default="generic_followups")
    args = parser.parse_args()
    index = Index(Settings(index_dir=args.index))
    sessions = [json.loads(x) for x in DATA.read_text(encoding="utf-8").splitlines() if x]
    rows = [run(index, s) for s in sessions]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[f"{r['split']}: {r['kind']}"].append(r)
    table = {name: summary(group) for name, group in sorted(groups.items())}
    lines = [
        "# Generic follow-ups after an answer (`bench/answers/generic_followups.py`)",
        "",
        f"Command: `.venv/bin/python bench/answers/generic_followups.py --index DIR --out "
        f"{args.out}` ({len(rows)} sessions from `bench/data/generic_followups.jsonl`).",
        "",
        "| split: kind | sessions | rewritten as a follow-up | cites only the first answer's "
        "papers | abstained | recall | precision | first answer's paper in the message's own "
        "top 3 |",
        "|---|---|---|---|---|---|---|---|",
        *(
            f"| {name} | {s['sessions']} | {s['rewritten']} | {s['on_previous_papers']} | "
            f"{s['abstained']} | {s['recall']} | {s['precision']} | {s['previous_in_top_3']} |"
            for name, s in table.items()
        ),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.out}.md").write_text(text, encoding="utf-8")
    payload = {"summary": table, "rows": rows}
    (RESULTS / f"{args.out}.json").write_text(json.dumps(payload, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
