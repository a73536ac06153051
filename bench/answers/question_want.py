"""Fit what a question wants from an abstract: a finding, a definition or a motivation (issue 22).

    .venv/bin/python bench/answers/question_want.py [--out question_want]

Measured, not shipped (stop 59): the product reads a question's want by the patterns of
`rag.ingest.wanted.wanted`; this fitted reading was wired in and taken out again (see
bench/results/question_want.md for why).

The labelled questions: the seed role questions (bench/data/role_questions.jsonl), the questions
written blind by three helpers who read only the seed abstracts
(bench/data/finding_questions_blind.jsonl) and the quantity questions (all findings), each
with its `kind`; fitted on their `fit` parts only. Held out: their `heldout` parts and the
named-method questions (bench/data/named_role_questions.jsonl, all held out). A message that is
no question (a claim, a keyword query) wants the finding that bears on it without a model
(`rag.ingest.wanted.wanted`), so such lines are scored as the product reads them.

The model: a multinomial logistic regression over `want_features` (the words asked about at
least some number of papers, their pairs, the opening words, the patterns that matched and what
they alone say), L2, that number and the patterns' share of the L2 chosen by 5-fold
cross-validation on the fitting part, folds by paper, the most regularised set-up within one
standard error of the best. `--out` writes bench/results/OUT.md: accuracy per held-out set, the
patterns alone beside the model, and what the model still reads wrong.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import zlib
from collections.abc import Iterable, Mapping
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from scipy.optimize import minimize  # noqa: E402

from rag.ingest import wanted  # noqa: E402

DATA = ROOT / "bench" / "data"
RESULTS = ROOT / "bench" / "results"
FITTING = ("role_questions", "finding_questions_blind", "quantity_questions", "role_followups")
HELD_OUT = (*FITTING, "named_role_questions")
# The patterns' features are shrunk this much less than a word's when PRIORS asks: they say
# what is known of how questions are asked, a word only what the fitting questions happen to hold.
PATTERN_FEATURES = ("re:", "rule:", "bias")
PRIORS = (1.0, 0.1)

Labelled = list[tuple[str, str, str]]  # question, kind, the paper it is asked of
KINDS = ("finding", "definition", "motivation")  # the order of each feature's three weights
_WORD = re.compile(r"[a-z]+")
# The patterns the product reads a question's want by (rag/ingest/wanted.py), as features.
_PATTERNS = (
    ("motivation", wanted._MOTIVATION),
    ("definition", wanted._DEFINITION),
    ("finding", wanted._ASKS_FINDING),
    ("degree", wanted._DEGREE),
)


def words_of(question: str) -> list[str]:
    """The words of `question` as the features read them: lower case, "what's" as "what is"."""
    return _WORD.findall(question.lower().replace("'s ", " is "))


def want_features(question: str) -> set[str]:
    """Name what is measured of `question`: its words ("w:limit"), word pairs ("b:what_limits"),
    first word and first two words ("o:what", "o2:what_limits"), the patterns that match
    ("re:motivation") and what they alone say ("rule:finding"), with a constant ("bias")."""
    words = words_of(question)
    found = {"bias", f"rule:{wanted.wanted(question)}"}
    found |= {f"re:{name}" for name, pattern in _PATTERNS if pattern.search(question)}
    found |= {f"w:{w}" for w in words}
    found |= {f"b:{a}_{b}" for a, b in pairwise(words)}
    if words:
        found.add(f"o:{words[0]}")
    if len(words) > 1:
        found.add(f"o2:{words[0]}_{words[1]}")
    return found


def classify(features: Iterable[str], weights: Mapping[str, tuple[float, ...]]) -> str:
    """Return the kind (one of `KINDS`) whose summed weights over `features` are highest."""
    totals = [0.0] * len(KINDS)
    for name in features:
        for i, value in enumerate(weights.get(name, ())):
            totals[i] += value
    return KINDS[max(range(len(KINDS)), key=totals.__getitem__)]


def labelled(name: str, split: str) -> Labelled:
    """The (question, kind) pairs of bench/data/NAME.jsonl in `split` (no kind: a finding); of
    role_followups.jsonl, the follow-up and the role it wants, where it wants one."""
    rows = [json.loads(x) for x in (DATA / f"{name}.jsonl").read_text().splitlines() if x]
    rows = [r for r in rows if r.get("split") == split]
    if name == "role_followups":
        return [
            (r["second"], r["want"], min(r["wanted_lines"], default=r["id"]))
            for r in rows
            if r["want"] in KINDS
        ]
    return [(r["q"], r.get("kind", "finding"), r["paper"]) for r in rows]


def form_words(data: Labelled, least: int) -> frozenset[str]:
    """The words asked about at least `least` papers: how questions are asked ("what",
    "limits", "propose"), not what about ("clustering" is asked of three papers, and a model
    that weighs it learns which kinds of question those papers got)."""
    papers: dict[str, set[str]] = {}
    for question, _, paper in data:
        for word in set(words_of(question)):
            papers.setdefault(word, set()).add(paper)
    return frozenset(w for w, held in papers.items() if len(held) >= least)


def of_form(feature: str, words: frozenset[str]) -> bool:
    """Whether `feature` reads only form words (`form_words`); the patterns' features always."""
    kind, _, value = feature.partition(":")
    if kind not in ("w", "b", "o", "o2"):
        return True
    return all(w in words for w in value.split("_"))


def fit_weights(
    data: Labelled, l2: float, least: int, prior: float = 1.0
) -> dict[str, list[float]]:
    """Multinomial logistic regression over the features of form words (`form_words`: asked
    about at least `least` papers), the patterns' features penalised `prior` times a word's."""
    words = form_words(data, least)
    names = sorted({f for q, _, _ in data for f in want_features(q) if of_form(f, words)})
    col = {f: i for i, f in enumerate(names)}
    x = np.zeros((len(data), len(names)))
    for i, (q, _, _) in enumerate(data):
        x[i, [col[f] for f in want_features(q) if f in col]] = 1.0
    y = np.eye(len(KINDS))[[KINDS.index(k) for _, k, _ in data]]
    shape = (len(names), len(KINDS))
    penalty = np.repeat([prior if f.startswith(PATTERN_FEATURES) else 1.0 for f in names], shape[1])

    def loss(flat: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ flat.reshape(shape)
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        nll = -float(np.log((p * y).sum(axis=1)).mean())
        grad = (x.T @ (p - y) / len(data)).ravel()
        return nll + l2 * float(penalty * flat @ flat), grad + 2 * l2 * penalty * flat

    result = minimize(loss, np.zeros(x.shape[1] * y.shape[1]), jac=True, method="L-BFGS-B")
    w = result.x.reshape(shape)
    return {f: [round(float(v), 4) for v in w[i]] for i, f in enumerate(names)}


def read(question: str, weights: dict[str, list[float]] | None) -> str:
    """What the product reads `question` as wanting: the patterns alone (`weights` None) or
    the model with `weights`."""
    if not wanted.is_question(question):
        return "finding"
    if weights is None:
        return str(wanted.wanted(question))
    return classify(want_features(question), {k: tuple(v) for k, v in weights.items()})


def accuracy(data: Labelled, weights: dict[str, list[float]] | None) -> float:
    return sum(read(q, weights) == k for q, k, _ in data) / len(data) if data else 0.0


def cross_validated(data: Labelled, l2: float, least: int, prior: float, k: int = 5) -> float:
    fold = [zlib.crc32(paper.encode()) % k for _, _, paper in data]  # by paper
    right = 0
    for i in range(k):
        rest = [d for d, f in zip(data, fold, strict=True) if f != i]
        weights = fit_weights(rest, l2, least, prior)
        right += sum(
            read(q, weights) == kind for (q, kind, _), f in zip(data, fold, strict=True) if f == i
        )
    return right / len(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="", help="write bench/results/OUT.md")
    args = parser.parse_args()
    fitting = [pair for name in FITTING for pair in labelled(name, "fit")]
    grid = {
        (l2, least, prior): 0.0
        for l2 in (0.001, 0.003, 0.01, 0.03)
        for least in (1, 3, 6)
        for prior in PRIORS
    }
    for key in grid:
        grid[key] = cross_validated(fitting, *key)
    # The scores differ by less than their noise: the one-standard-error rule takes the most
    # regularised set-up (strongest L2, then fewest words) within one standard error of the best.
    best = max(grid.values())
    error = (best * (1 - best) / len(fitting)) ** 0.5
    near = [key for key, score in grid.items() if score >= best - error]
    l2, least, prior = max(near, key=lambda key: (key[0], key[1], grid[key]))
    weights = fit_weights(fitting, l2, least, prior)
    lines = [
        "# What a question wants from an abstract (`bench/answers/question_want.py`)",
        "",
        f"Fitted on {len(fitting)} labelled questions (the `fit` parts of "
        + ", ".join(f"bench/data/{n}.jsonl" for n in FITTING)
        + "). Cross-validated accuracy on them, folds by paper, by (L2, the least number of "
        + "papers a word is asked about to be weighed, the patterns' share of the L2): "
        + ", ".join(f"{k}: {v:.3f}" for k, v in grid.items())
        + f"; chosen {(l2, least, prior)}, the most regularised within one standard error "
        + f"({error:.3f}) of the best.",
        "",
        "| held-out set | questions | patterns alone | fitted model |",
        "|---|---|---|---|",
    ]
    wrong = []
    for name in HELD_OUT:
        data = labelled(name, "heldout")
        lines.append(
            f"| {name} | {len(data)} | {accuracy(data, None):.3f} | {accuracy(data, weights):.3f} |"
        )
        wrong += [(k, read(q, weights), q) for q, k, _ in data if read(q, weights) != k]
    lines += ["", "Held-out questions the model reads wrong (labelled -> read):", ""]
    lines += [f"- {k} -> {got}: {q}" for k, got, q in wrong]
    print("\n".join(lines))
    if args.out:
        (RESULTS / f"{args.out}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
