"""Which misspelled query words `rag/index/spelling.py` reads as the collection's, and at what cost.

    .venv/bin/python bench/answers/spelling.py [--scifact-index DIR]

Two labelled sets, and the rule against its variants (shortest word corrected; a replaced
letter counted as a slip or not):

- the seed questions of `bench/data/paper_questions.jsonl` whose form is "typo" (18), with their
  misspelled words and the words meant in `bench/data/spelling_seed_typos.jsonl`: is each read
  as the word meant, and is nothing else changed?
- SciFact's 809 training claims over the SciFact abstracts (`DIR/eval-scifact`, as
  `bench/answers/finding_first.py` builds it): every word a variant changes, labelled in
  `bench/data/spelling_scifact.jsonl` with the word the claim meant (a real typo) or null (a
  real term the collection lacks: a gene, an anatomical term, a species).

A fix is a typo read as the word meant; damage is a real term read as another word. Writes
bench/results/spelling.md. The SciFact part is skipped, with a line, when the index is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rag.index import spelling  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data"
CLAIMS = ROOT.parent / "shared" / "data" / "scifact-claims" / "claims_train.jsonl"
LETTERS = "abcdefghijklmnopqrstuvwxyz"
SLIPS = spelling.slips
SHIPPED = (spelling.MIN_LENGTH, False)
VARIANTS = [(4, True), (4, False), (5, False), (6, True), SHIPPED, (7, False)]


def with_replacements(word: str) -> set[str]:
    """Slips plus a letter replaced by another (the edit the shipped rule leaves out)."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return SLIPS(word) | {a + c + b[1:] for a, b in splits if b for c in LETTERS} - {word}


def changes(index: Index, texts: list[str], variant: tuple[int, bool]) -> dict[str, str]:
    """Return {typed word: word read} over `texts` under one variant of the rule."""
    min_length, replace = variant
    saved = spelling.MIN_LENGTH, spelling.slips
    spelling.MIN_LENGTH = min_length
    if replace:
        spelling.slips = with_replacements  # type: ignore[assignment]
    try:
        out = {}
        for text in texts:
            for word in re.findall(r"[A-Za-z0-9]+", text):
                read = spelling.correction(index, word)
                if read:
                    out[word] = read
        return out
    finally:
        spelling.MIN_LENGTH, spelling.slips = saved  # type: ignore[assignment]


def name(variant: tuple[int, bool]) -> str:
    shipped = " (shipped)" if variant == SHIPPED else ""
    edits = "slips and replaced letters" if variant[1] else "slips only"
    return f"{variant[0]}+ letters, {edits}{shipped}"


def seeds_part(index: Index) -> list[str]:
    rows = [json.loads(x) for x in (DATA / "paper_questions.jsonl").read_text().splitlines() if x]
    typos = [r for r in rows if r["form"] == "typo"]
    labelled = DATA / "spelling_seed_typos.jsonl"
    meant = {
        w: m for x in labelled.read_text().splitlines() for w, m in json.loads(x)["typos"].items()
    }
    lines = [
        f"### Seed typo questions ({len(typos)}, {len(meant)} misspelled words labelled)",
        "",
        "| rule | typos read as meant | typos left | other words changed |",
        "|---|---|---|---|",
    ]
    for v in VARIANTS:
        got = changes(index, [r["q"] for r in typos], v)
        right = sum(got.get(w) == m for w, m in meant.items())
        other = sorted(f"{w}→{r}" for w, r in got.items() if w not in meant)
        left = sorted(w for w, m in meant.items() if got.get(w) != m)
        lines.append(f"| {name(v)} | {right} | {', '.join(left)} | {', '.join(other) or '0'} |")
    return lines


def scifact_part(index: Index) -> list[str]:
    claims = [json.loads(x)["claim"] for x in CLAIMS.read_text().splitlines() if x]
    labels = {
        r["typed"]: r["meant"]
        for r in map(json.loads, (DATA / "spelling_scifact.jsonl").read_text().splitlines())
    }
    lines = [
        f"### SciFact training claims ({len(claims)}) over the 5,183 SciFact abstracts",
        "",
        "| rule | words changed | typos fixed | real terms damaged | typos misread "
        "| not labelled |",
        "|---|---|---|---|---|---|",
    ]
    for v in VARIANTS:
        got = changes(index, claims, v)
        fixed = sum(labels.get(w, "?") == r for w, r in got.items())
        damaged = sorted(f"{w}→{r}" for w, r in got.items() if w in labels and not labels[w])
        misread = sum(bool(labels.get(w)) and labels[w] != r for w, r in got.items())
        unknown = sorted(w for w in got if w not in labels)
        lines.append(
            f"| {name(v)} | {len(got)} | {fixed} | {len(damaged)}: {', '.join(damaged) or '-'} "
            f"| {misread} | {', '.join(unknown) or '0'} |"
        )
    return lines


def cost_part(index: Index) -> list[str]:
    """What correcting costs a query: the word list's first load, then each look-up."""
    import time

    spelling._english.cache_clear()
    index.bm25()  # loaded by the search in any case
    known = "label noise in graph neural networks"
    t0 = time.perf_counter()
    spelling.corrected(index, known)
    known_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    spelling.corrected(index, "graph nueral netwroks")
    first_s = time.perf_counter() - t0
    rows = [json.loads(x) for x in (DATA / "paper_questions.jsonl").read_text().splitlines() if x]
    t0 = time.perf_counter()
    for r in rows:
        spelling.corrected(index, r["q"])
    each_ms = (time.perf_counter() - t0) / len(rows) * 1000
    return [
        "### Cost (in process, seed index)",
        "",
        "| query | time |",
        "|---|---|",
        f"| every word known to the collection (no word list read) | {known_s * 1000:.2f} ms |",
        f"| first unknown word in a process (reads the word list) | {first_s * 1000:.0f} ms |",
        f"| then, each of the {len(rows)} labelled questions | {each_ms:.2f} ms |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, default=ROOT / "bench" / "work" / "seeds-index")
    parser.add_argument("--scifact-index", type=Path, default=ROOT / "bench" / "work" / "scifact")
    args = parser.parse_args()
    from bench.answers.paper_choice import open_index

    lines = ["# Misspelled query words (`rag/index/spelling.py`)", ""]
    lines += [
        "Command: `.venv/bin/python bench/answers/spelling.py --scifact-index DIR` (DIR holding "
        "`eval-scifact`, as `bench/answers/finding_first.py` builds it)",
        "",
    ]
    seeds = open_index(args.index)
    lines += [*cost_part(seeds), "", *seeds_part(seeds), ""]
    folder = args.scifact_index / "eval-scifact"
    if (folder / "chroma.sqlite3").exists() and CLAIMS.exists():
        sf = Index(Settings(index_dir=folder, collection="eval-scifact"))
        lines += scifact_part(sf)
    else:
        lines.append(f"SciFact part skipped: no index at {folder} or no claims at {CLAIMS}.")
    text = "\n".join(lines) + "\n"
    (ROOT / "bench" / "results" / "spelling.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
