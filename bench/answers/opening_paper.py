"""Which of an answer's papers should open it? Scored on SciFact claims: is the claim's paper first?

    .venv/bin/python bench/answers/opening_paper.py --index DIR [--part tune|held_out]

An answer opens with the paper the per-paper judgement rates most probable
(`rag/answer/paper_choice.py`). For each SciFact training claim with labelled evidence (the
claim asked as the question, over the SciFact corpus index `DIR/eval-scifact`, built by
`finding_first.py scifact`), this takes the papers the answer would use (probability at least
`paper_probability`; none: the first hit) and asks, for each way of ordering them, whether the
first is a paper with the claim's evidence: the shipped probability, the passage cosine, the
fused search score, the paper's best sentence cosine to the claim, the mean of its best two,
and the sentence the fitted choice puts first. Sentence-level ordering is what helps where a
claim restates one sentence of its paper; measured, it does not (bench/results/opening_paper.md).
The parts are those of `bench/citations/stance_data.py`: `tune` (fit + calib) to choose on,
`held_out` only reported.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.citations import stance_data  # noqa: E402
from rag.answer import paper_choice, pipeline  # noqa: E402
from rag.answer.abstention import decide, question_terms  # noqa: E402
from rag.answer.evidence import select_evidence  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.spelling import corrected  # noqa: E402
from rag.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"
ORDERS: dict[str, Callable[[dict[str, float]], float]] = {
    "per-paper probability (shipped)": lambda r: r["probability"],
    "best passage cosine": lambda r: r["passage"],
    "fused search score": lambda r: r["fused"],
    "best sentence cosine": lambda r: r["sentence"],
    "mean of the best two sentence cosines": lambda r: r["two"],
    "cosine of the sentence the choice puts first": lambda r: r["chosen"],
}


def paper_rows(index: Index, claim: str) -> list[dict[str, Any]]:
    """The retrieved papers of `claim` as `rag ask` sees them, with what each order reads."""
    s = index.settings
    query = corrected(index, claim)
    hits = pipeline._with_abstracts(index, query, k=s.top_k, retriever=s.retriever, filters=None)
    decision = decide(index, query, hits, s.min_relevance)
    judged = paper_choice.judge(index, query, hits, question_terms(index, query), decision)
    evidence = select_evidence(index.sentence_embedder, query, list(hits), s.evidence_sentences)
    by_id = {e.hit.paper.id: e for e in evidence}
    q = index.sentence_embedder.embed([query])[0]
    rows = []
    for j in judged:
        e = by_id.get(j.hit.paper.id)
        cos = np.sort(e.vectors @ q)[::-1] if e is not None and e.vectors is not None else [0.0]
        rows.append(
            {
                "doc": str(j.hit.paper.external_id or j.hit.paper.id),
                "probability": j.probability,
                "passage": j.hit.relevance,
                "fused": j.hit.score,
                "sentence": float(cos[0]),
                "two": float(np.mean(cos[:2])),
                "chosen": e.scores[0] if e is not None and e.scores else 0.0,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="folder holding eval-scifact")
    parser.add_argument("--part", choices=("tune", "held_out"), default="tune")
    args = parser.parse_args()
    folder = args.index / "eval-scifact"
    index = Index(Settings(index_dir=folder, collection="eval-scifact"))
    threshold = index.settings.paper_probability
    parts = {"tune": ("fit", "calib"), "held_out": ("held_out",)}[args.part]
    claims = [c for c in stance_data.load_claims() if c.evidence and c.part in parts]
    first = {name: 0 for name in ORDERS}
    retrieved = used = 0
    for n, claim in enumerate(claims, 1):
        gold = {str(e.doc_id) for e in claim.evidence}
        rows = paper_rows(index, claim.text)
        chosen = [r for r in rows if r["probability"] >= threshold] or rows[:1]
        retrieved += any(r["doc"] in gold for r in rows)
        used += any(r["doc"] in gold for r in chosen)
        for name, key in ORDERS.items():
            first[name] += bool(chosen) and max(chosen, key=key)["doc"] in gold
        if n % 50 == 0:
            print(f"{n}/{len(claims)}", flush=True)
    total = max(1, len(claims))
    lines = [
        "# Which paper opens the answer (`bench/answers/opening_paper.py`)",
        "",
        f"Command: `.venv/bin/python bench/answers/opening_paper.py --index DIR --part {args.part}`"
        f" ({len(claims)} SciFact claims with evidence, part `{args.part}`). The claim's paper "
        f"is among the {index.settings.top_k} retrieved for {retrieved / total:.3f} of them "
        f"and among the papers "
        f"the answer uses for {used / total:.3f}.",
        "",
        "| order of the answer's papers | the claim's paper opens the answer |",
        "|---|---|",
        *(f"| {name} | {first[name] / total:.3f} |" for name in ORDERS),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(exist_ok=True)
    with (RESULTS / "opening_paper.md").open("a", encoding="utf-8") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
