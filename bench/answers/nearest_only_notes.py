"""When does an answer open "No paper's title or abstract uses X, so what follows is only the
nearest ..."? On which labelled questions, and could the per-paper probability tell them apart?

    .venv/bin/python bench/answers/nearest_only_notes.py --index COPY

A new user's "does skipping layers hurt accuracy?" (stop 58) got that note because no seed
abstract writes "hurt", while the answer it prefaced (PoLar: "improves accuracy ... while
executing fewer layers") is the right one. The note comes when the collection signals reject
the question (`rag.answer.abstention.decide`), one paper answers it alone and some topic word
is in no paper (`rag.answer.pipeline`). Every labelled question of the seed sets is asked
(extractive); for those that get the note, the table counts the answerable ones (a labelled
relevant paper) and the others, with the highest per-paper probability
(`rag.answer.paper_choice.judge`) each had: a bar on it could drop the note where it is
wrong only if the two groups' probabilities part. Writes bench/results/nearest_only_notes.md
and .json. Nothing is fitted.
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

from rag import api, prompts  # noqa: E402
from rag.answer import paper_choice  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data"
SETS = (
    "paper_questions.jsonl",
    "phrasing_needs.jsonl",
    "near_miss_queries.jsonl",
    "abstention_questions.jsonl",
    "ranking_questions.jsonl",
    "quantity_questions.jsonl",
    "role_questions.jsonl",
    "vague_questions.jsonl",
    "purpose_questions.jsonl",
)
RESULTS = ROOT / "bench" / "results"
NOTE = prompts.NEAREST_ONLY.split("{")[0]


def asked_with_notes(index: Index) -> list[dict[str, Any]]:
    """Every labelled question that gets the note, with what the per-paper judgement said."""
    best: dict[str, float] = {}
    judge = paper_choice.judge

    def judged(*args: Any, **kwargs: Any) -> Any:
        out = judge(*args, **kwargs)
        best["p"] = max((j.probability for j in out), default=0.0)
        return out

    paper_choice.judge = judged  # type: ignore[assignment]
    rows = []
    try:
        for name in SETS:
            for line in (DATA / name).read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                question = row.get("q") or row.get("question")
                if not question:
                    continue
                best.clear()
                answer = api.ask(question, index=index)
                first = answer.sentences[0]["text"] if answer.sentences else ""
                if not (first.startswith(NOTE) and "only the nearest" in first):
                    continue
                relevant = set(row.get("relevant") or [])
                cited = {c.hit.paper.authors[0] for c in answer.citations if c.hit.paper.authors}
                rows.append({
                    "set": name, "question": question, "split": row.get("split"),
                    "answerable": bool(relevant),
                    "right_papers": bool(relevant) and cited <= relevant,
                    "best_probability": round(best.get("p", 0.0), 3), "note": first,
                })  # fmt: skip
    finally:
        paper_choice.judge = judge  # type: ignore[assignment]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a copy of a seed index")
    args = parser.parse_args()
    rows = asked_with_notes(Index(Settings(index_dir=args.index, backend="extractive")))
    lines = [
        "# The note that an answer is only the nearest (`bench/answers/nearest_only_notes.py`)",
        "",
        "| labelled | questions with the note | right papers cited | best per-paper "
        "probability: min | median | max |",
        "|---|---|---|---|---|---|",
    ]
    for label, keep in (("answerable", True), ("no paper on it", False)):
        part = sorted(r["best_probability"] for r in rows if r["answerable"] is keep)
        right = sum(r["right_papers"] for r in rows if r["answerable"] is keep)
        if part:
            median = part[len(part) // 2]
            lines.append(f"| {label} | {len(part)} | {right} | {part[0]} | {median} | {part[-1]} |")
    lines += ["", "| answerable | best probability | question | note |", "|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: r["best_probability"]):
        words = r["note"][len(NOTE) :].split(", so")[0]
        lines.append(
            f"| {r['answerable']} | {r['best_probability']} | {r['question'][:80]} | {words} |"
        )
    (RESULTS / "nearest_only_notes.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (RESULTS / "nearest_only_notes.json").write_text(json.dumps(rows, indent=1) + "\n")
    print("\n".join(lines[:6]))


if __name__ == "__main__":
    main()
