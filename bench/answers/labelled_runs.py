"""What the benches that ask labelled seed questions share: asking each, writing the tagged results.

`ask_each` answers every question of a JSON-lines file (`q`) with `rag ask` (extractive) over a
copy of a seed index (`ask_each_from_command_line`: from such a bench's `--index COPY --tag
TAG`); `write_tagged` writes bench/results/NAME_TAG.json (the per-part table and
every question's outcome) and appends the table, under its tag, to bench/results/NAME.md.

The two-turn benches (a first message, then a follow-up) share `follow_ups_asked`, which asks
each session's `first` and then its `second` with the first answer as history, and
`write_sessions`, which writes every session's outcome to bench/results/NAME_TAG.json and
appends the table to bench/results/NAME.md (headed by the bench's docstring when new), and
`session_bench`, their command line (`--index COPY --tag TAG`); `cited_recall_precision` scores
the cited papers of a part of them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.paper_choice import open_index  # noqa: E402
from rag import api  # noqa: E402
from rag.answer.rendering import Answer  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def ask_each(
    index_dir: Path, data: Path, judged: Callable[[dict[str, Any], Any], dict[str, Any]]
) -> list[dict[str, Any]]:
    """Return `judged(row, answer)` for every row of `data`, asked as a chat's first message."""
    index = open_index(index_dir)
    settings = index.settings.model_copy(update={"backend": "extractive"})
    rows = [json.loads(x) for x in data.read_text(encoding="utf-8").splitlines() if x]
    return [judged(r, api.ask(r["q"], settings=settings, index=index)) for r in rows]


def ask_each_from_command_line(
    doc: str, data: Path, judged: Callable[[dict[str, Any], Any], dict[str, Any]]
) -> tuple[str, list[dict[str, Any]]]:
    """Run a bench that asks each labelled question from the command line (`--index COPY
    --tag TAG`, described by the bench's `doc`): return the tag and `ask_each`'s outcomes."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a copy of a seed index")
    parser.add_argument("--tag", default="after")
    args = parser.parse_args()
    return args.tag, ask_each(args.index, data, judged)


def write_tagged(
    name: str,
    tag: str,
    table: Mapping[str, Mapping[str, Any]],
    columns: Sequence[tuple[str, str]],
    results: list[dict[str, Any]],
) -> str:
    """Write the results of run `tag` of bench `name`; return the table's text. `columns`:
    (heading, key of a part's summary), after the part's name."""
    RESULTS.mkdir(exist_ok=True)
    out = {"tag": tag, "parts": table, "questions": results}
    (RESULTS / f"{name}_{tag}.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [
        f"### {tag}",
        "",
        "| part | " + " | ".join(heading for heading, _ in columns) + " |",
        "|---" * (len(columns) + 1) + "|",
    ]
    for part, s in table.items():
        lines.append(f"| {part} | " + " | ".join(f"{s[key]}" for _, key in columns) + " |")
    text = "\n".join(lines) + "\n"
    with (RESULTS / f"{name}.md").open("a", encoding="utf-8") as f:
        f.write("\n" + text)
    return text


def follow_ups_asked(
    index: Index, sessions: Iterable[dict[str, Any]]
) -> Iterator[tuple[dict[str, Any], Answer, Answer]]:
    """Yield each session with its two answers (extractive): `first` asked as a chat's first
    message, then `second` with that exchange as the history."""
    settings = index.settings
    for s in sessions:
        first = api.ask(s["first"], settings=settings, index=index, backend=None)
        second = api.ask(
            s["second"], settings=settings, index=index, backend=None, history=[(s["first"], first)]
        )
        yield s, first, second


def write_sessions(
    name: str, title: str, doc: str, tag: str, rows: list[dict[str, Any]], table: list[str]
) -> None:
    """Write run `tag` of two-turn bench `name`: every session's outcome to NAME_TAG.json, and
    its `table` lines appended to NAME.md (a new file opens with `title` and `doc`); print them."""
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}_{tag}.json").write_text(
        json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    md = RESULTS / f"{name}.md"
    head = [] if md.exists() else [f"# {title}", "", doc, ""]
    with md.open("a", encoding="utf-8") as f:
        f.write("\n".join([*head, *table]) + "\n")
    print("\n".join(table))


def cited_recall_precision(part: Sequence[Mapping[str, Any]]) -> tuple[float, float]:
    """Recall and precision of the papers `part`'s sessions cited (`cited`, `hits`) against
    their labels (`relevant`), pooled over the sessions (NaN where nothing counts)."""
    relevant = sum(len(r["relevant"]) for r in part)
    cited = sum(len(r["cited"]) for r in part)
    hits = sum(r["hits"] for r in part)
    return (
        round(hits / relevant, 3) if relevant else float("nan"),
        round(hits / cited, 3) if cited else float("nan"),
    )


def session_bench(
    name: str,
    title: str,
    doc: str,
    run: Callable[[Path], list[dict[str, Any]]],
    table: Callable[[list[dict[str, Any]], str], list[str]],
) -> list[dict[str, Any]]:
    """Run two-turn bench `name` from the command line (`--index COPY --tag TAG`): its sessions
    asked by `run`, written with `table` by `write_sessions`; return their outcomes."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a copy of a seed index")
    parser.add_argument("--tag", default="run")
    args = parser.parse_args()
    rows = run(args.index)
    write_sessions(name, title, doc, args.tag, rows, table(rows, args.tag))
    return rows
