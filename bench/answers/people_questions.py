"""Questions that name people: are they answered from those people's papers?

    .venv/bin/python bench/answers/people_questions.py --index COPY --tag after

Questions: bench/data/people_questions.jsonl (40 over the seeds, each naming authors the seeds
hold, by full name or by the label answers show, "Ju et al."): their papers asked for
(`list_all`, `label`), something asked of their papers (`asked_of`), a topic one of their papers
is about (`topic_theirs`), and a topic none of their papers is about (`not_theirs`, where the
right answer says so and may give another paper on it). `rag ask` (extractive) answers each; the
cited papers are scored against the labels (recall, precision), with the false "no paper on
this" claims and, for `not_theirs`, whether the answer passes one of their papers off as being
about the topic. Nothing is fitted on these questions (the people path reuses the topicless,
follow-up and per-paper judgements and their bars), so both parts are reported together and
apart. Writes bench/results/people_questions_TAG.json and appends to people_questions.md.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.labelled_runs import ask_each_from_command_line, write_tagged  # noqa: E402
from rag import prompts  # noqa: E402

DATA = ROOT / "bench" / "data" / "people_questions.jsonl"
COLUMNS = (
    ("questions", "questions"),
    ("recall", "recall"),
    ("precision", "precision"),
    ("false 'no paper'", "false_no_paper"),
    ("theirs passed off", "passes_theirs_off"),
)
NONE_OF_THEIRS = ("No paper by", "None of them is about", "on the question's topic")


def judged(row: dict[str, Any], answer: Any) -> dict[str, Any]:
    """One question's outcome: cited papers against the labels, and the claims made."""
    cited = set() if answer.abstained else {c.hit.paper.authors[0] for c in answer.citations}
    relevant = set(row["relevant"])
    says_none = any(s in answer.answer for s in NONE_OF_THEIRS)
    out = {
        "id": row["id"],
        "kind": row["kind"],
        "split": row["split"],
        "cited": sorted(cited),
        "hits": len(cited & relevant),
        "relevant": len(relevant),
        "false_no_paper": bool(relevant) and prompts.ABSTAIN.split(".")[0] in answer.answer,
    }
    if row["kind"] == "not_theirs":  # theirs may be shown only under the line saying so
        out["passes_theirs_off"] = bool(cited & set(row["theirs"])) and not says_none
        out["cited"] = sorted(cited - set(row["theirs"])) if says_none else out["cited"]
    return out


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    hits = sum(r["hits"] for r in rows)
    n_rel = sum(r["relevant"] for r in rows)
    n_cited = sum(len(r["cited"]) for r in rows)
    answerable = [r for r in rows if r["relevant"]]
    return {
        "questions": len(rows),
        "recall": round(hits / n_rel, 3) if n_rel else None,
        "precision": round(hits / n_cited, 3) if n_cited else None,
        "false_no_paper": sum(r["false_no_paper"] for r in answerable),
        "passes_theirs_off": sum(r.get("passes_theirs_off", False) for r in rows),
    }


def main() -> None:
    tag, results = ask_each_from_command_line(__doc__, DATA, judged)
    parts: dict[str, list[dict[str, Any]]] = {"all": results}
    for r in results:
        parts.setdefault(f"{r['split']}", []).append(r)
        parts.setdefault(f"kind: {r['kind']}", []).append(r)
    table = {name: summary(rs) for name, rs in parts.items()}
    text = write_tagged("people_questions", tag, table, COLUMNS, results)
    print(text)
    for r in results:
        print(r["id"], r["kind"], r["cited"], r.get("passes_theirs_off", ""))


if __name__ == "__main__":
    main()
