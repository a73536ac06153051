"""Fit and check the abstention decision (rag/answer/abstention.py) on labelled questions, held out.

    .venv/bin/python bench/answers/abstention.py                 # features, fit, tables
    .venv/bin/python bench/answers/abstention.py --refit         # refit from the saved features
    .venv/bin/python bench/answers/abstention.py --scifact-index DIR   # an existing SciFact index
    .venv/bin/python bench/answers/abstention.py --refit --shipped     # judge the shipped model

Labelled questions, each with whether the collection has a paper on it:

- over the seed index: `bench/data/seed_questions.jsonl` (40, answerable),
  `bench/data/abstention_questions.jsonl` (short, plain, vague, acronym-only and "tell me
  about X" questions about the seeds; near-topic and off-topic ones that must abstain),
  `bench/data/offtopic_questions.jsonl` (30, abstain), the dev chat sessions' turns that stand
  on their own (gold: answerable, abstain: not), and 300 SciFact claims (cross-domain: abstain);
- over the SciFact index: the 809 SciFact training claims (answerable when a judged abstract is
  in the top 5, as bench/answers/calibrate.py counts them; the others are left out) and every
  seed-side answerable question (cross-domain: abstain).

Each question's signals come from `rag.answer.abstention.signals` over the same hybrid top 5 that
`ask` retrieves. A stratified 30% of every group is held out; the logistic regression
(scikit-learn) and the probability threshold are chosen on the other 70% only, with the four
groups weighted equally, and the threshold is the one that keeps SciFact coverage >= 98.0% and
cross-domain abstention >= 98.9% on the training part and then abstains correctly most often on
the seed side. Writes bench/results/abstention.{json,md}; paste the printed coefficients into
rag/answer/abstention.py.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from bench.answers.chat_sessions import shared_data  # noqa: E402
from rag.answer import abstention  # noqa: E402
from rag.answer.references import depends_on_history  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.retrieve import search  # noqa: E402
from rag.ingest.pipeline import ingest  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data"
RESULTS = ROOT / "bench" / "results"
CACHE = ROOT / "index_store"
FEATURES_FILE = (
    ROOT / "bench" / "work" / "abstention_features.jsonl"
)  # holds SciFact text: not committed
TOP_K = 5
HELD_OUT = 0.3
SCIFACT_COVERAGE = 0.980  # today's figures with the cosine gate: keep at least these
CROSS_ABSTAIN = 0.989
GRID = [round(x, 3) for x in np.arange(0.05, 0.951, 0.025)]
OLD_MIN_RELEVANCE = 0.40  # the single cosine gate this replaces, for comparison
GROUPS = ("seed answerable", "seed abstain", "scifact answerable", "cross-domain abstain")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def row(index: Index, question: str, answerable: bool, group: str, source: str) -> dict[str, Any]:
    hits = search(index, question, k=TOP_K, retriever="hybrid", rescore=True)
    found = abstention.signals(index, question, hits)
    return {
        "question": question,
        "answerable": answerable,
        "group": group,
        "source": source,
        "top": hits[0].paper.authors[0] if hits and hits[0].paper.authors else None,
        **found.to_dict(),
    }


def seed_side(
    seed_index: Index, sessions: Path
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """Return the seed-index rows and the answerable questions (asked of SciFact later)."""
    rows, answerable = [], []
    for q in read_jsonl(DATA / "seed_questions.jsonl"):
        rows.append(row(seed_index, q["question"], True, GROUPS[0], "seed_questions"))
    for q in read_jsonl(DATA / "abstention_questions.jsonl"):
        group = GROUPS[0] if q["answerable"] else GROUPS[1]
        rows.append(row(seed_index, q["question"], q["answerable"], group, f"written:{q['kind']}"))
    for q in read_jsonl(DATA / "offtopic_questions.jsonl"):
        rows.append(row(seed_index, q["question"], False, GROUPS[1], "offtopic_questions"))
    for session in read_jsonl(sessions):
        for i, turn in enumerate(session["turns"]):
            if turn.get("lang") or (i > 0 and depends_on_history(turn["q"])):
                continue  # Chinese, and follow-ups answered from the papers they refer to
            ok = not turn.get("abstain")
            rows.append(row(seed_index, turn["q"], ok, GROUPS[0 if ok else 1], "dev sessions"))
    # Asked of SciFact these must abstain; a vague topic ("Anything on neuroscience?",
    # "clustering") may well have a biomedical paper there, so it is not asked.
    answerable = [
        (r["question"], r["source"])
        for r in rows
        if r["answerable"] and r["source"] != "written:vague"
    ]
    return rows, answerable


def scifact_side(
    seed_index: Index, scifact_index: Index, scifact: Path, seed_questions: list[tuple[str, str]]
) -> list[dict[str, Any]]:
    from rag.evaluation import read_qrels, read_queries

    claims = read_queries(scifact / "queries.jsonl")
    qrels = read_qrels(scifact / "qrels" / "train.tsv")
    ext = {p.id: p.external_id for p in scifact_index.papers.values()}
    rows = []
    for qid in sorted((q for q in qrels if q in claims), key=int):
        hits = search(scifact_index, claims[qid], k=TOP_K, retriever="hybrid", rescore=True)
        if not any(ext.get(h.paper.id) in qrels[qid] for h in hits):
            continue  # judged abstract not retrieved: neither side, as bench/answers/calibrate.py
        found = abstention.signals(scifact_index, claims[qid], hits)
        rows.append(
            {
                "question": claims[qid],
                "answerable": True,
                "group": GROUPS[2],
                "source": "scifact claims",
                "top": None,
                **found.to_dict(),
            }
        )
    rows += claims_vs_seeds(seed_index, scifact)
    for q, source in seed_questions:
        rows.append(row(scifact_index, q, False, GROUPS[3], f"{source} vs scifact"))
    return rows


def claims_vs_seeds(seed_index: Index, scifact: Path) -> list[dict[str, Any]]:
    """Return 300 SciFact claims asked of the seed index (cross-domain: abstain)."""
    from rag.evaluation import read_queries

    claims = read_queries(scifact / "queries.jsonl")
    return [
        row(seed_index, claims[qid], False, GROUPS[3], "scifact claims vs seeds")
        for qid in sorted(claims, key=int)[:300]
    ]


def split(rows: list[dict[str, Any]]) -> None:
    """Mark a stratified HELD_OUT share of every group as held out (fixed seed)."""
    rng = random.Random(12)
    for group in GROUPS:
        members = [r for r in rows if r["group"] == group]
        rng.shuffle(members)
        cut = round(len(members) * HELD_OUT)
        for i, r in enumerate(members):
            r["held_out"] = i < cut


def matrix(rows: list[dict[str, Any]]) -> np.ndarray:
    return np.array([[r[f] for f in abstention.FEATURES] for r in rows], dtype=np.float64)


def fit(rows: list[dict[str, Any]]) -> dict[str, Any]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    x = matrix(rows)
    y = np.array([r["answerable"] for r in rows], dtype=int)
    sizes = {g: sum(r["group"] == g for r in rows) for g in GROUPS}
    weights = np.array([len(rows) / (len(GROUPS) * sizes[r["group"]]) for r in rows])
    scaler = StandardScaler().fit(x)
    model = LogisticRegression(C=1.0, max_iter=1000)
    model.fit(scaler.transform(x), y, sample_weight=weights)
    return {
        "mean": [round(float(v), 6) for v in scaler.mean_],
        "scale": [round(float(v), 6) for v in scaler.scale_],
        "coef": [round(float(v), 6) for v in model.coef_[0]],
        "intercept": round(float(model.intercept_[0]), 6),
    }


def probabilities(rows: list[dict[str, Any]], model: dict[str, Any]) -> np.ndarray:
    z = (matrix(rows) - np.array(model["mean"])) / np.array(model["scale"])
    return 1 / (1 + np.exp(-(z @ np.array(model["coef"]) + model["intercept"])))


def signals_of(row: dict[str, Any]) -> abstention.Signals:
    """The signals a saved feature row holds."""
    return abstention.Signals(*(row[f] for f in abstention.FEATURES[:5]), cosine=row["cosine"])


def answered(rows: list[dict[str, Any]], p: np.ndarray, t: float) -> np.ndarray:
    """The decision `rag.answer.abstention.decide` makes: p >= t, or a long question past the
    gate."""
    long = np.array([abstention.long_and_close(signals_of(r)) for r in rows])
    return (p >= t) | long


def metrics(rows: list[dict[str, Any]], answered: np.ndarray) -> dict[str, Any]:
    """Per group: share answered (answerable groups) or abstained (the others); seed P/R."""
    out: dict[str, Any] = {}
    for group in GROUPS:
        mask = np.array([r["group"] == group for r in rows])
        if not mask.any():
            continue
        share = answered[mask].mean() if "answerable" in group else 1 - answered[mask].mean()
        out[group] = {"n": int(mask.sum()), "correct": round(float(share), 4)}
    seed = np.array([r["group"] in GROUPS[:2] for r in rows])
    y = np.array([r["answerable"] for r in rows])
    abstained_right = int((~answered & ~y & seed).sum())
    abstained = int((~answered & seed).sum())
    out["seed abstain precision"] = round(abstained_right / abstained, 4) if abstained else 1.0
    out["seed abstain recall"] = round(abstained_right / max(1, int((~y & seed).sum())), 4)
    out["seed false abstentions"] = int((~answered & y & seed).sum())
    return out


CALIBRATE_OFF = ("scifact claims vs seeds", "seed_questions vs scifact", "offtopic_questions")


def calibrate_figures(rows: list[dict[str, Any]], answered: np.ndarray) -> dict[str, Any]:
    """SciFact coverage and cross-domain abstention on bench/answers/calibrate.py's own sets."""
    on = np.array([r["group"] == GROUPS[2] for r in rows])
    off = np.array([r["source"] in CALIBRATE_OFF for r in rows])
    return {
        "scifact coverage": round(float(answered[on].mean()), 4) if on.any() else None,
        "cross-domain abstention": round(float(1 - answered[off].mean()), 4) if off.any() else None,
        "n": [int(on.sum()), int(off.sum())],
    }


def choose_threshold(rows: list[dict[str, Any]], p: np.ndarray) -> dict[str, Any]:
    best = None
    for t in GRID:
        m = metrics(rows, answered(rows, p, t))
        c = calibrate_figures(rows, answered(rows, p, t))
        slack = min(
            (c["scifact coverage"] or 1) - SCIFACT_COVERAGE,
            (c["cross-domain abstention"] or 1) - CROSS_ABSTAIN,
        )
        balanced = (m[GROUPS[0]]["correct"] + m[GROUPS[1]]["correct"]) / 2
        # Within the SciFact bounds the seed side decides; else the nearest to the bounds (one
        # claim is 0.4% of the training part's cross-domain set, so they may all miss).
        key = (slack >= 0, balanced if slack >= 0 else slack, balanced)
        if best is None or key > best[0]:
            best = (key, t, m)
    assert best is not None
    return {"threshold": best[1], "meets_scifact_bounds": best[0][0], "train": best[2]}


def write_markdown(data: dict[str, Any], path: Path) -> None:
    t = data["threshold"]
    lines = [
        "# Abstention: does the collection have a paper on the question?",
        "",
        f"Command: `{data['command']}` ({data['seconds']:.0f} s, real all-MiniLM-L6-v2). "
        f"{data['rows']} labelled questions, {HELD_OUT:.0%} of every group held out; the "
        "model (logistic regression over "
        + ", ".join(abstention.FEATURES)
        + f") and the threshold ({t}) were chosen on the rest.",
        "",
        "Share decided right per group (answerable groups: answered; the others: abstained), "
        "and on the seed side the abstention precision / recall and the false abstentions:",
        "",
        "| rule | part | " + " | ".join(GROUPS) + " | seed abstain P | seed abstain R | "
        "seed false abstentions |",
        "|---|---|" + "---|" * (len(GROUPS) + 3),
    ]
    for name, parts in data["tables"].items():
        for part, m in parts.items():
            cells = [f"{m[g]['correct']:.3f} ({m[g]['n']})" if g in m else "-" for g in GROUPS]
            lines.append(
                f"| {name} | {part} | " + " | ".join(cells) + f" | "
                f"{m['seed abstain precision']:.3f} | {m['seed abstain recall']:.3f} | "
                f"{m['seed false abstentions']} |"
            )
    lines += [
        "",
        "On bench/answers/calibrate.py's own sets (SciFact answerable claims; cross-domain: "
        "300 claims "
        "vs the seeds, the 40 seed questions vs SciFact, the 30 off-topic questions), which "
        "today's figures (98.0% / 98.9%) come from:",
        "",
        "| rule | SciFact coverage | cross-domain abstention | questions |",
        "|---|---|---|---|",
    ]
    for name, c in data["calibrate_sets"].items():
        lines.append(
            f"| {name} | {c['scifact coverage']} | {c['cross-domain abstention']} | {c['n']} |"
        )
    lines += [
        "",
        "Threshold sweep on the held-out part (the fitted model):",
        "",
        "| min_relevance | " + " | ".join(GROUPS) + " | seed abstain P | seed abstain R |",
        "|---|" + "---|" * (len(GROUPS) + 2),
    ]
    for point in data["sweep"]:
        m = point["held_out"]
        cells = [f"{m[g]['correct']:.3f}" if g in m else "-" for g in GROUPS]
        lines.append(
            f"| {point['threshold']} | " + " | ".join(cells) + f" | "
            f"{m['seed abstain precision']:.3f} | {m['seed abstain recall']:.3f} |"
        )
    lines += ["", "Coefficients (standardised features):", ""]
    model = data["model"]
    for f, c in zip(abstention.FEATURES, model["coef"], strict=True):
        lines.append(f"- {f}: {c:+.3f}")
    lines.append(f"- intercept: {model['intercept']:+.3f}")
    lines += ["", "Held-out mistakes on the seed side:", ""]
    for r in data["held_out_mistakes"]:
        want = "answer" if r["answerable"] else "abstain"
        lines.append(
            f"- want {want}, p={r['p']:.2f} (dense {r['dense']:.2f}, coverage "
            f"{r['coverage']:.2f}): {r['question']} [{r['source']}]"
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def open_seed_index() -> Index:
    index = Index(Settings(index_dir=CACHE / "bench-seeds", backend="extractive"), create=True)
    ingest([ROOT / "seeds"], index)
    return index


def open_scifact_index(source: Path | None) -> Index | None:
    """Open the cached SciFact index, copied from `source` (a built one) the first time.

    SciFact is not ingested here (a 10-minute job on two cores): build it once with
    `rag --index DIR ingest ../shared/data/scifact/corpus.jsonl` and pass `--scifact-index DIR`
    (or pass the folder `rag eval` built, DIR/eval-scifact).
    """
    folder = CACHE / "bench-scifact"
    if source is not None and not folder.exists():
        shutil.copytree(source, folder)
    if not folder.exists():
        return None
    # `rag ingest` names its collection "papers"; `rag eval` (rag.evaluation) "eval-scifact".
    named = [p.name[len("catalog-") : -len(".jsonl")] for p in folder.glob("catalog-*.jsonl")]
    collection = named[0] if len(named) == 1 else "papers"
    return Index(Settings(index_dir=folder, backend="extractive", collection=collection))


def report_shipped(
    rows: list[dict[str, Any]], train: list[dict[str, Any]], test: list[dict[str, Any]]
) -> None:
    """Write the shipped model's figures on the features (nothing is fitted)."""

    def shipped(part: list[dict[str, Any]]) -> np.ndarray:
        p = np.array([abstention.probability(signals_of(r)) for r in part])
        return answered(part, p, Settings().min_relevance)

    data = {
        "command": "python bench/answers/abstention.py " + " ".join(sys.argv[1:]),
        "min_relevance": Settings().min_relevance,
        "train": metrics(train, shipped(train)),
        "held out": metrics(test, shipped(test)),
        "calibrate_sets": calibrate_figures(rows, shipped(rows)),
    }
    (RESULTS / "abstention_shipped.json").write_text(json.dumps(data, indent=1) + "\n")
    print(json.dumps(data, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--refit", action="store_true", help="reuse the saved features")
    parser.add_argument("--scifact-index", type=Path, default=None, help="a built SciFact index")
    parser.add_argument(
        "--shipped",
        action="store_true",
        help="fit nothing: judge the shipped model and min_relevance on the features "
        "(bench/results/abstention_shipped.json), as a change to the signals moves them",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    data_dir = shared_data()
    if args.refit:
        rows = read_jsonl(FEATURES_FILE)
    else:
        seed_index = open_seed_index()
        rows, answerable = seed_side(seed_index, data_dir / "chat" / "sessions-dev.jsonl")
        scifact_index = open_scifact_index(args.scifact_index)
        if not (data_dir / "scifact").is_dir():
            print("No SciFact data: its groups are left out.")
        elif scifact_index is None:
            print("No SciFact index (--scifact-index DIR): only claims vs the seeds are used.")
            rows += claims_vs_seeds(seed_index, data_dir / "scifact")
        else:
            rows += scifact_side(seed_index, scifact_index, data_dir / "scifact", answerable)
        split(rows)
        FEATURES_FILE.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.mkdir(parents=True, exist_ok=True)
        FEATURES_FILE.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
        )
    train = [r for r in rows if not r["held_out"]]
    test = [r for r in rows if r["held_out"]]
    if args.shipped:
        report_shipped(rows, train, test)
        return
    model = fit(train)
    p_train, p_test = probabilities(train, model), probabilities(test, model)
    chosen = choose_threshold(train, p_train)
    t = chosen["threshold"]

    def cosine(part: list[dict[str, Any]]) -> np.ndarray:
        return np.array([r["cosine"] >= OLD_MIN_RELEVANCE for r in part])

    tables = {
        f"cosine >= {OLD_MIN_RELEVANCE} (before)": {
            "train": metrics(train, cosine(train)),
            "held out": metrics(test, cosine(test)),
        },
        f"signals, p >= {t} (now)": {
            "train": metrics(train, answered(train, p_train, t)),
            "held out": metrics(test, answered(test, p_test, t)),
        },
    }
    mistakes = [
        {**r, "p": round(float(p), 3)}
        for r, p in zip(test, p_test, strict=True)
        if r["group"] in GROUPS[:2] and bool(answered([r], np.array([p]), t)[0]) != r["answerable"]
    ]
    data = {
        "command": "python bench/answers/abstention.py " + " ".join(sys.argv[1:]),
        "rows": len(rows),
        "model": model,
        "threshold": t,
        "meets_scifact_bounds_on_train": chosen["meets_scifact_bounds"],
        "tables": tables,
        "sweep": [
            {"threshold": g, "held_out": metrics(test, answered(test, p_test, g))} for g in GRID
        ],
        "calibrate_sets": {
            f"cosine >= {OLD_MIN_RELEVANCE} (before), all": calibrate_figures(rows, cosine(rows)),
            f"signals, p >= {t} (now), all": calibrate_figures(
                rows, answered(rows, probabilities(rows, model), t)
            ),
            f"signals, p >= {t} (now), train": calibrate_figures(
                train, answered(train, p_train, t)
            ),
            f"signals, p >= {t} (now), held out": calibrate_figures(
                test, answered(test, p_test, t)
            ),
        },
        "held_out_mistakes": mistakes,
        "seconds": time.perf_counter() - started,
    }
    (RESULTS / "abstention.json").write_text(
        json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8"
    )
    write_markdown(data, RESULTS / "abstention.md")
    print(json.dumps(tables, indent=1))
    print(
        f"MEAN = {tuple(model['mean'])}\nSCALE = {tuple(model['scale'])}\n"
        f"COEF = {tuple(model['coef'])}\nINTERCEPT = {model['intercept']}\nmin_relevance = {t}"
    )


if __name__ == "__main__":
    main()
