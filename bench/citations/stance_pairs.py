"""Can a stance model tell a supporting abstract from a contradicting one at all? Pair level.

    .venv/bin/python bench/citations/stance_pairs.py --model rag/stance/model --label shipped
    [--part calib]

Before any retrieval or threshold: for each labelled claim-abstract pair of a part of the
SciFact training claims (`bench/citations/stance_data.py`; never the `fit` part the model trained
on),
the model's P(supports) and P(contradicts) for the claim and each sentence of the abstract,
then the area under the ROC curve of P(supports) - P(contradicts), max over the sentences,
between SUPPORT and CONTRADICT abstracts (0.5 = cannot tell), once over the annotators'
rationale sentences only and once over the whole abstract (what a lookup sees). And at the
cut that keeps a given share of the SUPPORT abstracts, the share of CONTRADICT abstracts and of
not-enough-info claims' cited abstracts that would be offered as support. The issue's targets
need about 0.85 support recall at <= 0.10 contradicting-as-support. Appends a row per run to
bench/results/stance_pairs.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.citations import stance_data  # noqa: E402
from rag.stance.judge import StanceModel  # noqa: E402

OUT = ROOT / "bench" / "results" / "stance_pairs.md"
HEADER = [
    "# Stance at pair level (bench/citations/stance_pairs.py)",
    "",
    "AUC of P(supports) - P(contradicts) between SUPPORT and CONTRADICT abstracts (0.5 = chance);",
    "then, at the cut keeping 80% / 90% of SUPPORT abstracts (whole abstract), the share of",
    "CONTRADICT abstracts and of not-enough-info cited abstracts over it.",
    "",
    "| model | part | pairs S / C / NEI | AUC, rationale only | AUC, whole abstract "
    "| C over the cut at 0.8 / 0.9 | NEI over the cut at 0.8 / 0.9 |",
    "|---|---|---|---|---|---|---|",
]


def auc(pos: list[float], neg: list[float]) -> float:
    a, b = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float((a > b).mean() + 0.5 * (a == b).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="A stance model folder.")
    parser.add_argument("--label", required=True, help="The model's name in the table.")
    parser.add_argument("--part", default="calib", choices=["calib", "held_out"])
    args = parser.parse_args()
    if not stance_data.available():
        sys.exit(f"SciFact claims not found under {stance_data.SHARED}.")
    model = StanceModel(args.model, threads=2)
    sentences = stance_data.load_sentences()
    rows: list[tuple[str, float, float]] = []  # label, rationale-only margin, whole-doc margin
    for claim in (c for c in stance_data.load_claims() if c.part == args.part):
        judged = {e.doc_id for e in claim.evidence}
        for ev in claim.evidence:
            doc = sentences.get(ev.doc_id, [])
            p = model.probabilities([(claim.text, s) for s in doc])
            margin = p[:, 0] - p[:, 1]
            rationale = [i for i in ev.rationale if i < len(doc)]
            rows.append((ev.label, float(margin[rationale].max()), float(margin.max())))
        for doc_id in claim.cited:
            if doc_id not in judged and sentences.get(doc_id):
                p = model.probabilities([(claim.text, s) for s in sentences[doc_id]])
                rows.append(("NEI", 0.0, float((p[:, 0] - p[:, 1]).max())))
    sup = [r for r in rows if r[0] == "SUPPORT"]
    con = [r for r in rows if r[0] == "CONTRADICT"]
    nei = [r for r in rows if r[0] == "NEI"]
    over = {}
    for keep in (0.8, 0.9):
        cut = float(np.quantile([r[2] for r in sup], 1 - keep))
        over[keep] = (
            np.mean([r[2] >= cut for r in con]),
            np.mean([r[2] >= cut for r in nei]),
        )
    line = (
        f"| {args.label} | {args.part} | {len(sup)} / {len(con)} / {len(nei)} "
        f"| {auc([r[1] for r in sup], [r[1] for r in con]):.3f} "
        f"| {auc([r[2] for r in sup], [r[2] for r in con]):.3f} "
        f"| {over[0.8][0]:.2f} / {over[0.9][0]:.2f} | {over[0.8][1]:.2f} / {over[0.9][1]:.2f} |"
    )
    text = OUT.read_text() if OUT.exists() else "\n".join(HEADER) + "\n"
    OUT.write_text(text + line + "\n")
    print(line)


if __name__ == "__main__":
    main()
