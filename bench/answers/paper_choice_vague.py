"""Questions in common words: the per-paper judgement, and candidates fitted on them too.

    .venv/bin/python bench/answers/paper_choice_vague.py [--index DIR]

bench/data/vague_questions.jsonl holds 90 questions written blind in the words every
machine-learning abstract uses ("does more data always help?", "which papers train on data
spread across many clients without pooling it?"), 47 with a paper. The shipped judgement
(`rag/answer/paper_choice.py`) was fitted without them. This bench asks whether it would do better
fitted on their fitting part too, and with three more features, each measurable per paper:

- `specificity`: the IDF of the question's rarest held term over that of a term one paper holds
  (near 0 when every term is in most papers, as "data" or "practical");
- `sentence`, `sentence_gap`: the paper's best cosine with one of its abstract's sentences, and
  how far it falls below the best paper's (a paraphrase may match one sentence well);
- `held_idf`: the IDFs of the question's terms the paper holds, summed, over that of a term one
  paper holds (coverage counts a share, so two common words held make a full share).

Each candidate is a logistic regression fitted on the fitting parts of the seed questions and
the vague ones, its threshold the best F1 there, and the papers it picks are those `rag ask`
would use (`paper_sets.chosen_papers`: the abstention's decision gates them, a paper past
`answer_probability` answers alone, an answerable question keeps its most probable paper; the
alternatives' side judgement and the follow-up paths are left out, so the shipped row differs a
little from `paper_choice.py answers`). Scored on each set's held-out third. Results:
bench/results/paper_choice_vague.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.paper_choice import (  # noqa: E402
    LIST_FORMS,
    feature_rows,
    fit_logistic,
    open_index,
    questions,
    scores,
)
from rag.answer import paper_choice  # noqa: E402
from rag.answer.abstention import (  # noqa: E402
    asked_without,
    documents_holding,
    idf,
    question_terms,
    term_coverage,
)
from rag.answer.evidence import paper_sentences  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.spelling import corrected  # noqa: E402

RESULTS = ROOT / "bench" / "results"
EXTRA = ("specificity", "sentence", "sentence_gap", "held_idf")
CANDIDATES = {
    "shipped features, refitted": (),
    "+ specificity": ("specificity",),
    "+ sentence, sentence_gap": ("sentence", "sentence_gap"),
    "+ held_idf": ("held_idf",),
    "+ all four": EXTRA,
}


def extra_features(index: Index, row: dict[str, Any]) -> np.ndarray:
    """The candidate features of each retrieved paper of `row` (in its hits' order)."""
    question = corrected(index, row["q"])
    terms = question_terms(index, question)
    without = asked_without(index, question)
    n = max(1, len(index.bm25()))
    holding = [len(documents_holding(index, t, name)) for t, name in terms]
    rarest = min((d for d in holding if d), default=0)
    specificity = idf(n, rarest) / idf(n, 1) if rarest else 0.0
    q = index.embedder.embed([question])[0]
    out = []
    for paper in row["papers"]:
        sentences = paper_sentences(paper)
        vectors = index.sentence_embedder.embed(sentences) if sentences else None
        sentence = float(np.max(vectors @ q)) if vectors is not None else 0.0
        held = sum(
            idf(n, d)
            for (t, name), d in zip(terms, holding, strict=True)
            if d and term_coverage(index, [(t, name)], paper.id, without) > 0
        )
        out.append([specificity, sentence, 0.0, held / idf(n, 1)])
    x = np.array(out, dtype=np.float64).reshape(-1, len(EXTRA))
    if len(x):
        x[:, 2] = x[:, 1].max() - x[:, 1]
    return x


def chosen(rows: list[dict[str, Any]], probs: list[np.ndarray], t: float) -> list[set[str]]:
    """The first authors `rag ask` would cite at threshold `t` (see the module docstring)."""
    answerable = paper_choice.FEATURES.index("answerable")
    settings = rows[0]["settings"]
    out = []
    for r, p in zip(rows, probs, strict=True):
        picked = {a for a, q in zip(r["authors"], p, strict=True) if q >= t}
        signal = float(r["x"][0, answerable]) if len(r["x"]) else 0.0
        alone = len(p) and p.max() >= settings.answer_probability
        if signal < settings.min_relevance and not (
            alone and signal >= paper_choice.LEAST_ANSWERABILITY_ALONE
        ):
            picked = set()
        elif not picked and len(p):
            picked = {r["authors"][int(np.argmax(p))]}
        out.append(picked)
    return out


def table(rows: list[dict[str, Any]], probs: list[np.ndarray], t: float) -> list[str]:
    lines = []
    for name, prefix in (("seeds", ""), ("vague", "vague ")):
        for split in ("heldout", "fit"):
            part = [i for i, r in enumerate(rows) if r["set"] == prefix and r["split"] == split]
            lists = [i for i in part if rows[i]["form"] in LIST_FORMS]
            s = scores(chosen([rows[i] for i in part], [probs[i] for i in part], t),
                       [rows[i] for i in part])  # fmt: skip
            sl = scores(chosen([rows[i] for i in lists], [probs[i] for i in lists], t),
                        [rows[i] for i in lists])  # fmt: skip
            lines.append(
                f"| | {name} {split} | {s['questions']} | {s['recall']} / {s['precision']} | "
                f"{sl['recall']} / {sl['precision']} | {s['false_abstentions']} | "
                f"{s['unanswerable_abstained']} |"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=ROOT / "index_store" / "bench-seeds")
    args = parser.parse_args()
    index = open_index(args.index)
    rows = feature_rows(index, questions(vague=True), index.settings.top_k)
    by_author = {p.authors[0]: p for p in index.papers.values() if p.authors}
    for r in rows:
        r["papers"] = [by_author[a] for a in r["authors"]]
        r["settings"] = index.settings
        r["extra"] = extra_features(index, r)
    header = [
        "| model | part | questions | recall / precision | lists: recall / precision "
        "| false abstentions | unanswerable abstained |",
        "|---|---|---|---|---|---|---|",
    ]
    shipped = [paper_choice.probabilities(r["x"]) for r in rows]
    t = index.settings.paper_probability
    lines = [*header, f"| shipped (threshold {t}) | | | | | | |", *table(rows, shipped, t)]
    fit = [r for r in rows if r["split"] == "fit"]
    for name, extra in CANDIDATES.items():
        cols = [EXTRA.index(e) for e in extra]
        x = np.concatenate([np.hstack([r["x"], r["extra"][:, cols]]) for r in fit])
        y = np.concatenate([r["y"] for r in fit])
        mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
        w, b = fit_logistic((x - mean) / scale, y)
        probs = [
            1 / (1 + np.exp(-(((np.hstack([r["x"], r["extra"][:, cols]]) - mean) / scale) @ w + b)))
            for r in rows
        ]
        fit_probs = [p for r, p in zip(rows, probs, strict=True) if r["split"] == "fit"]
        best = max(
            np.arange(0.05, 0.96, 0.01),
            key=lambda c: f1(scores(chosen(fit, fit_probs, float(c)), fit)),
        )
        lines += [f"| {name} (threshold {best:.2f}) | | | | | | |", *table(rows, probs, best)]
    text = "\n".join(lines) + "\n"
    print(text)
    head = (
        "# The per-paper judgement on questions in common words, and candidates fitted on them\n\n"
        "`.venv/bin/python bench/answers/paper_choice_vague.py` (its docstring says what each "
        "is).\n\n"
    )
    (RESULTS / "paper_choice_vague.md").write_text(head + text, encoding="utf-8")


def f1(s: dict[str, float]) -> float:
    return 2 * s["recall"] * s["precision"] / max(1e-9, s["recall"] + s["precision"])


if __name__ == "__main__":
    main()
