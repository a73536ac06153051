"""Features the sentence choice could read besides its own, fitted as it is and compared.

    .venv/bin/python bench/answers/sentence_choice_candidates.py

The sentence choice (`rag.ingest.wanted.choice_scores`) misses a finding the role model files
under another role ("We prove this equivalence is conditional rather than universal": background;
"Finally, we introduce a compression strategy ...": conclusion). Each candidate adds columns to
`choice_features` (shared and per question tag, as the others) and is fitted exactly as
`bench/answers/sentence_choice.py fit` fits the shipped ones (same cases, fitting parts, L2 by
5-fold cross-validation), on the cases `sentence_choice.py collect` left in the temporary
folder:

- `finding voice`: the paper's own voice reporting ("we prove", "our results show": `own_work`
  and `reports` together);
- `method voice`: the paper's own voice introducing ("we propose", "we introduce");
- `role probabilities`: the role model's probability of each role, not only its choice;
- `finding probability`: its probability of result or conclusion;
- `echo` (stop 60): the share of a sentence's content words the question holds, and how many
  it adds: the aim restated ("How does a deep federated multi-view clustering framework
  perform?" answered "Guan et al. propose a novel deep federated multi-view clustering
  framework") echoes the question and adds little.

Writes bench/results/sentence_choice_candidates.md: top-1 (the wanted sentence chosen) per set,
the current features refitted beside each candidate.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import json  # noqa: E402

import numpy as np  # noqa: E402

from bench.answers import sentence_choice as sc  # noqa: E402
from rag.ingest import roles as roles_module  # noqa: E402
from rag.ingest import wanted as wanted_module  # noqa: E402

_INTRODUCES = re.compile(
    r"\b(?:propose[sd]?|introduce[sd]?|present(?:s|ed)?|develop(?:s|ed)?|design(?:s|ed)?|"
    r"devise[sd]?|formulate[sd]?)\b",
    re.IGNORECASE,
)
SHIPPED = wanted_module.choice_features


def _found(pattern: re.Pattern[str], texts: list[str]) -> np.ndarray:
    return np.array([bool(pattern.search(t)) for t in texts])


def extra_columns(texts: list[str], candidate: str, question: str = "") -> dict[str, np.ndarray]:
    """The candidate's columns for one paper's sentences (in abstract order)."""
    if candidate == "echo":
        return echo_columns(question, texts)
    own = _found(wanted_module._OWN_WORK, texts)
    if candidate == "finding voice":
        return {"finding_voice": (own & _found(wanted_module._REPORTS, texts)).astype(float)}
    if candidate == "method voice":
        return {"method_voice": (own & _found(_INTRODUCES, texts)).astype(float)}
    model = roles_module.load_model()
    keep = [i for i, c in enumerate(roles_module.CLASSES) if c != "other"]
    p = np.exp(model.scores(texts, None))[:, keep]
    p /= p.sum(axis=1, keepdims=True)
    names = [c for c in roles_module.CLASSES if c != "other"]
    if candidate == "role probabilities":
        return {f"p:{n}": p[:, j] for j, n in enumerate(names)}
    return {"p:finding": p[:, names.index("result")] + p[:, names.index("conclusion")]}


def echo_columns(question: str, texts: list[str]) -> dict[str, np.ndarray]:
    """How much of each sentence only says the question back: the share of its content words
    the question holds (`echo`), and how many words it adds (`adds`, log)."""
    asked = set(wanted_module.question_terms(question))
    stems = [set(wanted_module.content_stems(t)) for t in texts]
    echo = np.array([len(s & asked) / len(s) if s else 0.0 for s in stems])
    adds = np.array([np.log1p(len(s - asked)) for s in stems])
    return {"echo": echo, "adds": adds}


def with_candidate(candidate: str) -> Any:
    """`choice_features` with the candidate's columns, shared and per question tag."""

    def features(question: str, pairs: Any, cosines: Any, shared: Any = None) -> Any:
        names, x = SHIPPED(question, pairs, cosines, shared)
        if not names:
            return names, x
        extra = extra_columns([s for s, _ in pairs], candidate, question)
        tags = wanted_module.question_tags(question)
        names = [*names, *extra, *(f"{t}:{k}" for t in tags for k in extra)]
        cols = [*extra.values(), *(v for _ in tags for v in extra.values())]
        return names, np.hstack([x, np.stack(cols, axis=1)])

    return features


def refit(cases: list[dict[str, Any]]) -> tuple[float, dict[str, float]]:
    """`sentence_choice.fit`'s choice: L2 by 5-fold cross-validation, then fitted on all."""
    fitting = [c for c in cases if c["set"] in sc.FITTING]
    cv = {}
    for l2 in (0.01, 0.1, 0.3, 1.0, 3.0, 10.0):
        parts = sc.folds(fitting)
        scores = [
            sc.top1(part, sc.fit_weights([c for j, p in enumerate(parts) if j != i for c in p], l2))
            for i, part in enumerate(parts)
        ]
        cv[l2] = float(np.mean(scores))
    l2 = max(cv, key=cv.__getitem__)
    return l2, sc.fit_weights(fitting, l2)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", default="", help="comma-separated candidates (default: all)")
    args = p.parse_args()
    cases = json.loads(sc.CASES.read_text())
    sets = sorted({c["set"] for c in cases})
    held = [c for c in cases if c["set"] not in (*sc.FITTING, sc.LISTS_FIT, sc.ASPECTS_FIT)]
    shipped = dict(wanted_module.choice_weights())
    columns = {
        "shipped weights": (
            "-",
            {s: sc.top1([c for c in cases if c["set"] == s], shipped) for s in sets}
            | {"all held out": sc.top1(held, shipped)},
        )
    }
    for candidate in ("none", "finding voice", "method voice", "role probabilities",
                      "finding probability", "echo"):  # fmt: skip
        if args.only and candidate not in ("none", *args.only.split(",")):
            continue
        wanted_module.choice_features = (
            SHIPPED if candidate == "none" else with_candidate(candidate)
        )
        l2, weights = refit(cases)
        scores = {s: sc.top1([c for c in cases if c["set"] == s], weights) for s in sets}
        columns[candidate] = (l2, scores | {"all held out": sc.top1(held, weights)})
        print(candidate, l2, columns[candidate][1].get("all held out"), flush=True)
    wanted_module.choice_features = SHIPPED
    names = list(columns)
    lines = [
        "# Candidate features for the sentence choice",
        "",
        "Command: `.venv/bin/python bench/answers/sentence_choice_candidates.py` (after "
        "`sentence_choice.py collect`).",
        "",
        "The shipped weights (`rag/ingest/model/sentence_choice.json`, fitted on the cases of an "
        "earlier stop), then a refit of the shipped features (none) and of those plus each "
        "candidate, as `sentence_choice.py fit` does; top-1 per set (fitting parts: "
        + ", ".join(sc.FITTING)
        + ").",
        "",
        "| set | cases | " + " | ".join(f"{n} (L2 {columns[n][0]})" for n in names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for s in [*sets, "all held out"]:
        n = len(held) if s == "all held out" else sum(c["set"] == s for c in cases)
        lines.append(
            f"| {s} | {n} | " + " | ".join(f"{columns[c][1][s]:.3f}" for c in names) + " |"
        )
    text = "\n".join(lines) + "\n"
    (sc.RESULTS / "sentence_choice_candidates.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
