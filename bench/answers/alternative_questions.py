"""Questions joined by "or" / "vs" with one side in the collection, or neither, asked of the seeds.

    .venv/bin/python bench/answers/alternative_questions.py --index COPY --tag TAG

The collection-level decision (`rag.answer.abstention.decide`) once judged such a question whole,
so "what do these papers say about privacy or safety?" was told the collection had no paper on
it while two papers are on privacy. bench/data/alternative_questions.jsonl holds 24 questions,
written before any was asked: 12 with a side some seed paper addresses (`answerable`), 11 with
neither, and the trial's question itself (`seen`, reported apart). Nothing is fitted on them.
Each is asked (extractive); the table counts the answered ones of each label, and the answers
that open by naming the words no paper uses. Appends to bench/results/alternative_questions.md,
writes bench/results/alternative_questions_TAG.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rag import api  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data" / "alternative_questions.jsonl"
RESULTS = ROOT / "bench" / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a copy of a seed index")
    parser.add_argument("--tag", required=True)
    args = parser.parse_args()
    index = Index(Settings(index_dir=args.index, backend="extractive"))
    rows = [json.loads(x) for x in DATA.read_text(encoding="utf-8").splitlines() if x.strip()]
    asked = []
    for row in rows:
        answer = api.ask(row["question"], index=index)
        asked.append(
            {
                **row,
                "answered": not answer.abstained,
                "names_unused_words": answer.answer.startswith("No paper's title or abstract"),
                "cited": [c.hit.paper.citation_key for c in answer.citations],
                "first_line": answer.answer.split("\n")[0][:200],
            }
        )
    lines = [
        f"### {args.tag}",
        "",
        "| questions | n | answered | abstained | opens naming the words no paper uses |",
        "|---|---|---|---|---|",
    ]
    for name, keep in (
        ("a side in the collection", lambda r: r["answerable"] and not r.get("seen")),
        ("neither side", lambda r: not r["answerable"]),
        ("the trial's question", lambda r: bool(r.get("seen"))),
    ):
        part = [r for r in asked if keep(r)]
        answered = sum(r["answered"] for r in part)
        named = sum(r["names_unused_words"] for r in part)
        lines.append(f"| {name} | {len(part)} | {answered} | {len(part) - answered} | {named} |")
    table = "\n".join(lines) + "\n"
    print(table)
    with (RESULTS / "alternative_questions.md").open("a", encoding="utf-8") as f:
        f.write("\n" + table)
    (RESULTS / f"alternative_questions_{args.tag}.json").write_text(
        json.dumps(asked, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    main()
