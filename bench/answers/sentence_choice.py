"""Fit the sentence choice: which sentence of a paper opens its line of the answer (issue 22).

    .venv/bin/python bench/answers/sentence_choice.py collect --index DIR [--scifact-index DIR]
    .venv/bin/python bench/answers/sentence_choice.py fit [--write] [--out sentence_choice]
    .venv/bin/python bench/answers/sentence_choice.py fit --fit-lists --out sentence_choice_lists

`collect` answers every labelled question once (`rag ask`, extractive) and records, for the
labelled paper, every sentence the composer could choose from as it saw them (the question as
searched, after correction and condensing): its role, its cosine to the question, the share of
the question's terms it holds, whether it passes the question-relevance gate, whether it is a
fragment, and whether it is a wanted one. The labelled sets: the seed role questions
(bench/data/role_questions.jsonl, `fit` / `heldout` by the file's split), the lines of the
relevant papers of seed list questions (bench/data/list_lines.jsonl, same split; fitted on only
with `--fit-lists`: see bench/results/sentence_choice_lists.md), the SciFact training
claims with rationale sentences (the stance parts: fit + calib to fit on, held_out only
reported), aim questions from structured SciFact abstracts (`aim_cases`; parts by a hash of
the abstract), and the lines of generic follow-ups asked in chat (bench/data/aspect_lines.jsonl,
same split as their sessions; fitted on only with `--fit-aspects`). The aim questions' targets
are the sentences the authors filed under results or conclusions, and those roles are features,
so their held-out score says the fit learned to put findings first for such questions, not that
it reads the findings better. Cases go to the
temporary folder (rebuilt in about three minutes once both indexes exist).

`fit` fits the weights of `rag.ingest.wanted.choice_scores` (a softmax over the candidate
sentences of one paper, one linear score per sentence, the wanted sentences the targets;
L2-regularised, the strength chosen by 5-fold cross-validation over the fitting questions) on
the fitting parts only; `--write` stores them in rag/ingest/model/sentence_choice.json and
`--out NAME` writes bench/results/NAME.md: top-1 accuracy (the wanted sentence chosen) per set,
the first hand-set weights and the shipped ones (rag/ingest/model/sentence_choice.json) beside
the fitted ones.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
from scipy.optimize import minimize  # noqa: E402

from bench.answers import finding_first  # noqa: E402
from rag.answer.evidence import paper_sentence_roles  # noqa: E402
from rag.answer.relevance import about_score  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.ingest import wanted as wanted_module  # noqa: E402
from rag.ingest.wanted import term_share  # noqa: E402
from rag.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"
CASES = Path(tempfile.gettempdir()) / "rag-sentence-choice-cases.json"


def record(
    set_name: str, case: finding_first.Case, voiced: dict[str, str] | None = None
) -> dict[str, Any]:
    """One case as plain data: the question, what it wants, and every candidate sentence.

    `voiced` rewrites sentences before they are scored (an aim given in the abstract's own
    voice, see `aim_cases`)."""
    ev, rel = case.evidence, case.relevance
    voiced = voiced or {}
    pairs = [(voiced.get(s, s), r) for s, r in paper_sentence_roles(ev.hit.paper)]
    sentences = [s for s, _ in pairs]
    vectors = ev.vectors if ev.vectors is not None and len(ev.vectors) == len(pairs) else None
    if vectors is None or voiced:
        vectors = rel.embedder.embed(sentences)
    cosines = vectors @ rel.vector
    shared = ev.shared if ev.shared is not None else np.zeros(len(pairs))
    rows = []
    for (s, role), cosine, alike in zip(pairs, cosines, shared, strict=True):
        share = term_share(rel.terms, s)
        rows.append(
            {
                "text": s,
                "role": role,
                "cosine": float(cosine),
                "shared": float(alike),
                "share": share,
                "passes": bool(rel.passes(about_score(float(cosine), share, rel.weight))),
                "fragment": wanted_module.is_fragment(s),
                "target": s in case.targets,
            }
        )
    return {
        "set": set_name,
        "question": case.question,
        "want": str(wanted_module.wanted(case.question)),
        "sentences": rows,
    }


AimCase = tuple[finding_first.Case, dict[str, str]]


def aim_cases(index: Index) -> dict[str, list[AimCase]]:
    """Questions from the aims of structured SciFact abstracts; wanted: any sentence the authors
    filed under results or conclusions. Parts by a hash of the abstract's id.

    Each aim is asked twice, as a yes/no question ("Does X?") and as a claim ("X."), and its
    sentence is given in the abstract's own voice ("To determine whether X." becomes "We sought
    to determine whether X.", as unstructured abstracts state aims): a fragment is never a
    candidate, and the aim that restates the question must lose on its role, not by accident.
    """
    out: dict[str, list[AimCase]] = {"aims fit": [], "aims held_out": []}
    for aim in finding_first.structured_aims(index):
        paper, clause = aim.paper, aim.clause
        voiced = {aim.sentence: re.sub(r"^to\s+", "We sought to ", aim.sentence, flags=re.I)}
        for question in (f"Does {clause}?", f"{clause[:1].upper()}{clause[1:]}."):
            if (got := finding_first.captured(index, question)) is None:
                continue
            for ev in got[0]:
                if ev.hit.paper.id == paper.id:
                    targets = {
                        s for s, r in paper_sentence_roles(paper) if r in ("result", "conclusion")
                    }
                    part = "aims held_out" if aim.held_out else "aims fit"
                    case = finding_first.Case(got[2], ev, got[1], targets)
                    out[part].append((case, voiced))
    return out


def collect(args: argparse.Namespace) -> None:
    seeds_index = Index(Settings(index_dir=Path(args.index)))
    out = []
    for split in ("fit", "heldout"):
        out += [record(f"seeds {split}", c) for c in finding_first.seed_cases(seeds_index, split)]
        out += [
            record(f"quantity {split}", c)
            for c in finding_first.seed_cases(seeds_index, split, finding_first.QUANTITY_QUESTIONS)
        ]
        out += [
            record(f"blind {split}", c)
            for c in finding_first.seed_cases(seeds_index, split, finding_first.BLIND_QUESTIONS)
        ]
        out += [
            record(f"seed lists {split}", c) for c in finding_first.list_cases(seeds_index, split)
        ]
        out += [
            record(f"aspect follow-ups {split}", c)
            for c in finding_first.aspect_cases(seeds_index, split)
        ]
    if args.scifact_index:
        sf = Path(args.scifact_index)
        index = Index(Settings(index_dir=sf / "eval-scifact", collection="eval-scifact"))
        for name, parts in (
            ("scifact tune", ("fit", "calib")),
            ("scifact held_out", ("held_out",)),
        ):
            out += [record(name, c) for c in finding_first.scifact_cases(index, parts)]
        for name, cases in aim_cases(index).items():
            out += [record(name, c, voiced) for c, voiced in cases]
    CASES.write_text(json.dumps(out, ensure_ascii=False) + "\n")
    print({s: sum(c["set"] == s for c in out) for s in sorted({c["set"] for c in out})})


# ---------------------------------------------------------------------------------------------
# Fitting
# ---------------------------------------------------------------------------------------------


# The hand-set weights the fitted ones replaced (the role weights of the last coordinate-ascent
# fit, the question's terms, the first sentence naming what a definition question names, and
# the referent malus), in `choice_features` names: the "before" column.
HAND_SET = {
    "cosine": 1.0,
    "finding:role:result": 0.12,
    "finding:role:conclusion": 0.12,
    "finding:role:method": -0.12,
    "finding:role:objective": -0.3,
    "finding:role:background": -0.3,
    "finding:terms": 0.9,
    "definition:role:objective": 0.39,
    "definition:role:method": 0.18,
    "definition:role:background": -0.12,
    "definition:terms": 0.1,
    "definition:first": 0.36,
    "motivation:role:background": 0.12,
    "motivation:role:objective": 0.06,
    "demonstrative": -0.12,
}


def candidates(case: dict[str, Any]) -> list[int]:
    """The sentences the composer may choose among: through the gate, not fragments."""
    return [i for i, s in enumerate(case["sentences"]) if s["passes"] and not s["fragment"]]


def matrix(case: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Features (one row per candidate), targets, and the feature names, for one case."""
    rows = case["sentences"]
    names, x = wanted_module.choice_features(
        case["question"],
        [(s["text"], s["role"]) for s in rows],
        np.array([s["cosine"] for s in rows]),
        np.array([s.get("shared", 0.0) for s in rows]),
    )
    keep = candidates(case)
    return x[keep], np.array([rows[i]["target"] for i in keep], dtype=bool), names


def top1(cases: list[dict[str, Any]], weights: dict[str, float]) -> float:
    """Share of `cases` whose highest-scoring candidate is a wanted sentence, scored as the
    product scores them (`choice_scores`: the fitted score, then `after_rules`)."""
    ok = 0
    for case in cases:
        rows = case["sentences"]
        keep = candidates(case)
        if keep:
            scores = wanted_module.choice_scores(
                case["question"],
                [(s["text"], s["role"]) for s in rows],
                np.array([s["cosine"] for s in rows]),
                weights,
                np.array([s.get("shared", 0.0) for s in rows]),
            )
            ok += bool(rows[keep[int(np.argmax(scores[keep]))]]["target"])
    return ok / len(cases) if cases else 0.0


def fit_weights(cases: list[dict[str, Any]], l2: float) -> dict[str, float]:
    """Listwise softmax fit: maximise the log of the probability mass on wanted sentences."""
    data = [matrix(c) for c in cases]
    data = [(x, y, n) for x, y, n in data if y.any() and not y.all()]
    if not data:
        raise SystemExit("No case has both wanted and unwanted candidates: nothing to fit.")
    names = sorted({n for _, _, ns in data for n in ns})
    col = {n: i for i, n in enumerate(names)}
    mats = []
    for x, y, ns in data:
        full = np.zeros((len(y), len(names)))
        full[:, [col[n] for n in ns]] = x
        mats.append((full, y))

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = l2 * float(w @ w), 2 * l2 * w
        for x, y in mats:
            z = x @ w
            z -= z.max()
            p = np.exp(z)
            p /= p.sum()
            pos = p[y].sum()
            total -= np.log(pos)
            q = np.where(y, p / pos, 0.0)
            grad -= x.T @ (q - p)
        return total / len(mats), grad / len(mats)

    result = minimize(loss, np.zeros(len(names)), jac=True, method="L-BFGS-B")
    return {n: round(float(v), 4) for n, v in zip(names, result.x, strict=True)}


def folds(cases: list[dict[str, Any]], k: int = 5) -> list[list[dict[str, Any]]]:
    """Cross-validation folds by paper (its first sentence), so that the questions on one paper
    (an aim asked as a question and as a claim, several seed questions) share a fold."""
    fold = [zlib.crc32(c["sentences"][0]["text"].encode()) % k for c in cases]
    return [[c for c, f in zip(cases, fold, strict=True) if f == i] for i in range(k)]


FITTING = ("seeds fit", "scifact tune", "aims fit", "quantity fit")
# Fitted too with --fit-lists only: on them the list lines and the role questions disagree
# (bench/results/sentence_choice_lists.md).
LISTS_FIT = "seed lists fit"
# Fitted too with --fit-aspects: the lines of generic follow-ups ("privacy guarantees?"),
# bench/data/aspect_lines.jsonl.
ASPECTS_FIT = "aspect follow-ups fit"


def fit(args: argparse.Namespace) -> None:
    cases = json.loads(CASES.read_text())
    sets = sorted({c["set"] for c in cases})
    by_set = {s: [c for c in cases if c["set"] == s] for s in sets}
    fitting_sets = (
        *FITTING,
        *((LISTS_FIT,) if args.fit_lists else ()),
        *((ASPECTS_FIT,) if args.fit_aspects else ()),
    )
    fitting = [c for c in cases if c["set"] in fitting_sets]
    cv = {}
    for l2 in (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0):
        parts = folds(fitting)
        scores = []
        for i, part in enumerate(parts):
            rest = [c for j, p in enumerate(parts) if j != i for c in p]
            scores.append(top1(part, fit_weights(rest, l2)))
        cv[l2] = float(np.mean(scores))
    l2 = max(cv, key=cv.__getitem__)
    fitted = fit_weights(fitting, l2)
    today = HAND_SET
    lines = [
        "# Which sentence opens a paper's line (`bench/answers/sentence_choice.py`)",
        "",
        "Cross-validated top-1 on the fitting parts by L2 strength: "
        + ", ".join(f"{k}: {v:.3f}" for k, v in cv.items())
        + f"; chosen {l2}.",
        "",
        "| set | cases | hand-set weights (first) | shipped weights | fitted weights |",
        "|---|---|---|---|---|",
    ]
    shipped = dict(wanted_module.choice_weights())
    held = [c for c in cases if c["set"] not in (*fitting_sets, LISTS_FIT, ASPECTS_FIT)]
    for name, part in [*by_set.items(), ("all held out", held)]:
        lines.append(
            f"| {name} | {len(part)} | {top1(part, today):.3f} | {top1(part, shipped):.3f} | "
            f"{top1(part, fitted):.3f} |"
        )
    print("\n".join(lines))
    if args.write:
        weights = {k: v for k, v in sorted(fitted.items()) if v}
        payload = {
            "fitted_by": "bench/answers/sentence_choice.py fit",
            "l2": l2,
            "weights": weights,
        }
        wanted_module.WEIGHTS.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    if args.out:
        (RESULTS / f"{args.out}.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("collect")
    p.add_argument("--index", required=True)
    p.add_argument("--scifact-index", default="", help="the folder holding eval-scifact")
    p.set_defaults(fn=collect)
    p = sub.add_parser("fit")
    p.add_argument("--write", action="store_true", help="write the weights the product reads")
    p.add_argument("--out", default="", help="write bench/results/OUT.md")
    p.add_argument("--fit-lists", action="store_true", help="fit on the list lines too")
    p.add_argument("--fit-aspects", action="store_true", help="fit on the aspect lines too")
    p.set_defaults(fn=fit)
    args = parser.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
