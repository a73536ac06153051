"""Everyday messages in the words the abstracts use, asked as a chat's first message.

    .venv/bin/python bench/answers/everyday_messages.py --index COPY [--out everyday_messages]

`bench/data/everyday_common_words.jsonl` (written blind by a helper who read only the seed
files; ids divisible by 3 held out) holds 150 everyday messages whose words the seed abstracts
use ("what time is it?": Pei et al.'s time-series paper holds "time"; "whats 18 times 27") and
60 terse research queries in the same words, each with every seed paper that addresses it.
Each is asked (`rag.api.ask`, extractive, no history). Counted per part: everyday messages
answered from papers (none should be), research queries left unanswered and those citing a
paper that addresses them. Writes bench/results/OUT.md and .json. Nothing is fitted.
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

from bench.answers.paper_choice import read  # noqa: E402
from rag import api  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def asked(index: Index, message: dict[str, Any]) -> dict[str, Any]:
    """What the answer to `message` used: whether papers, and their first authors."""
    settings = index.settings.model_copy(update={"backend": "extractive"})
    answer = api.ask(message["message"], settings=settings, index=index)
    used = bool(answer.citations) and not answer.abstained
    cited = sorted({c.hit.paper.authors[0] for c in answer.citations}) if used else []
    return {**message, "used": used, "cited": cited, "answer": answer.answer[:200]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a seed index (a copy)")
    parser.add_argument("--out", default="everyday_messages")
    args = parser.parse_args()
    index = Index(Settings(index_dir=args.index))
    rows = [asked(index, m) for m in read("everyday_common_words.jsonl")]
    lines = [
        "# Everyday messages in the abstracts' words, as a first message",
        "",
        f"Command: `.venv/bin/python bench/answers/everyday_messages.py --index COPY --out "
        f"{args.out}`",
        "",
        "| part | everyday messages answered from papers | research queries unanswered | "
        "research queries citing a paper on them |",
        "|---|---|---|---|",
    ]
    wrong = []
    for part in ("fit", "heldout"):
        chat = [r for r in rows if r["split"] == part and r["kind"] != "research"]
        research = [r for r in rows if r["split"] == part and r["kind"] == "research"]
        used = [r for r in chat if r["used"]]
        right = sum(bool(set(r["cited"]) & set(r["relevant"])) for r in research)
        unanswered = sum(not r["used"] for r in research)
        lines.append(
            f"| {part} | {len(used)}/{len(chat)} | {unanswered}/{len(research)} | "
            f"{right}/{len(research)} |"
        )
        wrong += [f"- {part}: “{r['message']}”: {r['answer'][:120]}" for r in used]
    lines += ["", "Everyday messages answered from papers:", "", *wrong]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.out}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (RESULTS / f"{args.out}.json").write_text(
        json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8"
    )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
