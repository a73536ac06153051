"""Does a message that names no topic ask about the collection, or is it chat?

    .venv/bin/python bench/answers/collection_or_chat.py --index DIR [--write]

The overview answers both kinds (`rag.answer.overview.no_topic`), but once a conversation has
had it, "thanks!" needs no second copy while "what topics does the collection cover?" asks for
exactly that. This fits the judgement that tells them apart: a logistic regression over the
message's MiniLM vector, on the `collection` and `chat` messages of
bench/data/subjectless_followups.jsonl (written blind; ids divisible by 3 held out), its L2
strength chosen by 10-fold cross-validated accuracy on the fitting part. The table goes to
bench/results/collection_or_chat.md; `--write` writes the weights to
rag/answer/model/collection_or_chat.json.
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

import numpy as np  # noqa: E402

from rag.answer import overview  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data" / "subjectless_followups.jsonl"
RESULTS = ROOT / "bench" / "results"


def main() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a copy of a seed index")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    index = Index(Settings(index_dir=args.index))
    rows = [json.loads(x) for x in DATA.read_text(encoding="utf-8").splitlines() if x.strip()]
    rows = [r for r in rows if r["label"] in ("collection", "chat")]
    x = index.embedder.embed([r["second"] for r in rows])
    y = np.array([r["label"] == "collection" for r in rows])
    fitting = np.array([r["split"] == "fit" for r in rows])
    folds = StratifiedKFold(10, shuffle=True, random_state=0)
    scores = {
        c: float(
            cross_val_score(
                LogisticRegression(C=c, max_iter=2000), x[fitting], y[fitting], cv=folds
            ).mean()
        )
        for c in (0.1, 0.3, 1.0, 3.0, 10.0)
    }
    best = max(scores, key=lambda c: (scores[c], -c))
    model = LogisticRegression(C=best, max_iter=2000).fit(x[fitting], y[fitting])
    held = model.predict(x[~fitting])
    lines = [
        "# A message naming no topic: about the collection, or chat?",
        "",
        "Command: `.venv/bin/python bench/answers/collection_or_chat.py --index COPY`",
        "",
        "A logistic regression over the message's MiniLM vector "
        "(`rag/answer/overview.py`, `asks_for_the_collection`), fitted on the `collection` and "
        "`chat` messages of bench/data/subjectless_followups.jsonl (ids divisible by 3 held "
        "out). 10-fold cross-validated accuracy on the fitting part by L2 strength C: "
        + ", ".join(f"{c}: {v:.3f}" for c, v in scores.items())
        + f"; chosen {best}.",
        "",
        "| part | label | messages | taken as asking for the collection |",
        "|---|---|---|---|",
    ]
    for part, mask, chosen in (
        ("fitting", fitting, model.predict(x[fitting])),
        ("held out", ~fitting, held),
    ):
        for label in ("collection", "chat"):
            wanted = y[mask] == (label == "collection")
            lines.append(
                f"| {part} | {label} | {int(wanted.sum())} | {int(chosen[wanted].sum())} |"
            )
    wrong = [r["second"] for r, p in zip(np.array(rows)[~fitting], held, strict=True)
             if p != (r["label"] == "collection")]  # fmt: skip
    lines += ["", f"Held-out messages judged wrong: {wrong or 'none'}."]
    text = "\n".join(lines) + "\n"
    (RESULTS / "collection_or_chat.md").write_text(text, encoding="utf-8")
    print(text)
    if args.write:
        weights = {
            "coef": [round(float(v), 6) for v in model.coef_[0]],
            "intercept": round(float(model.intercept_[0]), 6),
            "C": best,
            "messages": int(fitting.sum()),
        }
        overview.WEIGHTS.write_text(json.dumps(weights) + "\n", encoding="utf-8")
        print(f"wrote {overview.WEIGHTS}")


if __name__ == "__main__":
    main()
