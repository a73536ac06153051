"""Fit and judge whether a message is everyday talk, not research (`rag/answer/everyday.py`).

    .venv/bin/python bench/answers/everyday_model.py --index COPY          # table only
    .venv/bin/python bench/answers/everyday_model.py --index COPY --write  # and ship the weights

Everyday messages: bench/data/offtopic_messages.jsonl (kinds everyday and request) and the
everyday kinds of everyday_common_words.jsonl (arithmetic, time, shopping, travel, ...), both
written blind by helpers. Health questions ("can i take ibuprofen and paracetamol at the same
time") and other sciences ("speed of sound in water vs air") are left out of that side: over a
biomedical or physics collection they are research, and the judgement must not depend on which
papers are indexed. Research messages: the labelled questions and follow-ups of bench/data
(paper_questions, role_questions, finding_questions_blind, generic_followups (first and second
messages, topic switches and off-collection ML topics too), broader_followups, other_followups,
subjectless_followups but their small talk), the ML-adjacent and other-science messages of
offtopic_messages.jsonl, the research queries of everyday_common_words.jsonl and, when
../shared/data is there, SciFact's biomedical claims (ids divisible by 3 held out) and spans of
two to four words from CSAbstruct's computer-science abstracts (keyword queries are research
too; every third held out).
Every set keeps its own held-out part (CSAbstruct's by abstract); a text in both parts is
fitting, so nothing held out is fitted on.

A logistic regression over the message's MiniLM vector, L2 strength by 10-fold cross-validated
log-loss on the fitting part; the bar is the cross-validated logit that lets through
`KEPT_RESEARCH` of the fitting research messages. A message is told it is everyday talk when
its vector reads so and no paper comes near it: its search's best passage cosine under the
floor that `UNDER_FLOOR` of the fitting everyday messages read as such stay under, over the
seeds. Writes bench/results/everyday_model.md and, with --write, rag/answer/model/everyday.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.paper_choice import open_index, read  # noqa: E402
from rag.answer import everyday  # noqa: E402
from rag.index.retrieve import search  # noqa: E402
from rag.text import STOPWORDS  # noqa: E402

RESULTS = ROOT / "bench" / "results"
SCIFACT = ROOT.parent / "shared" / "data" / "scifact" / "queries.jsonl"
CSABSTRUCT = ROOT.parent / "shared" / "data" / "csabstruct" / "train.jsonl"
KEPT_RESEARCH = 0.99  # the bar lets through this share of the fitting research messages
# The floor under which no paper comes near: this share of the fitting everyday messages the
# vector reads as everyday stay under it (best passage cosine of their own search).
UNDER_FLOOR = 0.95
C_TRIED = (1.0, 3.0, 10.0, 30.0)
EVERYDAY_KINDS = {"everyday", "request"}  # offtopic_messages.jsonl
NOT_EVERYDAY = {"research", "health"}  # everyday_common_words.jsonl: research, or left out


def messages() -> list[dict[str, Any]]:
    """Every labelled message: text, everyday or not, split and where it comes from."""
    rows: list[dict[str, Any]] = []

    def add(text: str, is_everyday: bool, split: str, source: str) -> None:
        rows.append({"text": text, "everyday": is_everyday, "split": split, "source": source})

    for m in read("offtopic_messages.jsonl"):
        add(m["message"], m["kind"] in EVERYDAY_KINDS, m["split"], f"offtopic {m['kind']}")
    for m in read("everyday_common_words.jsonl"):
        if m["kind"] != "health":
            add(m["message"], m["kind"] not in NOT_EVERYDAY, m["split"], f"common {m['kind']}")
    for q in read("paper_questions.jsonl"):
        add(q["q"], False, q["split"], "paper questions")
    for name in ("role_questions.jsonl", "finding_questions_blind.jsonl"):
        for q in read(name):
            add(q["q"], False, q["split"], name.removesuffix(".jsonl").replace("_", " "))
    for s in read("generic_followups.jsonl"):
        add(s["first"], False, s["split"], "session first questions")
        add(s["second"], False, s["split"], f"follow-ups: {s['kind'].replace('_', ' ')}")
    for name in ("broader_followups.jsonl", "other_followups.jsonl"):
        for s in read(name):
            add(s["second"], False, s.get("split", "fit"), name.removesuffix(".jsonl"))
    for s in read("subjectless_followups.jsonl"):
        if s["label"] != "chat":
            add(s["second"], False, s["split"], "subjectless follow-ups")
    if CSABSTRUCT.exists():
        for i, span in _phrases(CSABSTRUCT):
            add(span, False, "heldout" if i % 3 == 0 else "fit", "CSAbstruct phrases")
    if SCIFACT.exists():
        for line in SCIFACT.read_text(encoding="utf-8").splitlines():
            if line.strip():
                q = json.loads(line)
                split = "heldout" if int(q["_id"]) % 3 == 0 else "fit"
                add(q["text"], False, split, "SciFact claims")
    # A text in both parts (the same question in two sets) is fitted on, so not held out.
    fitted = {" ".join(r["text"].lower().split()) for r in rows if r["split"] == "fit"}
    return [
        r for r in rows if r["split"] == "fit" or " ".join(r["text"].lower().split()) not in fitted
    ]


def _phrases(path: Path, count: int = 600) -> list[tuple[int, str]]:
    """Spans of two to four words, with a content word, from `count` sentences of CS abstracts
    (fixed seed), each with the number of its abstract (the parts split by abstract): research
    in the few bare words of a keyword query ("length extrapolation" was judged everyday)."""
    import random

    rng = random.Random(0)
    sentences = [
        (n, s)
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines())
        if line.strip()
        for s in json.loads(line).get("sentences", [])
    ]
    rng.shuffle(sentences)
    spans = []
    for n, sentence in sentences[:count]:
        words = sentence.split()
        if len(words) >= 6:
            start = rng.randrange(0, len(words) - 3)
            size = rng.choice((2, 3, 4))
            span = " ".join(words[start : start + size]).strip(".,;:()")
            if any(len(w) >= 4 and w.lower() not in STOPWORDS for w in span.split()):
                spans.append((n, span))
    return spans


def main() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a copy of a seed index")
    parser.add_argument("--write", action="store_true", help="write the shipped weights")
    args = parser.parse_args()
    index = open_index(args.index)
    rows = messages()
    x = np.asarray(index.embedder.embed([r["text"] for r in rows]))
    y = np.array([r["everyday"] for r in rows])
    fitting = np.array([r["split"] == "fit" for r in rows])
    folds = StratifiedKFold(10, shuffle=True, random_state=0)

    def crossed(c: float) -> np.ndarray:
        model = LogisticRegression(C=c, max_iter=3000)
        return np.asarray(
            cross_val_predict(model, x[fitting], y[fitting], cv=folds, method="decision_function")
        )

    def log_loss(logits: np.ndarray) -> float:
        sign = np.where(y[fitting], 1.0, -1.0)
        return float(np.mean(np.logaddexp(0.0, -sign * logits)))

    losses = {c: log_loss(crossed(c)) for c in C_TRIED}
    best = min(losses, key=lambda c: (losses[c], c))
    cv = crossed(best)
    bar = float(np.quantile(cv[~y[fitting]], KEPT_RESEARCH))
    model = LogisticRegression(C=best, max_iter=3000).fit(x[fitting], y[fitting])
    logits = model.decision_function(x)
    logits[fitting] = cv  # the fitting part's figures are cross-validated
    reads = logits > bar
    # How near the seed papers come to each message the vector reads as everyday (the rest
    # are let through whatever the papers are).
    near = np.zeros(len(rows))
    for i in np.flatnonzero(reads):
        hits = search(index, rows[i]["text"], k=index.settings.top_k, retriever="hybrid")
        near[i] = max((h.relevance for h in hits), default=0.0)
    floor = float(np.quantile(near[fitting & y & reads], UNDER_FLOOR))
    judged = reads & (near < floor)

    table: dict[tuple[str, str], list[int]] = {}
    for r, was_read, told in zip(rows, reads, judged, strict=True):
        cell = table.setdefault((r["split"], r["source"]), [0, 0, 0])
        cell[0] += 1
        cell[1] += int(was_read)
        cell[2] += int(told)
    lines = [
        "# Is a message everyday talk, not research? (`bench/answers/everyday_model.py`)",
        "",
        "A logistic regression over the message's MiniLM vector (`rag/answer/everyday.py`). "
        "10-fold cross-validated log-loss on the fitting part by L2 strength C: "
        + ", ".join(f"{c}: {v:.3f}" for c, v in losses.items())
        + f"; chosen {best}. Bar (lets through {KEPT_RESEARCH:.0%} of the fitting research "
        f"messages, cross-validated): logit {bar:.3f}. Floor (the best passage cosine of the "
        f"message's search over the seeds, {UNDER_FLOOR:.0%} of the fitting everyday messages "
        f"read as everyday under it): {floor:.3f}. Fitting rows are cross-validated; a text in "
        "both parts counts as fitting. `read` is the vector alone, `told` the answer's rule (read "
        "and under the floor: told it is everyday talk). Research messages are near the seeds' "
        "papers only when they are on them: over another collection the floor lets through "
        "its own field's questions.",
        "",
        "| part | everyday messages | read | told | research messages | read | told |",
        "|---|---|---|---|---|---|---|",
    ]
    for split in ("fit", "heldout"):
        part = np.array([r["split"] == split for r in rows])
        yes, no = part & y, part & ~y
        lines.append(
            f"| {split} | {yes.sum()} | {reads[yes].mean():.3f} | {judged[yes].mean():.3f} | "
            f"{no.sum()} | {reads[no].mean():.3f} | {judged[no].mean():.3f} |"
        )
    lines += ["", "| part | source | messages | read | told |", "|---|---|---|---|---|"]
    for (split, source), (n, k, t) in sorted(table.items()):
        lines.append(f"| {split} | {source} | {n} | {k} | {t} |")
    wrong = [
        f"- {r['split']}, {r['source']}: “{r['text']}” (nearest {c:.2f}{', told' if t else ''})"
        for r, was_read, t, c in zip(rows, reads, judged, near, strict=True)
        if not r["everyday"] and was_read
    ]
    kinds = Counter(r["source"] for r in rows if r["everyday"])
    lines += [
        "",
        f"Everyday messages by kind: {dict(sorted(kinds.items()))}.",
        "",
        "Research messages read as everyday:",
        "",
        *wrong,
        "",
    ]
    text = "\n".join(lines)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "everyday_model.md").write_text(text, encoding="utf-8")
    if args.write:
        weights = {
            "coef": [round(float(v), 6) for v in model.coef_[0]],
            "intercept": round(float(model.intercept_[0]), 6),
            "bar": round(bar, 3),
            "floor": round(floor, 3),
            "C": best,
            "messages": int(fitting.sum()),
        }
        everyday.WEIGHTS.write_text(json.dumps(weights) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
