"""Questions that say what the asker needs the papers for: are they answered from the topic?

    .venv/bin/python bench/answers/purpose_questions.py --index COPY --tag after

Questions: bench/data/purpose_questions.jsonl (38 over the seeds, written before asking them):
a researcher's situation around a topic ("for my thesis I need work on federated learning",
"I'm writing a survey on graph neural networks, what do you have?"). `topic`: the collection
has papers on it, labelled against all 40 abstracts; `off_topic`: it has none, and the answer
should say so; `no_topic`: the message names no topic ("I need papers for my review"), and the
answer should be the collection overview, not a search. Ids whose number is divisible by 3 are
held out. `rag ask` (extractive) answers each; reported: recall and precision of the cited
papers on `topic`, its false "no paper on this" answers and overviews, and how many `off_topic`
and `no_topic` messages got the answer they should. Writes
bench/results/purpose_questions_TAG.json and appends to purpose_questions.md.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.answers.labelled_runs import ask_each_from_command_line, write_tagged  # noqa: E402
from rag import prompts  # noqa: E402

DATA = ROOT / "bench" / "data" / "purpose_questions.jsonl"
COLUMNS = (
    ("topic questions", "topic"),
    ("recall", "recall"),
    ("precision", "precision"),
    ("false 'no paper'", "false_no_paper"),
    ("false overview", "false_overview"),
    ("off-topic said so", "off_topic_said"),
    ("no-topic overview", "no_topic_overview"),
)
OVERVIEW = ("No paper is quoted", "names no topic")  # the overview's openings (rag/prompts.py)


def judged(row: dict[str, Any], answer: Any) -> dict[str, Any]:
    """One message's outcome: what kind of answer it got, and the papers it cited."""
    overview = any(o in answer.answer for o in OVERVIEW) and not answer.citations
    no_paper = answer.abstained and prompts.ABSTAIN.split(".")[0] in answer.answer
    cited = (
        set()
        if answer.abstained or overview
        else {c.hit.paper.authors[0] for c in answer.citations}
    )
    return {
        "id": row["id"],
        "q": row["q"],
        "kind": row["kind"],
        "split": row["split"],
        "cited": sorted(cited),
        "hits": len(cited & set(row["relevant"])),
        "relevant": len(row["relevant"]),
        "overview": overview,
        "no_paper": no_paper,
        "right": {
            "topic": bool(cited & set(row["relevant"])),
            "off_topic": no_paper,
            "no_topic": overview,
        }[row["kind"]],
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    topic = [r for r in rows if r["kind"] == "topic"]
    hits = sum(r["hits"] for r in topic)
    n_rel = sum(r["relevant"] for r in topic)
    n_cited = sum(len(r["cited"]) for r in topic)
    return {
        "topic": len(topic),
        "recall": round(hits / n_rel, 3) if n_rel else None,
        "precision": round(hits / n_cited, 3) if n_cited else None,
        "false_no_paper": sum(r["no_paper"] for r in topic),
        "false_overview": sum(r["overview"] for r in topic),
        "off_topic_said": f"{sum(r['right'] for r in rows if r['kind'] == 'off_topic')}"
        f"/{sum(r['kind'] == 'off_topic' for r in rows)}",
        "no_topic_overview": f"{sum(r['right'] for r in rows if r['kind'] == 'no_topic')}"
        f"/{sum(r['kind'] == 'no_topic' for r in rows)}",
    }


def main() -> None:
    tag, results = ask_each_from_command_line(__doc__, DATA, judged)
    parts = {
        "fit": [r for r in results if r["split"] == "fit"],
        "heldout": [r for r in results if r["split"] == "heldout"],
    }
    table = {name: summary(rs) for name, rs in parts.items()}
    text = write_tagged("purpose_questions", tag, table, COLUMNS, results)
    print(text)
    for r in results:
        print(r["id"], r["split"], r["kind"], "OK " if r["right"] else "BAD", r["cited"], r["q"])


if __name__ == "__main__":
    main()
