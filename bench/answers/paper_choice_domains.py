"""The per-paper judgement (`rag/answer/paper_choice.py`) over two fields, and a candidate.

    .venv/bin/python bench/answers/paper_choice_domains.py --scifact-index DIR [--weights W ...]

The judgement is fitted on the 40 seed papers, where most questions are topical ("which papers
deal with federated learning?") and every paper on the topic counts. This bench asks how it
does where one paper answers a question and its subject's neighbours do not, over SciFact's
5,183 biomedical abstracts. Three labelled sets, each with a held-out part that nothing is
fitted or chosen on:

- `seeds`: bench/data/paper_questions.jsonl and phrasing_needs.jsonl (`paper_choice.py`; ids
  divisible by 3 held out);
- `scifact`: the 809 SciFact training claims with their qrels (../shared/data/scifact), parts as
  `bench/citations/stance_data.py` (held_out a fifth, by a hash of the id);
- `aims`: "Does X?" from "To determine whether X." of structured SciFact abstracts
  (`finding_first.structured_aims`, a third held out by a hash of the id), its own paper labelled.

Scored: the papers `rag ask` would use (`chosen`, as `paper_sets.chosen_papers` decides) against
the labels. SciFact's labels are incomplete (another abstract may address a claim too), so its
precision is a lower bound. The candidate: gradient-boosted trees (scikit-learn, depth 3) over
the same ten features fitted on the three fitting parts, the biomedical rows weighted by `w`;
the weight and threshold chosen by 5-fold cross-validation on the fitting parts (folds by
question): among the settings that keep the seeds' recall at least the seeds-only regression's
on the same folds, the best mean F1 of the two biomedical sets; its logit is then recalibrated
on the seeds (Platt) so that the follow-ups' bars, which read the same probability, keep their
meaning. Results: bench/results/paper_choice_domains.md. The SciFact index is `rag eval`'s
(DIR/eval-scifact); without ../shared/data the script says so and stops.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.finding_first import scifact_index, structured_aims  # noqa: E402
from bench.answers.paper_choice import LIST_FORMS, fit_logistic, open_index, questions  # noqa: E402
from bench.citations.stance_data import part_of  # noqa: E402
from rag.answer import paper_choice  # noqa: E402
from rag.answer.abstention import decide, question_terms  # noqa: E402
from rag.evaluation import read_qrels, read_queries  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.retrieve import search  # noqa: E402
from rag.index.spelling import corrected  # noqa: E402
from rag.records import Paper  # noqa: E402
from rag.settings import Settings  # noqa: E402

SCIFACT = ROOT.parent / "shared" / "data" / "scifact"
RESULTS = ROOT / "bench" / "results"
SETS = ("seeds", "scifact", "aims")
NOTE = RESULTS / "paper_choice_domains_note.md"
WEIGHTS_TRIED = (0.05, 0.1, 0.2, 0.3, 0.5, 1.0)
TREES = {"max_depth": 3, "max_iter": 200, "learning_rate": 0.05, "l2_regularization": 1.0}


def judged_row(
    index: Index, question: str, relevant: set[str], name_of: Callable[[Paper], str]
) -> dict[str, Any]:
    """The features of each retrieved paper, as `rag ask` computes them, and their labels
    (`relevant` holds the labelled papers' `name_of`)."""
    q = corrected(index, question)
    hits = search(index, q, k=index.settings.top_k, retriever="hybrid", rescore=True)
    decision = decide(index, q, hits, index.settings.min_relevance)
    x = paper_choice.features(index, q, hits, question_terms(index, q), decision)
    names = [name_of(h.paper) for h in hits]
    return {
        "x": x,
        "y": np.array([n in relevant for n in names], dtype=float),
        "names": names,
        "relevant": sorted(relevant),
        "answerable": decision.answerable,
    }


def first_author(paper: Paper) -> str:
    return paper.authors[0]  # the seeds' labels (`paper_choice.py`)


def corpus_id(paper: Paper) -> str:
    return str(paper.external_id or paper.id)  # SciFact's qrels


def index_id(paper: Paper) -> str:
    return paper.id


def seed_rows(index: Index) -> list[dict[str, Any]]:
    rows = []
    for q in questions():
        row = {"set": "seeds", "id": q["need"] or q["id"], "split": q["split"], "form": q["form"]}
        rows.append({**row, **judged_row(index, q["q"], set(q["relevant"]), first_author)})
    return rows


def scifact_rows(index: Index) -> list[dict[str, Any]]:
    qrels = read_qrels(SCIFACT / "qrels" / "train.tsv")
    texts = read_queries(SCIFACT / "queries.jsonl")
    rows = []
    for qid, docs in sorted(qrels.items()):
        split = "heldout" if part_of(qid) == "held_out" else "fit"
        row = {"set": "scifact", "id": qid, "split": split, "form": "claim"}
        rows.append({**row, **judged_row(index, texts[qid], set(docs), corpus_id)})
    return rows


def aim_rows(index: Index) -> list[dict[str, Any]]:
    rows = []
    for aim in structured_aims(index):
        split = "heldout" if aim.held_out else "fit"
        row = {"set": "aims", "id": aim.paper.id, "split": split, "form": "yes_no"}
        question = f"Does {aim.clause}?"
        rows.append({**row, **judged_row(index, question, {aim.paper.id}, index_id)})
    return rows


def chosen(rows: list[dict[str, Any]], probs: list[np.ndarray], t: float) -> list[set[str]]:
    """The papers `rag ask` would use: those at `t` or above; an answerable question keeps its
    best paper when none passes, and one the signals reject keeps none unless a paper reaches
    the answer bar alone (`paper_sets.chosen_papers`)."""
    out = []
    alone = settings().answer_probability
    for r, p in zip(rows, probs, strict=True):
        picked = {n for n, q in zip(r["names"], p, strict=True) if q >= t}
        if not r["answerable"] and not (len(p) and p.max() >= alone):
            picked = set()
        elif not picked and len(p):
            picked = {r["names"][int(np.argmax(p))]}
        out.append(picked)
    return out


@functools.cache
def settings() -> Settings:
    """The shipped settings, read once: their bars decide as `rag ask` does."""
    return Settings()


def scores(rows: list[dict[str, Any]], picked: list[set[str]]) -> dict[str, float]:
    tp = sum(len(c & set(r["relevant"])) for c, r in zip(picked, rows, strict=True))
    n_rel = sum(len(r["relevant"]) for r in rows)
    n_chosen = sum(len(c) for c in picked)
    answerable = [c for c, r in zip(picked, rows, strict=True) if r["relevant"]]
    recall, precision = tp / max(1, n_rel), tp / max(1, n_chosen)
    return {
        "questions": len(rows),
        "recall": round(recall, 3),
        "precision": round(precision, 3),
        "f1": round(2 * recall * precision / max(1e-9, recall + precision), 3),
        "papers_cited": round(n_chosen / max(1, len(rows)), 2),
        "false_abstentions": round(sum(not c for c in answerable) / max(1, len(answerable)), 3),
    }


def fit_trees(rows: list[dict[str, Any]], w: float) -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    rows = [r for r in rows if len(r["x"])]
    x = np.concatenate([r["x"] for r in rows])
    y = np.concatenate([r["y"] for r in rows])
    weight = np.concatenate([np.full(len(r["y"]), 1.0 if r["set"] == "seeds" else w) for r in rows])
    model = HistGradientBoostingClassifier(**TREES, early_stopping=False, random_state=0)
    return model.fit(x, y, sample_weight=weight)


def fold(row: dict[str, Any]) -> int:
    return int(hashlib.md5(f"{row['set']}:{row['id']}".encode()).hexdigest(), 16) % 5


def scored(
    rows: list[dict[str, Any]], probs: list[np.ndarray], idx: list[int], t: float
) -> dict[str, float]:
    """`scores` of the papers chosen at `t` for the rows `idx`."""
    return scores(
        [rows[i] for i in idx], chosen([rows[i] for i in idx], [probs[i] for i in idx], t)
    )


def seeds_recall_before(fit_rows: list[dict[str, Any]]) -> float:
    """The seeds' recall, cross-validated on the same folds, of a logistic regression over the
    same features fitted on the seeds alone (the shipped judgement's form), at its threshold."""
    seeds = [r for r in fit_rows if r["set"] == "seeds"]
    probs: list[np.ndarray] = [np.zeros(0)] * len(seeds)
    for k in range(5):
        train = [r for r in seeds if fold(r) != k and len(r["x"])]
        x = np.concatenate([r["x"] for r in train])
        mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
        w, b = fit_logistic((x - mean) / scale, np.concatenate([r["y"] for r in train]))
        for i, r in enumerate(seeds):
            if fold(r) == k and len(r["x"]):
                probs[i] = 1 / (1 + np.exp(-(((r["x"] - mean) / scale) @ w + b)))
    return scores(seeds, chosen(seeds, probs, settings().paper_probability))["recall"]


def recalibration(fit_rows: list[dict[str, Any]], probs: list[np.ndarray]) -> tuple[float, float]:
    """Platt's slope and offset for the trees' logit, fitted on the seed questions'
    cross-validated probabilities against their labels."""
    pairs = [(p, r["y"]) for p, r in zip(probs, fit_rows, strict=True) if r["set"] == "seeds"]
    p = np.clip(np.concatenate([p for p, _ in pairs if len(p)]), 1e-6, 1 - 1e-6)
    y = np.concatenate([y for p, y in pairs if len(p)])
    w, b = fit_logistic(np.log(p / (1 - p))[:, None], y, l2=1e-3)
    return float(w[0]), float(b)


def scaled(p: np.ndarray, slope: float, offset: float) -> np.ndarray:
    """`p` with its logit recalibrated (`recalibration`)."""
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return np.asarray(1.0 / (1.0 + np.exp(-(slope * np.log(p / (1 - p)) + offset))))


def cross_validated(fit_rows: list[dict[str, Any]], w: float) -> list[np.ndarray]:
    probs: list[np.ndarray] = [np.zeros(0)] * len(fit_rows)
    for k in range(5):
        train = [r for r in fit_rows if fold(r) != k]
        model = fit_trees(train, w)
        for i, r in enumerate(fit_rows):
            if fold(r) == k and len(r["x"]):
                probs[i] = model.predict_proba(r["x"])[:, 1]
    return probs


def parts(rows: list[dict[str, Any]], split: str) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        if r["split"] == split:
            out.setdefault(r["set"], []).append(i)
            if r["form"] in LIST_FORMS:
                out.setdefault("seeds: list-type", []).append(i)
    return out


def table(name: str, rows: list[dict[str, Any]], probs: list[np.ndarray], t: float) -> list[str]:
    lines = []
    for split in ("fit", "heldout"):
        for part, idx in sorted(parts(rows, split).items()):
            s = scored(rows, probs, idx, t)
            lines.append(
                f"| {name} | {split} | {part} | {s['questions']} | {s['recall']} | "
                f"{s['precision']} | {s['f1']} | {s['papers_cited']} | {s['false_abstentions']} |"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, default=ROOT / "bench" / "work" / "seeds-index")
    parser.add_argument("--scifact-index", required=True, help="the folder `rag eval` built")
    parser.add_argument(
        "--weights", type=float, nargs="+", default=WEIGHTS_TRIED, help="biomedical weights tried"
    )
    args = parser.parse_args()
    if not SCIFACT.is_dir():
        sys.exit(f"{SCIFACT} is absent: the biomedical sets cannot be built here")
    sf = scifact_index(args.scifact_index)
    rows = seed_rows(open_index(args.index)) + scifact_rows(sf) + aim_rows(sf)
    fit_rows = [r for r in rows if r["split"] == "fit"]
    bar = seeds_recall_before(fit_rows)
    grid = []
    cv: dict[float, list[np.ndarray]] = {}
    for w in args.weights:
        probs = cv[w] = cross_validated(fit_rows, w)
        for t in np.arange(0.2, 0.61, 0.05):
            s = {
                name: scored(fit_rows, probs, idx, float(t))
                for name, idx in parts(fit_rows, "fit").items()
                if name in SETS
            }
            grid.append((w, round(float(t), 2), s))
            print(
                f"w={w} t={t:.2f} "
                + ", ".join(f"{n} {v['recall']}/{v['precision']}" for n, v in s.items()),
                flush=True,
            )
    allowed = [g for g in grid if g[2]["seeds"]["recall"] >= bar]
    best_w, best_t, _ = max(allowed, key=lambda g: g[2]["scifact"]["f1"] + g[2]["aims"]["f1"])
    model = fit_trees(fit_rows, best_w)
    slope, offset = recalibration(fit_rows, cv[best_w])
    threshold = round(scaled(np.array([best_t]), slope, offset)[0], 3)
    trees = [
        scaled(model.predict_proba(r["x"])[:, 1], slope, offset) if len(r["x"]) else np.zeros(0)
        for r in rows
    ]
    shipped = [paper_choice.probabilities(r["x"]) for r in rows]
    bar_shipped = settings().paper_probability
    lines = [
        "# The per-paper judgement over two fields (`bench/answers/paper_choice_domains.py`)",
        "",
        f"Chosen by 5-fold cross-validation on the fitting parts: biomedical weight {best_w}, "
        f"threshold {best_t}, the best mean F1 of the two biomedical sets among the settings "
        f"whose seed recall is at least the shipped regression's refitted on the same folds "
        f"({bar}, at its threshold). Weights tried: {', '.join(map(str, args.weights))}. The "
        f"trees' logit is then recalibrated on the seed questions' cross-validated "
        f"probabilities (Platt: slope {slope:.4f}, offset {offset:.4f}), so that a probability "
        "means on the seeds what it meant before (the follow-ups' bars read it); the threshold "
        f"{best_t} becomes {threshold}.",
        "",
        "| model | split | set | questions | recall | precision | F1 | papers cited | "
        "false abstentions |",
        "|---|---|---|---|---|---|---|---|---|",
        *table(f"shipped (seeds only, t {bar_shipped})", rows, shipped, bar_shipped),
        *table(f"trees, three sets (w {best_w}, t {threshold})", rows, trees, threshold),
        "",
        "Cross-validated recall / precision on the fitting parts, by biomedical weight w and "
        "threshold t:",
        "",
        *[
            f"- w {w}, t {t}: "
            + ", ".join(f"{n} {v['recall']} / {v['precision']}" for n, v in s.items())
            for w, t, s in grid
        ],
    ]
    RESULTS.mkdir(exist_ok=True)
    if NOTE.exists():  # what was measured beyond this script (the follow-up benches)
        lines += ["", NOTE.read_text(encoding="utf-8").strip()]
    (RESULTS / "paper_choice_domains.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines[:20]))


if __name__ == "__main__":
    main()
