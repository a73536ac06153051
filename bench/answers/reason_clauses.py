"""Questions that end with why the asker asks (", because I need them for a related work").

    .venv/bin/python bench/answers/reason_clauses.py --index DIR [--out reason_clauses]

The labelled seed questions of bench/data/paper_questions.jsonl that ask for papers (forms
which_papers, list, anything_on, what_do_papers_say, question, summarize; those with a paper on
them) are asked as written and with a clause of the asker's reason appended. The clause says
nothing of the topic, so the papers cited should not change: each variant is scored by the
cited papers' recall and precision against the question's labels, and the questions answered
with no paper. The fitting part's questions get the clauses the rule was written against
(`DEVELOPED`); the held-out part's get others (`HELD_OUT`), written after. Nothing is fitted.
Results: bench/results/OUT.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rag import api  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.settings import Settings  # noqa: E402

QUESTIONS = ROOT / "bench" / "data" / "paper_questions.jsonl"
RESULTS = ROOT / "bench" / "results"
FORMS = ("which_papers", "list", "anything_on", "what_do_papers_say", "question", "summarize")
DEVELOPED = (
    " because I need them for a related work section",
    ", since I'm writing my thesis on this",
    " - my advisor asked me to look into it",
)
HELD_OUT = (
    " because we are writing a survey section",
    ", since I have to finish my related work section tomorrow",
    " cause I need to cite something in my paper",
    " because my reviewer asked for more related work",
)


def with_clause(question: str, clause: str) -> str:
    """`question` with `clause` before its final question mark, if any."""
    asked = question.endswith("?")
    return question.rstrip("?.") + clause + ("?" if asked else "")


def score(index: Index, rows: list[dict[str, Any]], clause: str) -> dict[str, Any]:
    found = wrong = missed = none = 0
    for row in rows:
        answer = api.ask(with_clause(row["q"], clause), index=index, backend="extractive")
        cited = {c.hit.paper.authors[0] for c in answer.citations}
        relevant = set(row["relevant"])
        found += len(cited & relevant)
        wrong += len(cited - relevant)
        missed += len(relevant - cited)
        none += not cited
    return {
        "clause": clause or "(as written)",
        "questions": len(rows),
        "recall": round(found / max(1, found + missed), 3),
        "precision": round(found / max(1, found + wrong), 3),
        "answered_with_no_paper": none,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a seed index (a copy)")
    parser.add_argument("--out", default="reason_clauses")
    args = parser.parse_args()
    index = Index(Settings(index_dir=args.index))
    rows = [json.loads(x) for x in QUESTIONS.read_text(encoding="utf-8").splitlines() if x]
    rows = [r for r in rows if r["relevant"] and r["form"] in FORMS]
    out = {}
    for split, clauses in (("fit", DEVELOPED), ("heldout", HELD_OUT)):
        part = [r for r in rows if r["split"] == split]
        out[split] = [score(index, part, clause) for clause in ("", *clauses)]
    lines = [
        "# Questions that end with the asker's reason",
        "",
        f"`.venv/bin/python bench/answers/reason_clauses.py --index DIR --out {args.out}` "
        "(see its docstring).",
        "",
        "| part | clause appended | questions | recall | precision | answered with no paper |",
        "|---|---|---|---|---|---|",
        *(
            f"| {split} | {s['clause']} | {s['questions']} | {s['recall']} | {s['precision']} "
            f"| {s['answered_with_no_paper']} |"
            for split, scores in out.items()
            for s in scores
        ),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    (RESULTS / f"{args.out}.md").write_text(text, encoding="utf-8")
    (RESULTS / f"{args.out}.json").write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
