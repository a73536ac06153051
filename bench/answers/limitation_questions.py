"""Questions on limitations: does the answer say when the abstract states none?

    .venv/bin/python bench/answers/limitation_questions.py --index COPY --tag TAG

bench/data/limitation_questions.jsonl: 45 questions written blind by a helper who read only the
seed files, each on one paper (`paper`): about the limitations, weaknesses, drawbacks, failure
cases ... of the paper's own method (`subject: own`, 25; `states`: whether the abstract admits
one, 3 do) or of an approach the paper criticises or analyses (`other`, 20; 18 state it), with
the sentences that state it (`want`). Ids divisible by 3 are held out. `rag ask` (extractive)
answers each; reported per part: how many answers open with the note that the abstract does not
state a limitation (`rag.prompts.NOT_STATED_ONE`; wanted exactly for `own` ones that state none),
and how many cite the labelled paper. Writes bench/results/limitation_questions_TAG.json and
appends to limitation_questions.md.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.answers.labelled_runs import ask_each_from_command_line, write_tagged  # noqa: E402

DATA = ROOT / "bench" / "data" / "limitation_questions.jsonl"
COLUMNS = (("questions", "questions"), ("note: states none", "noted"), ("paper cited", "cited"))
PARTS = (
    ("own, states none", "own", False),
    ("own, states one", "own", True),
    ("other, states one", "other", True),
    ("other, states none", "other", False),
)


def judged(row: dict[str, Any], answer: Any) -> dict[str, Any]:
    first = answer.answer.split("\n")[0]
    return {
        **{k: row[k] for k in ("id", "q", "paper", "subject", "states", "split")},
        "noted": "does not state" in first or "None of the abstracts found states" in first,
        "cited": row["paper"] in {c.hit.paper.authors[0] for c in answer.citations},
        "answer": answer.answer[:300],
    }


def main() -> None:
    tag, results = ask_each_from_command_line(__doc__, DATA, judged)
    table = {}
    for split in ("fit", "heldout"):
        for name, subject, states in PARTS:
            part = [
                r
                for r in results
                if r["split"] == split and r["subject"] == subject and r["states"] == states
            ]
            table[f"{split}: {name}"] = {
                "questions": len(part),
                "noted": sum(r["noted"] for r in part),
                "cited": sum(r["cited"] for r in part),
            }
    print(write_tagged("limitation_questions", tag, table, COLUMNS, results))
    for r in results:
        print(
            r["id"], r["split"], r["subject"], r["states"], "NOTE" if r["noted"] else "    ", r["q"]
        )


if __name__ == "__main__":
    main()
