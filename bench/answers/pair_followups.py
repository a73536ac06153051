"""Follow-ups asked of two papers shown one answer each, and their look-alikes.

    .venv/bin/python bench/answers/pair_followups.py --index COPY --tag TAG

A new user asked about one paper, then another, then "how do they compare?": the answer was
of the last paper alone ("how do CELL compare?"), and "compare the two papers" was searched
as typed. bench/data/pair_followups.jsonl holds 65 chats a helper wrote blind at stop 58 over
the seeds, each with the papers a right last answer cites (`want`):

- `pair` (30): two answers of one paper each, then a message asking of both in its own words
  ("How do the two differ?", "Which is better?", "Both work at inference time - which gains
  more?"). Right: the last answer cites both; `choice` counts those that cite one of the two,
  as a choice between them may ("Which of those two uses reinforcement learning?");
- `last_authors` (15): the same, then a message about the last paper's authors ("What did
  they find?"): right when it cites that paper alone;
- `it_after_topic` (10): a topic answered from several papers, then "what did it find?":
  right when it cites one of them;
- `named_comparison` (10): one message naming two papers by their methods: both cited.

The rules for pairs were written after reading this set's failures at 743b461, so it is a
fitting set, not a held-out one. Appends to bench/results/pair_followups.md, writes
bench/results/pair_followups_TAG.json.
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

DATA = ROOT / "bench" / "data" / "pair_followups.jsonl"
RESULTS = ROOT / "bench" / "results"
KINDS = ("pair", "last_authors", "it_after_topic", "named_comparison")


def asked(index: Index, row: dict[str, Any]) -> dict[str, Any]:
    """One chat of `row`, turn by turn, with what its last answer cited and whether it is
    right (`right`) or a choice of one of the pair (`choice`)."""
    history: list[Any] = []
    for question in row["turns"]:
        answer = api.ask(question, index=index, history=list(history))
        history.append((question, answer))
    cited = sorted({c.hit.paper.citation_key for c in answer.citations})
    want = row["want"]
    right = {
        "pair": cited == want,
        "last_authors": cited == want,
        "it_after_topic": len(cited) == 1 and set(cited) <= set(want),
        "named_comparison": cited == want,
    }[row["kind"]]
    choice = row["kind"] == "pair" and len(cited) == 1 and set(cited) <= set(want)
    return {**row, "cited": cited, "searched": answer.standalone, "right": right, "choice": choice}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a copy of a seed index")
    parser.add_argument("--tag", required=True)
    parser.add_argument("--data", type=Path, default=DATA, help="another file of such chats")
    args = parser.parse_args()
    index = Index(Settings(index_dir=args.index, backend="extractive"))
    rows = [json.loads(x) for x in args.data.read_text(encoding="utf-8").splitlines() if x]
    done = [asked(index, row) for row in rows]
    lines = [
        f"### {args.tag}" + ("" if args.data == DATA else f" ({args.data.name})"),
        "",
        "| kind | chats | right | a choice of one of the two |",
        "|---|---|---|---|",
    ]
    for kind in KINDS:
        part = [r for r in done if r["kind"] == kind]
        if not part:
            continue
        choices = sum(r["choice"] for r in part) if kind == "pair" else "-"
        lines.append(f"| {kind} | {len(part)} | {sum(r['right'] for r in part)} | {choices} |")
    report = RESULTS / "pair_followups.md"
    if not report.exists():
        report.write_text(
            "# Follow-ups asked of two papers (`bench/answers/pair_followups.py`)\n\n"
        )
    with report.open("a", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n\n")
    (RESULTS / f"pair_followups_{args.tag}.json").write_text(json.dumps(done, indent=1) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
