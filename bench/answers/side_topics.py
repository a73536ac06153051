"""Does a paper's line hold what ties it to the question? Side topics, and what ties cost.

    .venv/bin/python bench/answers/side_topics.py --index COPY --tag TAG [--split heldout]
        [--tie-share 0.3] [--backend local]

A question whose topic one or two sentences of a paper name, not its headline finding
("mixture of experts routing": TRM names "Mixture-of-Experts routing discontinuities" as the
problem it solves), was answered with the paper's finding alone, which holds none of the
question's words. `rag.answer.compose.tie_sentence` adds the sentence that does.

Sets, each asked with `rag ask` (extractive unless `--backend local`) over the seed index:

- `bench/data/side_topic_questions.jsonl`: 90 such questions written blind from the seed files
  (ids divisible by 3 held out), each with the sentences that address its topic. Scored, for
  each labelled paper the answer cites: its line (every shown sentence citing it) holds a
  labelled sentence; its first sentence is one.
- the seed role questions and list lines (`bench/answers/finding_first.py`'s labels): what the
  tie costs where the wanted sentence is labelled: how many lines gained a sentence, how many of
  those gained a labelled one, and whether the line holds a labelled sentence at all.

`--tie-share` and `--tie-ratio` set `TIE_SHARE` and `TIE_RATIO` (`--tie-share 1.01`: no tie
sentence, the answers before it).
Results: bench/results/side_topics_TAG.json; a table of every tag: bench/results/side_topics.md.
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

from bench.answers.finding_first import (  # noqa: E402
    ROLE_QUESTIONS,
    closest,
    list_questions,
    share,
)
from rag import api  # noqa: E402
from rag.answer import compose  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.ingest.roles import sentence_roles  # noqa: E402
from rag.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"
SIDE_TOPICS = ROOT / "bench" / "data" / "side_topic_questions.jsonl"


def paper_lines(answer: api.Answer, author: str) -> list[str]:
    """Every shown sentence of `answer` that cites the paper whose first author is `author`."""
    numbers = {
        c.n for c in answer.citations if c.hit.paper.authors and c.hit.paper.authors[0] == author
    }
    return [
        s["text"]
        for s in answer.sentences
        if s.get("shown") and not s.get("note") and numbers & set(s.get("citations", []))
    ]


def scored(answer: api.Answer, author: str, wanted: list[str], abstract: str) -> dict[str, Any]:
    """Whether the paper is cited, its line holds a wanted sentence, and opens with one."""
    sents = [s for s, _ in sentence_roles(abstract)]
    places = {closest(w, sents) for w in wanted}
    line = paper_lines(answer, author)
    got = [closest(text, sents) for text in line]
    return {
        "paper": author,
        "cited": bool(line),
        "sentences": len(line),
        "holds": any(g in places for g in got),
        "first": bool(got) and got[0] in places,
        "added_wanted": len(got) > 1 and any(g in places for g in got[1:]),
        "line": line,
    }


def side_set(index: Index, split: str, backend: str | None) -> list[dict[str, Any]]:
    by_author = {p.authors[0] if p.authors else "": p for p in index.papers.values()}
    rows = []
    for q in (json.loads(x) for x in SIDE_TOPICS.read_text(encoding="utf-8").splitlines()):
        if split != "all" and q["split"] != split:
            continue
        answer = api.ask(q["q"], index=index, settings=index.settings, backend=backend)
        for label in [{"paper": q["paper"], "want": q["want"]}, *q.get("also", [])]:
            paper = by_author[label["paper"]]
            rows.append(
                {
                    "id": q["id"],
                    "q": q["q"],
                    **scored(answer, label["paper"], label["want"], paper.abstract),
                }
            )
    return rows


def cost_sets(index: Index, split: str) -> list[dict[str, Any]]:
    """The role questions' and list lines' labelled papers, as `scored`."""
    by_author = {p.authors[0] if p.authors else "": p for p in index.papers.values()}
    rows = []
    for q in (json.loads(x) for x in ROLE_QUESTIONS.read_text(encoding="utf-8").splitlines()):
        if split == "all" or q["split"] == split:
            answer = api.ask(q["q"], index=index, settings=index.settings, backend=None)
            wanted = [q["want"], *q["also_ok"]]
            paper = by_author[q["paper"]]
            rows.append(
                {"set": "role", "q": q["q"], **scored(answer, q["paper"], wanted, paper.abstract)}
            )
    for question, lines in list_questions(split).items():
        answer = api.ask(question, index=index, settings=index.settings, backend=None)
        for line in lines:
            wanted = [line["want"], *line["also_ok"]]
            paper = by_author[line["paper"]]
            rows.append(
                {
                    "set": "lists",
                    "q": question,
                    **scored(answer, line["paper"], wanted, paper.abstract),
                }
            )
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    cited = [r for r in rows if r["cited"]]
    grown = [r for r in cited if r["sentences"] > 1]
    return {
        "labelled": len(rows),
        "cited": len(cited),
        "line_holds_wanted": share(sum(r["holds"] for r in cited), len(cited)),
        "opens_with_wanted": share(sum(r["first"] for r in cited), len(cited)),
        "lines_with_more_sentences": len(grown),
        "of_those_added_wanted": sum(r["added_wanted"] for r in grown),
    }


def report() -> None:
    lines = [
        "# Side topics: does a paper's line hold what ties it to the question? "
        "(`bench/answers/side_topics.py`)",
        "",
        "| tag | set | labelled papers | cited | line holds a wanted sentence | opens with one "
        "| lines of more than one sentence | of those, gained a wanted one |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for path in sorted(RESULTS.glob("side_topics_*.json")):
        for name, r in json.loads(path.read_text())["sets"].items():
            lines.append(
                f"| {path.stem.removeprefix('side_topics_')} | {name} | {r['labelled']} | "
                f"{r['cited']} | {r['line_holds_wanted']:.3f} | {r['opens_with_wanted']:.3f} | "
                f"{r['lines_with_more_sentences']} | {r['of_those_added_wanted']} |"
            )
    (RESULTS / "side_topics.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", help="a copy of the seed index (answers write to it)")
    parser.add_argument("--tag")
    parser.add_argument("--split", default="heldout", choices=("fit", "heldout", "all"))
    parser.add_argument("--tie-share", type=float, default=None)
    parser.add_argument("--tie-ratio", type=float, default=None)
    parser.add_argument("--backend", default=None, choices=(None, "local"))
    parser.add_argument("--no-cost", action="store_true", help="skip the role and list sets")
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    if args.report:
        report()
        return
    if not args.index or not args.tag:
        parser.error("--index and --tag are needed (or --report)")
    if args.tie_share is not None:
        compose.TIE_SHARE = args.tie_share
    if args.tie_ratio is not None:
        compose.TIE_RATIO = args.tie_ratio
    index = Index(Settings(index_dir=Path(args.index)))
    sets: dict[str, Any] = {}
    side = side_set(index, args.split, args.backend)
    sets[f"side topics:{args.split}"] = summary(side)
    rows = {"side": side}
    if not args.no_cost and args.backend is None:
        cost = cost_sets(index, args.split)
        for name in ("role", "lists"):
            part = [r for r in cost if r["set"] == name]
            sets[f"{name}:{args.split}"] = summary(part)
        rows["cost"] = cost
    out = {
        "tie_share": compose.TIE_SHARE,
        "tie_ratio": compose.TIE_RATIO,
        "backend": args.backend or "extractive",
        "sets": sets,
    }
    path = RESULTS / f"side_topics_{args.tag}.json"
    path.write_text(json.dumps({**out, "rows": rows}, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
