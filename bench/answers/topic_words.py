"""Fit and judge which words of a question name its topic (`rag/answer/topic_words.py`).

    .venv/bin/python bench/answers/topic_words.py --index COPY          # table only
    .venv/bin/python bench/answers/topic_words.py --index COPY --write  # and ship the weights

A question's word that no paper holds counts against answering it (`rag/answer/abstention.py`).
That is right for "sourdough" or "hallucination", wrong for the words of the asker's situation:
"for my thesis I need work on federated learning" said the collection had no paper on it because
no abstract says "thesis" or "need". Words: bench/data/topic_words.jsonl, 1,149: every word of
a question in bench/data (but the spelling and foreign sets) that the seed index does not hold,
as `rag ask` reads it, labelled topic unless picked out by hand as about the asker, the
request, time or talk ("advisor", "lecture", "need", "tomorrow"; typos of topic words stay
topic, generic verbs such as "cut" too), the asking and
chat words `rag/answer/abstention.py` and `rag/text.py` already list, and words written for the
asker's situation (roles, kinds of writing, requests). Words whose CRC32 is divisible by 3 are
held out. A logistic regression over each word's MiniLM vectors (`topic_words.readings`), L2
strength by 10-fold cross-validated accuracy on the fitting part; the bar is the 1st percentile
of the fitting topic words' cross-validated probability, so that about 1% of new topic words
would be left out. Writes the table to bench/results/topic_words.md and, with --write, the
weights to rag/answer/model/topic_words.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.paper_choice import open_index  # noqa: E402
from rag.answer import topic_words  # noqa: E402

DATA = ROOT / "bench" / "data" / "topic_words.jsonl"
RESULTS = ROOT / "bench" / "results"
KEPT_TOPIC_WORDS = 0.99  # the bar keeps this share of the fitting part's topic words
# A word no paper holds before "on"/"about" ("a survey on efficient reasoning") is read as the
# asker's frame, what follows it as a side of the question (`abstention.sides`), below a bar
# that keeps this share: the answer then says that no paper uses the word.
KEPT_FRAMED = 0.90
C_TRIED = (0.1, 0.3, 1.0, 3.0, 10.0)


def read() -> list[dict[str, Any]]:
    return [json.loads(x) for x in DATA.read_text(encoding="utf-8").splitlines() if x.strip()]


def main() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a copy of a seed index")
    parser.add_argument("--write", action="store_true", help="write the shipped weights")
    args = parser.parse_args()
    index = open_index(args.index)
    rows = read()
    x = np.stack(
        [np.concatenate(index.embedder.embed(topic_words.readings(r["word"]))) for r in rows]
    )
    y = np.array([r["topic"] for r in rows])
    fitting = np.array([r["split"] == "fit" for r in rows])
    folds = StratifiedKFold(10, shuffle=True, random_state=0)

    def cross_fitted(c: float) -> np.ndarray:
        model = LogisticRegression(C=c, max_iter=2000)
        p = cross_val_predict(model, x[fitting], y[fitting], cv=folds, method="predict_proba")
        return np.asarray(p[:, 1])

    scores = {c: float(((cross_fitted(c) >= 0.5) == y[fitting]).mean()) for c in C_TRIED}
    best = max(scores, key=lambda c: (scores[c], -c))
    # the bar is read off cross-fitted probabilities: in-sample ones keep more than new words
    crossed = cross_fitted(best)[y[fitting]]
    bar = float(np.quantile(crossed, 1 - KEPT_TOPIC_WORDS))
    framed_bar = float(np.quantile(crossed, 1 - KEPT_FRAMED))
    model = LogisticRegression(C=best, max_iter=2000).fit(x[fitting], y[fitting])
    p = model.predict_proba(x)[:, 1]
    lines = [
        "# Which words of a question name its topic? (`bench/answers/topic_words.py`)",
        "",
        "A logistic regression over each word's MiniLM vectors (`rag/answer/topic_words.py`); a "
        "question's word no paper holds is left out of its terms when its probability of naming "
        "a topic is below the bar. 10-fold cross-validated accuracy on the fitting part by L2 "
        "strength C: "
        + ", ".join(f"{c}: {v:.3f}" for c, v in scores.items())
        + f"; chosen {best}. Bar (keeps {KEPT_TOPIC_WORDS:.0%} of the fitting topic words, "
        "cross-validated): "
        f'{bar:.3f}. A word before "on"/"about" ("a survey on ...") frames the question '
        f"below the bar that keeps {KEPT_FRAMED:.0%}: {framed_bar:.3f} (rows 'framed').",
        "",
        "| part | topic words | kept | other words | left out | other words but the asking "
        "words (already left out by their list) | left out |",
        "|---|---|---|---|---|---|---|",
    ]
    listed = np.array([r["source"] == "asking words" for r in rows])
    for name, part, at in (
        ("fit", fitting, bar),
        ("heldout", ~fitting, bar),
        ("fit, framed", fitting, framed_bar),
        ("heldout, framed", ~fitting, framed_bar),
    ):
        topic, other = part & y, part & ~y
        unlisted = other & ~listed
        lines.append(
            f"| {name} | {topic.sum()} | {(p[topic] >= at).mean():.3f} | {other.sum()} | "
            f"{(p[other] < at).mean():.3f} | {unlisted.sum()} | {(p[unlisted] < at).mean():.3f} |"
        )
    lost = [r["word"] for r, q in zip(rows, p, strict=True) if r["topic"] and q < bar]
    lines += ["", f"Topic words left out (both parts): {', '.join(lost)}.", ""]
    text = "\n".join(lines)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "topic_words.md").write_text(text, encoding="utf-8")
    if args.write:
        weights = {
            "coef": [round(float(v), 6) for v in model.coef_[0]],
            "intercept": round(float(model.intercept_[0]), 6),
            "bar": round(bar, 3),
            "framed_bar": round(framed_bar, 3),
            "C": best,
            "words": int(fitting.sum()),
        }
        topic_words.WEIGHTS.write_text(json.dumps(weights) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
