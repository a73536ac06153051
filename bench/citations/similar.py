"""Check `rag similar` methods on SciFact: papers cited by the same claim as the related ones.

    .venv/bin/python bench/citations/similar.py --index /tmp/scifact_index    # a SciFact index (a
    copy)

There is no graded "similar papers" set here (the expert-graded one is held back), so this is a
proxy: two abstracts that one SciFact training claim cites (or that its evidence names) bear on
the same finding, so each should come up among the other's related papers. For every such
abstract, the methods of `rag.similar` rank the whole index; reported: recall@5 / @20 of the
co-cited abstracts, MRR, and the milliseconds per lookup (warm, median). Writes
bench/results/similar.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from bench.citations import stance_data  # noqa: E402
from rag.cite.similar import METHODS, similar  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def related_pairs() -> dict[str, set[str]]:
    """Return, per SciFact doc id, the other docs a claim cites together with it."""
    related: dict[str, set[str]] = {}
    for claim in stance_data.load_claims():
        docs = set(claim.cited) | {e.doc_id for e in claim.evidence}
        for d in docs:
            related.setdefault(d, set()).update(docs - {d})
    return {d: r for d, r in related.items() if r}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=0, help="Only the first N query papers.")
    args = parser.parse_args()
    if not stance_data.available():
        sys.exit(f"SciFact claims not found under {stance_data.SHARED}: nothing to check.")
    index = Index(Settings(index_dir=args.index, backend="extractive"))
    by_doc = {p.external_id: p for p in index.papers.values() if p.external_id}
    related = {d: r & set(by_doc) for d, r in related_pairs().items() if d in by_doc}
    related = {d: r for d, r in sorted(related.items()) if r}
    if args.limit:
        related = dict(list(related.items())[: args.limit])
    out = {"query_papers": len(related), "methods": {}}
    lines = [
        f"{len(related)} SciFact abstracts that a claim cites with another one.",
        "",
        "| method | recall@5 | recall@20 | MRR@20 | ms per lookup (median) |",
        "|---|---|---|---|---|",
    ]
    for method in METHODS:
        similar(index, next(iter(by_doc.values())), k=20, method=method)  # warm
        r5 = r20 = rr = 0.0
        seconds = []
        for doc, others in sorted(related.items()):
            t0 = time.perf_counter()
            hits = similar(index, by_doc[doc], k=20, method=method)
            seconds.append(time.perf_counter() - t0)
            ranked = [h.paper.external_id for h in hits]
            r5 += len(others & set(ranked[:5])) / len(others)
            r20 += len(others & set(ranked)) / len(others)
            rr += next((1 / (i + 1) for i, d in enumerate(ranked) if d in others), 0.0)
        n = len(related)
        row = {
            "recall@5": round(r5 / n, 3),
            "recall@20": round(r20 / n, 3),
            "mrr@20": round(rr / n, 3),
            "ms_median": round(statistics.median(seconds) * 1000, 1),
        }
        out["methods"][method] = row
        lines.append(
            f"| {method} | {row['recall@5']:.3f} | {row['recall@20']:.3f} | {row['mrr@20']:.3f} "
            f"| {row['ms_median']:.0f} |"
        )
        print(lines[-1], flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "similar.json").write_text(json.dumps(out, indent=2) + "\n")
    (RESULTS / "similar.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
