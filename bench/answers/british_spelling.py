"""The same question in British spelling: does it get the same papers as in American spelling?

    .venv/bin/python bench/answers/british_spelling.py --index DIR [--out NAME]

The labelled seed questions (bench/data/paper_questions.jsonl, phrasing_needs.jsonl,
multi_paper_questions.jsonl, seed_questions.jsonl) are written in American spelling, as the
seed abstracts are. Each one holding a word with a British spelling is asked twice (`rag ask`,
extractive): as written, and with those words in British spelling ("optimization" as
"optimisation", "labeled" as "labelled", "analyze" as "analyse", "behavior" as "behaviour").
The British form is made by the correspondences below, kept only when it is a word of the
English word list (symspellpy's) or an -ize word written -ise, which British usage always
allows. Nothing here is fitted.

Scored: the share of pairs whose two answers cite the same papers, the mean Jaccard of the cited
sets, the pairs where only the British form abstains, and the recall of the labelled papers for
both forms. Results: bench/results/NAME.md and NAME.json (default british_spelling).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rag import api  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.spelling import english_word  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data"
RESULTS = ROOT / "bench" / "results"
# American ending -> British ending, the first that applies.
TO_BRITISH = (
    (re.compile(r"(?<=\w{2})iz(e|es|ed|er|ers|ing|ation|ations|able)$"), r"is\1"),
    (re.compile(r"(?<=\w)yz(e|es|ed|er|ers|ing)$"), r"ys\1"),
    (re.compile(r"(?<=\w{2})or(s|ed|ing|al|ally|ite|ites|able)?$"), r"our\1"),
    (re.compile(r"(?<=\w{2})ter(s|ed)?$"), r"tre\1"),
    (re.compile(r"(?<=\w{3})og(s)?$"), r"ogue\1"),
    (re.compile(r"(?<=\w{2})ense(s)?$"), r"ence\1"),
    (re.compile(r"(?<=e)l(ed|ing|er|ers)$"), r"ll\1"),
)


def british(text: str) -> str:
    """`text` with its words in British spelling, where a correspondence gives a word."""

    def word(match: re.Match[str]) -> str:
        w = match.group()
        if not w.islower():
            return w
        for i, (pattern, repl) in enumerate(TO_BRITISH):
            v = pattern.sub(repl, w, count=1)
            if v != w and (english_word(v) or i == 0):
                return v
        return w

    return re.sub(r"[A-Za-z]+", word, text)


def questions() -> list[tuple[str, list[str] | None]]:
    """Every labelled seed question with its relevant papers' first authors (None: unlabelled)."""
    out: list[tuple[str, list[str] | None]] = []
    for line in (DATA / "paper_questions.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        out.append((d["q"], d["relevant"]))
    for line in (DATA / "phrasing_needs.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        out += [(q, d["relevant"]) for q in d["phrasings"].values()]
    for line in (DATA / "multi_paper_questions.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        out.append((d["question"], d["gold"]))
    for line in (DATA / "seed_questions.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        out.append((d["question"], [d["author"]]))
    return list(dict((q, (q, r)) for q, r in out).values())


def cited(index: Index, question: str) -> tuple[set[str], bool]:
    answer = api.ask(question, index=index, settings=index.settings, backend=None)
    return {c.hit.paper.authors[0] for c in answer.citations}, answer.abstained


def recall(got: set[str], relevant: list[str] | None) -> float | None:
    return len(got & set(relevant)) / len(relevant) if relevant else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--out", default="british_spelling")
    args = parser.parse_args()
    index = Index(Settings(index_dir=Path(args.index), backend="extractive"))
    rows: list[dict[str, Any]] = []
    for question, relevant in questions():
        other = british(question)
        if other == question:
            continue
        (us, us_abstained), (uk, uk_abstained) = cited(index, question), cited(index, other)
        rows.append(
            {
                "question": question,
                "british": other,
                "same": us == uk,
                "jaccard": len(us & uk) / len(us | uk) if us | uk else 1.0,
                "only_british_abstains": uk_abstained and not us_abstained,
                "recall_us": recall(us, relevant),
                "recall_uk": recall(uk, relevant),
            }
        )
    n = len(rows)
    labelled = [r for r in rows if r["recall_us"] is not None]

    def mean(key: str, part: list[dict[str, Any]]) -> float:
        return sum(r[key] for r in part) / len(part) if part else float("nan")

    summary = {
        "pairs": n,
        "same_papers": sum(r["same"] for r in rows),
        "mean_jaccard": round(mean("jaccard", rows), 3),
        "only_british_abstains": sum(r["only_british_abstains"] for r in rows),
        "labelled": len(labelled),
        "recall_american": round(mean("recall_us", labelled), 3),
        "recall_british": round(mean("recall_uk", labelled), 3),
    }
    lines = [
        "# The same question in British spelling (`bench/answers/british_spelling.py`)",
        "",
        "Command: `.venv/bin/python bench/answers/british_spelling.py --index DIR "
        f"--out {args.out}`",
        "",
        "| pairs | same papers cited | mean Jaccard | only the British form abstains | "
        "labelled | recall, American | recall, British |",
        "|---|---|---|---|---|---|---|",
        f"| {n} | {summary['same_papers']} | {summary['mean_jaccard']} | "
        f"{summary['only_british_abstains']} | {summary['labelled']} | "
        f"{summary['recall_american']} | {summary['recall_british']} |",
        "",
        "Pairs that differ:",
        "",
        *(
            f"- {r['british']!r} (Jaccard {r['jaccard']:.2f}"
            + (", only it abstains)" if r["only_british_abstains"] else ")")
            for r in rows
            if not r["same"]
        ),
    ]
    (RESULTS / f"{args.out}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (RESULTS / f"{args.out}.json").write_text(
        json.dumps({"summary": summary, "rows": rows}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
