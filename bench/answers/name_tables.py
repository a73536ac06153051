"""What reading names in questions costs: the people and method-name tables, by collection size.

    .venv/bin/python bench/answers/name_tables.py [--sizes 1000,10000,100000]

`rag/answer/people.py` and `rag/answer/named_papers.py` build a table of the collection's names
on the first question a process answers (and again after an ingest or a refresh); later
questions only look their words up. This times both on generated catalogs (six authors a paper,
a third of the names accented, a derived label with a method name), beside the cost of one
fold of every author name, which the people table cannot do with less. Writes
bench/results/name_tables.md.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rag.answer import named_papers, people  # noqa: E402
from rag.records import Paper  # noqa: E402
from rag.text import fold  # noqa: E402

FIRST = "Wei Yifan Ming Li Hao Jun Anna Oğuz José Maria Ke Xiao".split()  # noqa: SIM905
LAST = "Ju Wang Zhang Chen Li Müller Smith Yüksel Garcia Kim Sun Deng".split()  # noqa: SIM905


def catalog(n: int, rng: random.Random) -> dict[str, Paper]:
    papers = {}
    for i in range(n):
        authors = tuple(
            f"{rng.choice(FIRST)} {rng.choice(LAST)}{rng.randint(0, 999)}" for _ in range(6)
        )
        label = f"{authors[0].split()[1]} et al. — M{i}"
        papers[str(i)] = Paper(str(i), authors, "x", label=label, label_derived=True)
    return papers


def timed(run: object) -> float:
    t0 = time.perf_counter()
    run()  # type: ignore[operator]
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    rng = random.Random(0)
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        index = SimpleNamespace(papers=catalog(n, rng))
        folds = timed(lambda: [fold(a) for p in index.papers.values() for a in p.authors])  # noqa: B023
        first = timed(lambda: people.named_people(index, "graph neural networks"))  # noqa: B023
        later = timed(lambda: people.named_people(index, "what do Wang et al. find?"))  # noqa: B023
        named = timed(lambda: named_papers.named_papers(index, "M1 vs M2"))  # noqa: B023
        rows.append((n, folds, first, later, named))
        print(rows[-1], flush=True)
    lines = [
        "# Reading names in questions: the cost of the name tables",
        "",
        "Command: `.venv/bin/python bench/answers/name_tables.py` (generated catalogs; one run, "
        "one machine).",
        "",
        "| papers | fold every author (s) | people table, first question (s) | times the fold "
        "| a later question (ms) | method-name table (s) |",
        "|---|---|---|---|---|---|",
    ]
    for n, folds, first, later, named in rows:
        lines.append(
            f"| {n:,} | {folds:.2f} | {first:.2f} | {first / folds:.1f} | {later * 1000:.1f} "
            f"| {named:.2f} |"
        )
    out = ROOT / "bench" / "results" / "name_tables.md"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(out.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
