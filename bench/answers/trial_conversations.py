"""Conversations a new user played in a trial (stop 55), replayed: what each turn searched, cited.

    .venv/bin/python bench/answers/trial_conversations.py --index COPY --tag TAG
    .venv/bin/python bench/answers/trial_conversations.py --compare BEFORE AFTER

bench/data/trial_conversations.jsonl holds 34 conversations (127 turns) a helper wrote and
played through `rag.ask` with history, seeing only the README and docs/api.md: broad questions
narrowed by follow-ups, topic switches, returns to an earlier topic, terse follow-ups ("why?",
"source?"), thanks, off-topic and Chinese turns. They carry no labels: the trial's report named
the turns that went wrong, and `--compare` lists every turn whose searched form or cited papers
changed between two tags, to read. Writes bench/results/trial_conversations_TAG.json; the
comparison goes to bench/results/trial_conversations.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rag import api  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data" / "trial_conversations.jsonl"
RESULTS = ROOT / "bench" / "results"


def replay(index: Index) -> list[dict[str, object]]:
    rows = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        conversation = json.loads(line)
        history: list = []  # type: ignore[type-arg]
        for n, question in enumerate(conversation["turns"], start=1):
            answer = api.ask(question, index=index, history=history)
            history.append((question, answer))
            rows.append(
                {
                    "id": f"{conversation['id']} #{n}",
                    "question": question,
                    "searched": answer.standalone,
                    "abstained": answer.abstained,
                    "cited": [c.hit.paper.citation_key for c in answer.citations],
                    "first_line": answer.answer.split("\n")[0][:160],
                }
            )
    return rows


def compare(before: str, after: str) -> str:
    old = json.loads((RESULTS / f"trial_conversations_{before}.json").read_text())
    new = json.loads((RESULTS / f"trial_conversations_{after}.json").read_text())
    lines = [
        f"### {before} -> {after}: turns whose searched form or cited papers changed",
        "",
        "| turn | question | before | after |",
        "|---|---|---|---|",
    ]
    for a, b in zip(old, new, strict=True):
        if (a["searched"], a["cited"]) != (b["searched"], b["cited"]):
            was = f"{a['searched'] or '(as typed)'}: {', '.join(a['cited']) or 'none'}"
            now = f"{b['searched'] or '(as typed)'}: {', '.join(b['cited']) or 'none'}"
            lines.append(f"| {a['id']} | {a['question']} | {was} | {now} |")
    lines.append(f"\n{len(old)} turns replayed; {len(lines) - 4} changed.\n")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, help="a copy of a seed index")
    parser.add_argument("--tag")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        text = compare(*args.compare)
        print(text)
        with (RESULTS / "trial_conversations.md").open("a", encoding="utf-8") as f:
            f.write("\n" + text)
        return
    index = Index(Settings(index_dir=args.index, backend="extractive"))
    rows = replay(index)
    out = RESULTS / f"trial_conversations_{args.tag}.json"
    out.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(rows)} turns -> {out}")


if __name__ == "__main__":
    main()
