"""Is a message that names a topic ever told that it names none?

    .venv/bin/python bench/answers/no_topic_claims.py --index COPY --tag TAG

Asked as a chat's first message (`rag ask`, extractive) over the seed index, every message of
the labelled sets that names a topic: the blind off-topic chat messages
(`bench/data/offtopic_messages.jsonl`), the near-miss and present terse queries
(`near_miss_queries.jsonl`), the off-topic questions (`offtopic_questions.jsonl`) and the
unanswerable abstention questions (`abstention_questions.jsonl`). Counted per set: a paper
cited, "the collection has no paper on this" (abstained), the overview that says the message
"names no topic" (`prompts.NO_TOPIC`: false for all of them), and the overview that says no
paper matched its words (`prompts.NO_MATCH_TOPIC`).
Results: bench/results/no_topic_claims_TAG.json and, for every tag, no_topic_claims.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rag import api  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data"
RESULTS = ROOT / "bench" / "results"


def messages() -> dict[str, list[str]]:
    """The topical messages of each labelled set, by set name."""

    def read(name: str) -> list[dict[str, Any]]:
        return [json.loads(x) for x in (DATA / name).read_text(encoding="utf-8").splitlines()]

    near = read("near_miss_queries.jsonl")
    return {
        "off-topic chat messages": [m["message"] for m in read("offtopic_messages.jsonl")],
        "near-miss queries": [m["q"] for m in near if m["kind"] == "near_miss"],
        "present terse queries": [m["q"] for m in near if m["kind"] == "present"],
        "off-topic questions": [m["question"] for m in read("offtopic_questions.jsonl")],
        "unanswerable questions": [
            m["question"] for m in read("abstention_questions.jsonl") if not m["answerable"]
        ],
    }


def outcome(answer: api.Answer) -> str:
    if answer.citations:
        return "cited"
    if answer.abstained:
        return "no paper"
    if "names no topic" in answer.answer:
        return "names no topic"
    if "none matches the words" in answer.answer:
        return "none matches"
    return "other"


def report() -> None:
    kinds = ("cited", "no paper", "names no topic", "none matches", "other")
    lines = [
        "# Is a message that names a topic told that it names none? "
        "(`bench/answers/no_topic_claims.py`)",
        "",
        f"| tag | set | asked | {' | '.join(kinds)} |",
        "|---|---|---|" + "---|" * len(kinds),
    ]
    for path in sorted(RESULTS.glob("no_topic_claims_*.json")):
        for name, counts in json.loads(path.read_text())["sets"].items():
            row = " | ".join(str(counts.get(k, 0)) for k in kinds)
            asked = sum(counts.values())
            lines.append(
                f"| {path.stem.removeprefix('no_topic_claims_')} | {name} | {asked} | {row} |"
            )
    (RESULTS / "no_topic_claims.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", help="a copy of the seed index (answers write to it)")
    parser.add_argument("--tag")
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    if args.report:
        report()
        return
    if not args.index or not args.tag:
        parser.error("--index and --tag are needed (or --report)")
    index = Index(Settings(index_dir=Path(args.index)))
    sets, rows = {}, []
    for name, texts in messages().items():
        got = [(t, outcome(api.ask(t, index=index, backend=None))) for t in texts]
        sets[name] = dict(Counter(o for _, o in got))
        rows += [{"set": name, "message": t, "outcome": o} for t, o in got]
    path = RESULTS / f"no_topic_claims_{args.tag}.json"
    path.write_text(json.dumps({"sets": sets, "rows": rows}, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(sets, indent=1))


if __name__ == "__main__":
    main()
