"""Fit and judge the per-paper decision (`rag/answer/paper_choice.py`) on labelled questions.

    .venv/bin/python bench/answers/paper_choice.py fit          # fit on the fitting part
    .venv/bin/python bench/answers/paper_choice.py answers TAG  # run `rag.ask`, score cited papers
    .venv/bin/python bench/answers/paper_choice.py gate         # choose LEAST_FOR_ALTERNATIVE

Questions: bench/data/paper_questions.jsonl (253, each judged against all 40 seed abstracts) and
the five phrasings of each need in bench/data/phrasing_needs.jsonl; ids divisible by 3 are the
held-out part, which nothing is fitted on. `fit` computes the features of every retrieved paper
(k = top_k) of every question, fits a logistic regression on the fitting part, chooses the
threshold with the best F1 of the fitting part's chosen papers, and prints the coefficients to
paste into rag/answer/paper_choice.py with the held-out table. `answers TAG` asks every question
(extractive) and scores the papers the answer cites against the labels, by split and by form,
with the phrasing invariance (mean Jaccard of the cited sets over a need's phrasings) and false
abstentions; it writes bench/results/paper_choice_TAG.json (with every question's cited papers)
and appends to paper_choice.md. It also asks bench/data/vague_questions.jsonl (90 questions
in the common words of machine-learning abstracts, 47 with a paper, written and labelled blind;
rows "vague ..."): `fit` leaves them out, so they judge the shipped choice on phrasings that no
fitted number has seen (bench/results/paper_choice_vague.md has the candidates fitted on them).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rag.answer import paper_choice  # noqa: E402
from rag.answer.abstention import decide, question_terms  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.retrieve import search  # noqa: E402
from rag.index.spelling import corrected  # noqa: E402
from rag.ingest.pipeline import ingest  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data"
RESULTS = ROOT / "bench" / "results"
LIST_FORMS = {"which_papers", "list", "what_do_papers_say", "summarize", "anything_on"}


def read(name: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (DATA / name).read_text(encoding="utf-8").splitlines() if x]


def questions(vague: bool = False) -> list[dict[str, Any]]:
    """Every labelled question: id, text, form, relevant first authors, split, need, set; with
    `vague`, also those of vague_questions.jsonl (set "vague "), which nothing is fitted on."""
    rows = [{**q, "need": None, "set": ""} for q in read("paper_questions.jsonl")]
    for need in read("phrasing_needs.jsonl"):
        for form, text in need["phrasings"].items():
            rows.append(
                {
                    "id": f"{need['need']}-{form}",
                    "q": text,
                    "form": form,
                    "relevant": need["relevant"],
                    "split": need["split"],
                    "need": need["need"],
                    "set": "",
                }
            )
    if vague:
        rows += [{**q, "need": None, "set": "vague "} for q in read("vague_questions.jsonl")]
    return rows


def open_index(folder: Path) -> Index:
    settings = Settings(index_dir=folder)
    if not (folder / "chroma.sqlite3").exists():
        ingest([ROOT / "seeds"], Index(settings, create=True))
    return Index(settings)


def feature_rows(index: Index, rows: list[dict[str, Any]], k: int) -> list[dict[str, Any]]:
    settings = index.settings
    out = []
    for row in rows:
        query = corrected(index, row["q"])  # as `rag ask` reads it (rag/index/spelling.py)
        hits = search(index, query, k=k, retriever="hybrid", rescore=True)
        terms = question_terms(index, query)
        decision = decide(index, query, hits, settings.min_relevance)
        x = paper_choice.features(index, query, hits, terms, decision)
        y = np.array([h.paper.authors[0] in row["relevant"] for h in hits], dtype=float)
        out.append({**row, "x": x, "y": y, "authors": [h.paper.authors[0] for h in hits]})
    return out


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0) -> tuple[np.ndarray, float]:
    """Newton's method on the L2-penalised log loss (standardised x)."""
    w, b = np.zeros(x.shape[1]), 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g_w = x.T @ (p - y) + l2 * w
        g_b = float(np.sum(p - y))
        s = p * (1 - p)
        h = np.zeros((x.shape[1] + 1, x.shape[1] + 1))
        h[:-1, :-1] = x.T @ (x * s[:, None]) + l2 * np.eye(x.shape[1])
        h[:-1, -1] = h[-1, :-1] = x.T @ s
        h[-1, -1] = float(np.sum(s)) + 1e-9
        step = np.linalg.solve(h, np.concatenate([g_w, [g_b]]))
        w, b = w - step[:-1], b - float(step[-1])
        if np.max(np.abs(step)) < 1e-8:
            break
    return w, b


def scores(chosen: list[set[str]], rows: list[dict[str, Any]]) -> dict[str, float]:
    """Micro recall and precision of chosen papers, and abstentions."""
    tp = sum(len(c & set(r["relevant"])) for c, r in zip(chosen, rows, strict=True))
    n_rel = sum(len(r["relevant"]) for r in rows)
    n_chosen = sum(len(c) for c in chosen)
    answerable = [c for c, r in zip(chosen, rows, strict=True) if r["relevant"]]
    off = [c for c, r in zip(chosen, rows, strict=True) if not r["relevant"]]
    return {
        "questions": len(rows),
        "recall": round(tp / n_rel, 3) if n_rel else float("nan"),
        "precision": round(tp / n_chosen, 3) if n_chosen else float("nan"),
        "false_abstentions": round(sum(not c for c in answerable) / max(1, len(answerable)), 3),
        "unanswerable_abstained": round(sum(not c for c in off) / max(1, len(off)), 3),
    }


def table(results: dict[str, dict[str, float]], title: str) -> str:
    lines = [f"### {title}", "", "| part | questions | recall | precision | false abstentions "
             "| unanswerable abstained |", "|---|---|---|---|---|---|"]  # fmt: skip
    for part, s in results.items():
        lines.append(
            f"| {part} | {s['questions']} | {s['recall']} | {s['precision']} | "
            f"{s['false_abstentions']} | {s['unanswerable_abstained']} |"
        )
    return "\n".join(lines) + "\n"


def parts(rows: list[dict[str, Any]]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        for split in (r["split"], "all"):
            out.setdefault(f"{r['set']}{split}: all questions", []).append(i)
            if r["form"] in LIST_FORMS:
                out.setdefault(f"{r['set']}{split}: list-type", []).append(i)
    return dict(sorted(out.items()))


def fit(args: argparse.Namespace) -> None:
    index = open_index(args.index)
    rows = feature_rows(index, questions(), index.settings.top_k)
    fit_rows = [r for r in rows if r["split"] == "fit"]
    x = np.concatenate([r["x"] for r in fit_rows])
    y = np.concatenate([r["y"] for r in fit_rows])
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    w, b = fit_logistic((x - mean) / scale, y, args.l2)

    def chosen_at(t: float, subset: list[dict[str, Any]]) -> list[set[str]]:
        out = []
        for r in subset:
            p = 1 / (1 + np.exp(-(((r["x"] - mean) / scale) @ w + b)))
            out.append({a for a, q in zip(r["authors"], p, strict=True) if q >= t})
        return out

    best_t, best_f = 0.5, -1.0
    for t in np.arange(0.05, 0.96, 0.01):
        s = scores(chosen_at(float(t), fit_rows), fit_rows)
        f = 2 * s["recall"] * s["precision"] / max(1e-9, s["recall"] + s["precision"])
        if f > best_f:
            best_t, best_f = float(t), f
    results = {
        name: scores(chosen_at(best_t, [rows[i] for i in idx]), [rows[i] for i in idx])
        for name, idx in parts(rows).items()
    }
    fitted = {
        "features": list(paper_choice.FEATURES),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "coef": [round(float(v), 6) for v in w],
        "intercept": round(b, 6),
        "threshold": round(best_t, 2),
        "l2": args.l2,
        "pairs_fitted": len(y),
        "chosen_papers": results,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "paper_choice.json").write_text(json.dumps(fitted, indent=2) + "\n")
    print(json.dumps({k: fitted[k] for k in ("mean", "scale", "coef", "intercept", "threshold")}))
    print(table(results, f"Papers chosen before composing (threshold {best_t:.2f})"))


def answers(args: argparse.Namespace) -> None:
    from rag import api

    index = open_index(args.index)
    settings = index.settings.model_copy(update={"backend": "extractive"})
    rows = questions(vague=True)
    cited: list[set[str]] = []
    for r in rows:
        answer = api.ask(r["q"], settings=settings, index=index)
        cited.append(
            set() if answer.abstained else {c.hit.paper.authors[0] for c in answer.citations}
        )
    results = {
        name: scores([cited[i] for i in idx], [rows[i] for i in idx])
        for name, idx in parts(rows).items()
    }
    invariance: dict[str, list[float]] = {}
    for _need, group in itertools.groupby(
        sorted((r["need"], r["split"], i) for i, r in enumerate(rows) if r["need"]),
        key=lambda t: t[0],
    ):
        members = list(group)
        sets = [cited[i] for _, _, i in members]
        pairs = [
            len(a & b) / len(a | b) if a | b else 1.0 for a, b in itertools.combinations(sets, 2)
        ]
        invariance.setdefault(members[0][1], []).append(float(np.mean(pairs)))
    inv = {split: round(float(np.mean(v)), 3) for split, v in invariance.items()}
    asked = [
        {**{k: r[k] for k in ("id", "q", "form", "split", "relevant")}, "cited": sorted(c)}
        for r, c in zip(rows, cited, strict=True)
    ]
    out = {"tag": args.tag, "cited_papers": results, "phrasing_invariance": inv, "asked": asked}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"paper_choice_{args.tag}.json").write_text(json.dumps(out, indent=2) + "\n")
    text = table(results, f"Papers cited by `rag ask` (extractive), {args.tag}")
    text += f"\nPhrasing invariance (mean Jaccard over a need's five phrasings): {inv}\n"
    print(text)
    with (RESULTS / "paper_choice.md").open("a", encoding="utf-8") as f:
        f.write("\n" + text)


def gate(args: argparse.Namespace) -> None:
    """Choose `paper_choice.LEAST_FOR_ALTERNATIVE` on the fitting part: each retrieved paper's
    probability on the whole question and its best on one alternative, replayed as `rag ask`
    chooses (an answerable question keeps its best paper when none passes)."""
    index = open_index(args.index)
    settings = index.settings
    rows = questions()
    judged = []
    for r in rows:
        q = corrected(index, r["q"])
        hits = search(index, q, k=settings.top_k, retriever="hybrid", rescore=True)
        terms = question_terms(index, q)
        decision = decide(index, q, hits, settings.min_relevance)
        whole = paper_choice.probabilities(paper_choice.features(index, q, hits, terms, decision))
        side = paper_choice.alternative_probabilities(index, q, hits, terms, decision)
        alone = bool(len(whole)) and float(whole.max()) >= settings.answer_probability
        answers = decision.answerable or (
            alone and decision.probability >= paper_choice.LEAST_ANSWERABILITY_ALONE
        )
        judged.append(([h.paper.authors[0] for h in hits], whole, side, answers))

    def chosen(least: float, idx: list[int]) -> list[set[str]]:
        out = []
        for i in idx:
            authors, whole, side, answers = judged[i]
            p = np.where(whole >= least, np.maximum(whole, side), whole)
            kept = {a for a, q in zip(authors, p, strict=True) if q >= settings.paper_probability}
            if answers and not kept and authors:
                kept = {authors[int(np.argmax(p))]}
            out.append(kept if answers else set())
        return out

    by_part = parts(rows)
    lines = [
        "| least on the whole question | part | recall | precision | F1 |",
        "|---|---|---|---|---|",
    ]
    for least in [*np.arange(0.0, 0.45, 0.05), 1.0]:
        for part in ("fit: all questions", "heldout: all questions", "heldout: list-type"):
            idx = by_part[part]
            s = scores(chosen(float(least), idx), [rows[i] for i in idx])
            f1 = 2 * s["recall"] * s["precision"] / max(1e-9, s["recall"] + s["precision"])
            lines.append(f"| {least:.2f} | {part} | {s['recall']} | {s['precision']} | {f1:.3f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    (RESULTS / "paper_choice_alternatives_gate.md").write_text(
        "# The least probability on the whole question for an alternative's paper\n\n"
        "Command: `.venv/bin/python bench/answers/paper_choice.py --index DIR gate` (1.00: no "
        "alternative judged; the choice is the best F1 of the fitting part)\n\n" + text,
        encoding="utf-8",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, default=ROOT / "bench" / "work" / "seeds-index")
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fit")
    f.add_argument("--l2", type=float, default=1.0)
    a = sub.add_parser("answers")
    a.add_argument("tag")
    sub.add_parser("gate")
    args = parser.parse_args()
    {"fit": fit, "answers": answers, "gate": gate}[args.command](args)


if __name__ == "__main__":
    main()
