"""One library exported twice: what an ingest of both files keeps of each paper's metadata.

    .venv/bin/python bench/ingest/duplicate_copies.py [--data ../shared/data/csabstruct] [--n 60]
                                                      [--tag TAG]

A user's Zotero `.bib` and Mendeley `.ris` of the same library (a new user's trial, stop 57):
`--n` CSAbstruct abstracts (test split) are written twice, as a `.bib` whose entries carry the
user's citation key and, for every other paper, no DOI, and as a `.ris` whose records carry the
DOI and no key (nor `ID`), with titles, authors and years alike. Both files are ingested into
a fresh index (the bundled MiniLM), in both orders, and the stored records are compared with
what the two copies gave together: papers stored, DOIs kept, user keys kept, and whether both
orders store the same records. Appends a table to bench/results/duplicate_copies.md. Skips
(exit 0) when CSAbstruct is not there.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rag.index.paper_index import Index  # noqa: E402
from rag.ingest.pipeline import ingest  # noqa: E402
from rag.settings import Settings  # noqa: E402

SURNAMES = "Smith Chen Garcia Novak Okafor Tanaka Rossi Larsen Dubois Kowalski".split()  # noqa: SIM905


def library(data: Path, n: int) -> list[dict[str, str]]:
    """The first `n` CSAbstruct test abstracts, with invented metadata."""
    rows = [json.loads(line) for line in (data / "test.jsonl").open(encoding="utf-8")][:n]
    papers = []
    for i, row in enumerate(rows):
        first, second = SURNAMES[i % 10], SURNAMES[(i * 3 + 1) % 10]
        papers.append(
            {
                "key": f"{first.lower()}_paper{i}_{2015 + i % 6}",
                "authors": [f"{first}, Ann", f"{second}, Bo"],
                "title": f"Paper {i}: " + " ".join(row["sentences"][0].split()[:6]),
                "year": str(2015 + i % 6),
                "doi": f"10.0000/cs.{i}",
                "abstract": " ".join(row["sentences"]),
            }
        )
    return papers


def write_bib(papers: list[dict[str, str]], path: Path) -> None:
    entries = []
    for i, p in enumerate(papers):
        doi = f"  doi = {{{p['doi']}}},\n" if i % 2 == 0 else ""  # every other one has none
        authors = " and ".join(p["authors"])
        entries.append(
            f"@article{{{p['key']},\n  author = {{{authors}}},\n  title = {{{p['title']}}},\n"
            f"  year = {{{p['year']}}},\n{doi}  abstract = {{{p['abstract']}}}\n}}\n"
        )
    path.write_text("\n".join(entries), encoding="utf-8")


def write_ris(papers: list[dict[str, str]], path: Path) -> None:
    records = []
    for p in papers:
        lines = ["TY  - JOUR", *(f"AU  - {a}" for a in p["authors"])]
        lines += [f"TI  - {p['title']}", f"PY  - {p['year']}", f"DO  - {p['doi']}"]
        lines += [f"AB  - {p['abstract']}", "ER  - "]
        records.append("\n".join(lines))
    path.write_text("\n\n".join(records) + "\n", encoding="utf-8")


def stored(files: list[Path], folder: Path) -> dict[str, tuple[str, str | None]]:
    """Ingest `files` into a new index at `folder`; each stored title's key and DOI."""
    index = Index(Settings(index_dir=folder), create=True)
    ingest(files, index)
    return {p.title or "": (p.citation_key, p.doi) for p in index.papers.values()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "csabstruct"))
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    data = Path(args.data)
    if not (data / "test.jsonl").exists():
        print(f"CSAbstruct not found at {data}: skipped")
        return
    papers = library(data, args.n)
    with tempfile.TemporaryDirectory() as tmp:
        bib, ris = Path(tmp) / "zotero.bib", Path(tmp) / "mendeley.ris"
        write_bib(papers, bib)
        write_ris(papers, ris)
        first = stored([bib, ris], Path(tmp) / "bib-first")
        second = stored([ris, bib], Path(tmp) / "ris-first")
    rows = []
    for order, got in (("bib, ris", first), ("ris, bib", second)):
        dois = sum(got.get(p["title"], ("", None))[1] == p["doi"] for p in papers)
        keys = sum(got.get(p["title"], ("", None))[0] == p["key"] for p in papers)
        rows.append(f"| {order} | {len(papers)} | {len(got)} | {dois} | {keys} |")
    same = "yes" if first == second else "no"
    table = "\n".join(
        [
            f"\n### {args.tag or 'run'}\n",
            "| files, in order | papers | stored | DOI kept | user's key kept |",
            "|---|---|---|---|---|",
            *rows,
            f"\nBoth orders store the same records: {same}.",
        ]
    )
    print(table)
    out = ROOT / "bench" / "results" / "duplicate_copies.md"
    if not out.exists():
        out.write_text(
            "# One library in two files: what an ingest of both keeps\n\n"
            "Command: `.venv/bin/python bench/ingest/duplicate_copies.py --tag TAG`\n",
            encoding="utf-8",
        )
    with out.open("a", encoding="utf-8") as f:
        f.write(table + "\n")


if __name__ == "__main__":
    main()
