"""Questions that rank what they ask about ("cheapest", "faster", "state-of-the-art", "newest"):
are they answered from their topic?

    .venv/bin/python bench/answers/ranking_words.py --index COPY --tag after

Questions: bench/data/ranking_questions.jsonl (220 over the seeds, written by helpers who read
only the seed files and never ran the assistant). `specific` (130): questions of a sentence or a
long phrase, 90 whose topic, ranking word aside, some seed paper addresses (`answerable`,
labelled with every such paper's first author), 40 in the same forms on topics no seed abstract
addresses. `short` (90, 60 and 30): two to seven words, loosely worded ("cheapest way to align a
model", "fairer classifiers", "Latest in video action recognition"); two of them are the
examples the second helper was given. `form`: the ranking word is a superlative
("cheapest", "most robust"), a comparative ("faster", "less biased"), evaluative
("state-of-the-art", "principled") or about recency ("newest", "2024"). Ids divisible by 3 are
held out. `rag ask` (extractive) answers each; reported per part and per form: recall and
precision of the cited papers on the answerable ones, their false "no paper on this" answers,
and how many unanswerable ones were told so. Writes bench/results/ranking_words_TAG.json and
appends to ranking_words.md.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.answers.labelled_runs import ask_each_from_command_line, write_tagged  # noqa: E402

DATA = ROOT / "bench" / "data" / "ranking_questions.jsonl"
COLUMNS = (
    ("answerable", "answerable"),
    ("recall", "recall"),
    ("precision", "precision"),
    ("false 'no paper'", "false_no_paper"),
    ("unanswerable told so", "unanswerable_told"),
)


def judged(row: dict[str, Any], answer: Any) -> dict[str, Any]:
    """One question's outcome: whether it abstained, and the papers it cited."""
    cited = set() if answer.abstained else {c.hit.paper.authors[0] for c in answer.citations}
    return {
        **{k: row[k] for k in ("id", "set", "q", "form", "split", "answerable", "relevant")},
        "cited": sorted(cited),
        "hits": len(cited & set(row["relevant"])),
        "abstained": answer.abstained,
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    hits = sum(r["hits"] for r in answerable)
    n_rel = sum(len(r["relevant"]) for r in answerable)
    n_cited = sum(len(r["cited"]) for r in answerable)
    return {
        "answerable": len(answerable),
        "recall": round(hits / n_rel, 3) if n_rel else None,
        "precision": round(hits / n_cited, 3) if n_cited else None,
        "false_no_paper": sum(r["abstained"] for r in answerable),
        "unanswerable_told": f"{sum(r['abstained'] for r in unanswerable)}/{len(unanswerable)}",
    }


def main() -> None:
    tag, results = ask_each_from_command_line(__doc__, DATA, judged)
    parts: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        for name in (f"{r['set']} {r['split']}", f"{r['set']} {r['split']}: {r['form']}"):
            parts.setdefault(name, []).append(r)
    table = {name: summary(parts[name]) for name in sorted(parts)}
    text = write_tagged("ranking_words", tag, table, COLUMNS, results)
    print(text)
    for r in results:
        ok = bool(r["hits"]) if r["answerable"] else r["abstained"]
        print(r["id"], r["split"], r["form"], "OK " if ok else "BAD", r["cited"], r["q"])


if __name__ == "__main__":
    main()
