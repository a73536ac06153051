"""Which words a slip in how a question is asked is read as ("discus" as "discuss"), on every
question the benches hold and SciFact's training claims.

    .venv/bin/python bench/answers/asking_slips.py --index SEED_COPY [--scifact-index DIR]

`rag.index.spelling` reads a word no paper holds as the word of `rag.text.FRAME_WORDS` one slip
from it ("discus", an English word, only because "discuss" is 47 times as common). This lists
every question of bench/data/*.jsonl (over the seeds) and every SciFact training claim (over
DIR/eval-scifact) whose corrected form differs from the form without that reading, so a reading
that damages a real term shows. Nothing is fitted. Writes bench/results/asking_slips.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.chat_sessions import shared_data  # noqa: E402
from rag.index import spelling  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.settings import Settings  # noqa: E402


def bench_questions() -> list[str]:
    found: set[str] = set()
    for path in sorted((ROOT / "bench" / "data").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip().startswith("{") else {}
            found.update(row[k] for k in ("question", "q", "first", "second") if k in row)
            found.update(t["q"] for t in row.get("turns", ()) if isinstance(t, dict) and "q" in t)
    return sorted(q for q in found if isinstance(q, str))


def changed(index: Index, questions: list[str]) -> list[tuple[str, str, str]]:
    rows = []
    for q in questions:
        read = spelling.corrected(index, q)
        with mock.patch.object(spelling, "_asking_slip", lambda word: None):
            without = spelling.corrected(index, q)
        if read != without:
            rows.append((q, without, read))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a copy of a seed index")
    parser.add_argument("--scifact-index", type=Path, default=None)
    args = parser.parse_args()
    parts = [("bench questions over the seeds", Index(Settings(index_dir=args.index)), None)]
    claims = shared_data() / "scifact" / "queries.jsonl"
    if args.scifact_index is not None and claims.is_file():
        folder = args.scifact_index / "eval-scifact"
        index = Index(Settings(index_dir=folder, collection="eval-scifact"))
        texts = [json.loads(x)["text"] for x in claims.read_text().splitlines() if x.strip()]
        parts.append(("SciFact training claims over SciFact", index, texts))
    lines = [
        "# Slips in how a question is asked",
        "",
        f"Command: `{__doc__.split(chr(10))[3].strip()}`",
        "",
    ]
    for name, index, texts in parts:
        questions = texts if texts is not None else bench_questions()
        rows = changed(index, questions)
        lines += [f"## {name}: {len(questions)} questions, {len(rows)} read otherwise", ""]
        lines += ["| typed | without the reading | with it |", "|---|---|---|"]
        lines += [f"| {q} | {a} | {b} |" for q, a, b in rows]
        lines.append("")
    text = "\n".join(lines)
    print(text)
    (ROOT / "bench" / "results" / "asking_slips.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
