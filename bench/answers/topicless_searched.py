"""The second topicless judgement: a searched message that asks about no paper.

Called by `bench/answers/subjectless_followups.py --fit`: a logistic regression over
`rag.answer.topicless.SEARCHED_FEATURES` (the first judgement's logit, cross-fitted on its own
fitting messages; what the message's search found) on the fitting messages, with the set
follow-ups' turns and the extra chat sessions' turns as messages about papers. Its bar is the
one that lets the fewest fitting messages about papers through (cross-fitted), then the most
collection and chat messages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag.answer import topicless
from rag.answer.abstention import decide
from rag.index.paper_index import Index
from rag.index.retrieve import search
from rag.index.spelling import corrected

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
C = 1.0  # L2 strength (six features, 800 messages: the fit is not sensitive to it)


def more_messages() -> list[tuple[str, str, str]]:
    """Every turn of the set follow-ups and extra chat sessions: (text, source, split), all
    asking about papers (a topic, a pick among an answer's papers, a switch of topic)."""
    rows = []
    for line in (DATA / "set_followups.jsonl").read_text(encoding="utf-8").splitlines():
        session = json.loads(line)
        rows += [(t["q"], "set_followups", session["split"]) for t in session["turns"]]
    for line in (DATA / "chat_sessions_extra.jsonl").read_text(encoding="utf-8").splitlines():
        rows += [(t["q"], "chat_sessions_extra", "fit") for t in json.loads(line)["turns"]]
    return rows


def features(index: Index, texts: Sequence[str], logits: Sequence[float]) -> np.ndarray:
    """One row of `SEARCHED_FEATURES` per message, searched as `rag ask` searches it."""
    settings = index.settings
    rows = []
    for text, logit in zip(texts, logits, strict=True):
        query = corrected(index, text)
        hits = search(index, query, k=settings.top_k, retriever=settings.retriever, rescore=True)
        decision = decide(index, query, hits, settings.min_relevance)
        rows.append(topicless.searched_features(index, text, float(logit), decision, query))
    return np.array(rows)


def fit(
    index: Index,
    texts: Sequence[str],
    overview: np.ndarray,
    fitting: np.ndarray,
    sources: Sequence[str],
    logits: np.ndarray,
) -> tuple[dict[str, Any], list[str]]:
    """Fit the judgement; return its weights and the lines of its table."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    x = features(index, texts, logits)
    mean, scale = x[fitting].mean(axis=0), x[fitting].std(axis=0) + 1e-9
    z = (x - mean) / scale
    y = overview
    model = LogisticRegression(C=C, max_iter=2000)
    folds = StratifiedKFold(10, shuffle=True, random_state=0)
    cv = cross_val_predict(model, z[fitting], y[fitting], cv=folds, method="predict_proba")[:, 1]
    wanted, other = y[fitting], ~y[fitting]
    bars = [round(float(b), 2) for b in np.arange(0.3, 0.99, 0.02)]
    bar = max(bars, key=lambda b: (-int((cv[other] >= b).sum()), int((cv[wanted] >= b).sum())))
    model.fit(z[fitting], y[fitting])
    held = model.predict_proba(z[~fitting])[:, 1]
    weights = {
        "features": list(topicless.SEARCHED_FEATURES),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "coef": [round(float(v), 6) for v in model.coef_[0]],
        "intercept": round(float(model.intercept_[0]), 6),
        "bar": bar,
    }
    lines = [
        "",
        "## A searched message: the second judgement",
        "",
        "A logistic regression over what `rag ask` measures of a message it searched "
        f"(`topicless.SEARCHED_FEATURES`: {', '.join(topicless.SEARCHED_FEATURES)}; C={C}), "
        "the first judgement's logit cross-fitted on its fitting messages. Messages: those "
        "above, and the turns of set_followups.jsonl and chat_sessions_extra.jsonl (papers). "
        f"Bar (fewest cross-fitted messages about papers taken, then most others): {bar}. "
        "Coefficients (standardised): "
        + ", ".join(
            f"{n} {c:+.2f}" for n, c in zip(weights["features"], weights["coef"], strict=True)
        )
        + ".",
        "",
        "| part | source | label | messages | taken as asking no paper |",
        "|---|---|---|---|---|",
    ]
    for part, mask, p in (("fitting (cross-fitted)", fitting, cv), ("held out", ~fitting, held)):
        group: dict[tuple[str, str], list[bool]] = {}
        for source, label, chosen in zip(
            np.array(sources)[mask], np.where(y[mask], "overview", "papers"), p >= bar, strict=True
        ):
            group.setdefault((str(source), str(label)), []).append(bool(chosen))
        for (source, label), chosen in sorted(group.items()):
            lines.append(f"| {part} | {source} | {label} | {len(chosen)} | {sum(chosen)} |")
    return weights, lines
