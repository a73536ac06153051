"""Fit the "which papers" coverage rule: list a paper that holds most of the question's terms.

The cut by relevance alone (`list_relative_relevance`, `list_relevance_floor`, fitted by
bench/answers/calibrate_composition.py) misses papers that name the topic but whose abstract is
about something narrower, so their cosine is low ("Which papers are about interpretability?" and the
Certified Circuits paper). This adds: keep a paper whose IDF-weighted share of the question's
terms (`rag.answer.abstention.term_coverage`) reaches C and whose relevance reaches F. C and F are
chosen
for mean F2 (recall weighs twice) on the fitting half of the labelled "which papers" questions
(the same halves as bench/answers/calibrate_composition.py) and reported on the held-out half.

    .venv/bin/python bench/answers/list_coverage.py   # about a minute

It writes bench/results/list_coverage.md.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.answers import calibrate_composition as cc  # noqa: E402
from rag.answer.abstention import question_terms, term_coverage  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.ingest.pipeline import ingest  # noqa: E402
from rag.settings import Settings  # noqa: E402

SHARE, FLOOR = 0.675, 0.3  # the relevance cut's settings (list_relative_relevance, ..._floor)
COVERAGES = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 2.0]  # 2.0: never (the relevance cut alone)
FLOORS = [0.0, 0.05, 0.1, 0.15, 0.2]
LEASTS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]  # least coverage of a paper kept by relevance
OTHER_SHARE = 0.95  # the cut of the other questions (relative_relevance)


def kept(row: dict, coverage: float, floor: float, least: float = 0.0) -> list[str]:  # type: ignore[type-arg]
    hits, best = row["_hits"], max(h.relevance for h in row["_hits"])
    cut = max(FLOOR, SHARE * best) if row["list"] else OTHER_SHARE * best
    return [
        h.paper.authors[0]
        for i, (h, c) in enumerate(zip(hits, row["cov"], strict=True))
        if i == 0
        or (h.relevance >= cut and c >= least)
        or (row["list"] and c >= coverage and h.relevance >= floor)
    ]


def score(
    rows: list[dict],  # type: ignore[type-arg]
    coverage: float,
    floor: float,
    least: float = 0.0,
) -> tuple[float, float, float, float]:
    f2, p, r, n = [], [], [], []
    for row in rows:
        names = kept(row, coverage, floor, least)
        right = sum(a in row["gold"] for a in names)
        pi, ri = right / len(names), right / len(row["gold"])
        p.append(pi)
        r.append(ri)
        n.append(len(names))
        f2.append(5 * pi * ri / (4 * pi + ri) if pi + ri else 0.0)
    return float(np.mean(f2)), float(np.mean(p)), float(np.mean(r)), float(np.mean(n))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        index = Index(Settings(index_dir=Path(tmp), backend="extractive"), create=True)
        ingest([ROOT / "seeds"], index)
        every = cc.paper_rows(index, cc.questions(index))
        rows = [r for r in every if r["list"]]
        others = [r for r in every if not r["list"]]
        for row in every:
            terms = question_terms(index, row["q"])
            row["cov"] = [term_coverage(index, terms, h.paper.id) for h in row["_hits"]]
    fit = [r for r in rows if not r["held_out"]]
    held = [r for r in rows if r["held_out"]]
    grid = [(c, f) for c in COVERAGES for f in FLOORS]
    best = max(grid, key=lambda cf: (round(score(fit, *cf)[0], 6), -cf[0], cf[1]))
    # Then the least share of the terms a paper kept by its relevance must hold (ties: lowest).
    least = max(LEASTS, key=lambda x: (round(score(fit, *best, x)[0], 6), -x))
    lines = [
        '# "Which papers" answers: the coverage rule',
        "",
        "Command: `.venv/bin/python bench/answers/list_coverage.py` (seeds, real MiniLM; labelled "
        f'"which papers" questions: {len(fit)} fitting, {len(held)} held out, split as in '
        "bench/answers/calibrate_composition.py). A paper is listed when it is the best-ranked, "
        "when its "
        f"relevance reaches max({FLOOR}, {SHARE} x best), or when it holds a share C of the "
        "question's distinctive terms and its relevance reaches F. Chosen for mean F2 on the "
        f"fitting half: C = {best[0]}, F = {best[1]}. Then a paper kept by its relevance (not the "
        "best-ranked) must also hold a share L of the terms; L chosen the same way: "
        f"L = {least}. The same L is shown for the other questions (cut {OTHER_SHARE} x best; "
        f"{sum(not r['held_out'] for r in others)} fitting, "
        f"{sum(r['held_out'] for r in others)} held out), where F2 is reported alike.",
        "",
        "| rule | half | F2 | precision | recall | papers per answer |",
        "|---|---|---|---|---|---|",
    ]
    for name, args in (
        ("relevance cut alone", (2.0, 1.0, 0.0)),
        (f"+ coverage C={best[0]}, F={best[1]}", (*best, 0.0)),
        (f"+ coverage, and L={least}", (*best, least)),
    ):
        for half, rs in (("fitting", fit), ("held out", held)):
            f2, p, r, n = score(rs, *args)
            lines.append(f"| {name} | {half} | {f2:.3f} | {p:.3f} | {r:.3f} | {n:.2f} |")
    for name, x in (("other questions, relevance cut alone", 0.0), (f"other, L={least}", least)):
        for half, part in (("fitting", False), ("held out", True)):
            f2, p, r, n = score([o for o in others if o["held_out"] is part], 2.0, 1.0, x)
            lines.append(f"| {name} | {half} | {f2:.3f} | {p:.3f} | {r:.3f} | {n:.2f} |")
    out = ROOT / "bench" / "results" / "list_coverage.md"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
