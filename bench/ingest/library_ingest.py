"""A library-sized reference export: 5,000 entries, a third without an abstract.

Run from the repository root (about two minutes on two cores):

    .venv/bin/python bench/ingest/library_ingest.py [--entries 5000]

The libraries are the ones tests/ingest/test_title_only.py generates (tests/library_export.py): a
Zotero-style BibTeX export and a Better BibTeX CSL-JSON export. For each: the time to parse
the file, and to ingest it into a new embedded index with the tests' fake embedding (so the
figure is what the library costs apart from the model; the model's rate is in
bench/results/ingest_speed.md and long_abstracts.md), with and without `--title-only`.
Results go to bench/results/library_ingest.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from rag.index.paper_index import Index  # noqa: E402
from rag.ingest.parsers import parse_path  # noqa: E402
from rag.ingest.pipeline import ingest  # noqa: E402
from rag.settings import Settings  # noqa: E402
from tests.fake_embedding import FakeEmbedding  # noqa: E402
from tests.library_export import entries, write_csl_json, write_zotero_bib  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def run(path: Path, folder: Path, title_only: bool) -> dict[str, Any]:
    start = time.perf_counter()
    parsed = parse_path(path)
    parse_s = time.perf_counter() - start
    name = f"{path.stem}-{'title' if title_only else 'plain'}"
    index = Index(Settings(index_dir=folder / name), FakeEmbedding(), create=True)
    start = time.perf_counter()
    report = ingest([path], index, title_only=title_only)
    ingest_s = time.perf_counter() - start
    return {
        "file": path.name,
        "title_only": title_only,
        "with_abstract": len(parsed.papers),
        "without_abstract": len(parsed.no_abstract),
        "added": report.added,
        "errors": len(report.errors),
        "notes": list(report.notes),
        "parse_s": round(parse_s, 2),
        "ingest_s": round(ingest_s, 2),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=5000)
    parser.add_argument("--out", default="library_ingest")
    args = parser.parse_args()
    items = entries(args.entries, without=3)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = [
            write_zotero_bib(folder / "zotero.bib", items),
            write_csl_json(folder / "better-bibtex.json", items),
        ]
        rows = [run(path, folder, keep) for path in files for keep in (False, True)]
    result = {
        "entries": args.entries,
        "rows": rows,
        "machine": f"{os.cpu_count()} CPU cores, {platform.machine()}, "
        f"Python {platform.python_version()}",
        "command": " ".join(["bench/ingest/library_ingest.py", *sys.argv[1:]]),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / f"{args.out}.md").write_text(render(result))
    print(render(result))


def render(r: dict[str, Any]) -> str:
    lines = [
        f"A generated library of {r['entries']:,} entries, a third without an abstract, "
        f"fake embedding, embedded Chroma, {r['machine']}.",
        "",
        "| File | `--title-only` | With abstract | Without | Added | Errors | Parse (s) | "
        "Ingest (s) | Load |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in r["rows"]:
        lines.append(
            f"| {row['file']} | {'yes' if row['title_only'] else 'no'} | {row['with_abstract']} "
            f"| {row['without_abstract']} | {row['added']} | {row['errors']} | {row['parse_s']} "
            f"| {row['ingest_s']} | {row['load_average_1min']} |"
        )
    notes = sorted({n.split(": ", 1)[1] for row in r["rows"] for n in row["notes"]})
    lines += ["", "The one line each file's ingest printed:", ""]
    lines += [f"- {note}" for note in notes]
    lines += ["", f"Command: `.venv/bin/python {r['command']}`", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
