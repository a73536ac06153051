"""Follow-ups with no pronoun and no topic of their own ("main limitation?") after an answer.

    .venv/bin/python bench/answers/generic_followups.py --index DIR [--out generic_followups]

bench/data/generic_followups.jsonl (120 two-turn sessions over the seeds, written blind; ids
divisible by 3 held out) pairs a first question with a second message of one of three kinds:

- `generic_followup` (depends on the answer): "accuracy cost?", "any downsides", "evaluated
  how?": generic words only, about the papers just discussed;
- `topic_switch`: a new topic the collection covers, some sharing a generic word;
- `off_topic`: nothing in the collection.

bench/data/broader_followups.jsonl adds 75 sessions of a fourth kind, `broader`, built from the
labelled sets (not blind): a specific question on one paper, then a broader question whose
labelled papers include that one ("Does DiP-G work well in experiments?", then "Which papers
learn from graph-structured data with GNNs?"). The second asks the collection; it should not be
kept to the first answer's paper. They are scored, never fitted on: with them as negatives,
and the best other paper's probability as a seventh feature, the refit took 26 of 56 fitting
follow-ups at the 0.8 bar, not 41 (the last answer's paper addresses both kinds alike).

Each session is asked as the chat asks it (`rag.api.ask` with the first turn as history,
extractive). Scored per kind and split: the second message rewritten as a follow-up (its
`standalone` differs), the second answer kept to the first answer's papers (cites only them),
cited-paper recall against `second_relevant`, and abstention (right for off-topic messages).
A signal for a rule to come is recorded beside them: where the first answer's best-placed
paper ranks when the second message is searched on its own words over the whole collection
(share in the top 3). Results: bench/results/OUT.md and OUT.json.

    .venv/bin/python bench/answers/generic_followups.py --index DIR --fit

fits `rag.answer.continuation` (whether the second message follows up on the first answer's
papers) on the fitting sessions: a logistic regression over its features, computed as the
product computes them, and `Settings.continue_probability`, the lowest bar at which no fitting
topic switch or off-topic message is taken for a follow-up in 10-fold cross-validation. The
table (cross-validated on the fitting part; held out) goes to bench/results/continuation.md and
a summary to continuation.json; `--write` writes the weights to
rag/answer/model/continuation.json.

    .venv/bin/python bench/answers/generic_followups.py --index DIR --everyday 1 --out OUT

asks each everyday message after a first question of its split and counts those answered from
papers (bench/results/OUT.md).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

from rag import api, prompts  # noqa: E402
from rag.answer import continuation  # noqa: E402
from rag.answer.abstention import decide, question_terms  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.retrieve import search  # noqa: E402
from rag.index.spelling import corrected  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data" / "generic_followups.jsonl"
BROADER = ROOT / "bench" / "data" / "broader_followups.jsonl"  # scored only (see above)
# Everyday messages (bench/data/offtopic_messages.jsonl), asked after answers by --everyday
OFF_TOPIC = ROOT / "bench" / "data" / "offtopic_messages.jsonl"
# The answer opens with the note that the papers do not seem to address the message.
NOT_ADDRESSED = re.compile(
    "|".join(
        re.escape(note).replace(re.escape("{who}"), ".+")
        for note in (prompts.NOT_ADDRESSED, prompts.NOT_ADDRESSED_ONE)
    )
)
QUESTIONS = ROOT / "bench" / "data" / "paper_questions.jsonl"  # standalone: none an aspect
RESULTS = ROOT / "bench" / "results"


def cited(answer: api.Answer) -> set[str]:
    return set() if answer.abstained else {c.hit.paper.authors[0] for c in answer.citations}


def run(index: Index, session: dict[str, Any]) -> dict[str, Any]:
    settings = index.settings.model_copy(update={"backend": "extractive"})
    first = api.ask(session["first"], settings=settings, index=index)
    second = api.ask(
        session["second"], settings=settings, index=index, history=[(session["first"], first)]
    )
    before, after = cited(first), cited(second)
    shown = set() if first.abstained else {c.hit.paper.id for c in first.citations}
    own = search(index, corrected(index, session["second"]), k=len(index.papers))
    rank = next((i for i, h in enumerate(own, 1) if h.paper.id in shown), len(own) + 1)
    relevant = set(session["second_relevant"])
    return {
        "id": session["id"],
        "kind": session["kind"],
        "split": session["split"],
        "rewritten": second.standalone is not None and second.standalone != session["second"],
        "on_previous": bool(after) and after <= before,
        "abstained": second.abstained,
        "hits": len(after & relevant),
        "relevant": len(relevant),
        "cited": len(after),
        "previous_rank": rank,
        "says_not_addressed": bool(NOT_ADDRESSED.match(second.answer)),
        "standalone": second.standalone,
        "answer": second.answer[:300],
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, float]:
    n = max(1, len(rows))
    relevant = sum(r["relevant"] for r in rows)
    cited_n = sum(r["cited"] for r in rows)
    return {
        "sessions": len(rows),
        "rewritten": round(sum(r["rewritten"] for r in rows) / n, 3),
        "on_previous_papers": round(sum(r["on_previous"] for r in rows) / n, 3),
        "abstained": round(sum(r["abstained"] for r in rows) / n, 3),
        "recall": round(sum(r["hits"] for r in rows) / relevant, 3) if relevant else float("nan"),
        "precision": round(sum(r["hits"] for r in rows) / cited_n, 3) if cited_n else float("nan"),
        "previous_in_top_3": round(sum(r["previous_rank"] <= 3 for r in rows) / n, 3),
    }


def first_answers(
    index: Index, settings: Settings, sessions: list[dict[str, Any]]
) -> dict[str, api.Answer]:
    """Each distinct first question of `sessions`, asked once with `settings`."""
    questions = dict.fromkeys(s["first"] for s in sessions)
    return {q: api.ask(q, settings=settings, index=index) for q in questions}


def feature_rows(index: Index, sessions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return each session's `continuation.signals` for its second message, as asked in chat."""
    settings = index.settings.model_copy(update={"backend": "extractive"})
    rows = []
    firsts = first_answers(index, settings, sessions)
    for s in sessions:
        first = firsts[s["first"]]
        previous = [] if first.abstained else [c.hit.paper for c in first.citations]
        message = corrected(index, s["second"])
        hits = search(index, message, k=settings.top_k, retriever=settings.retriever, rescore=True)
        if not previous or not hits:
            continue  # nothing to follow up on: the product never asks
        terms = question_terms(index, message)
        decision = decide(index, message, hits, settings.min_relevance)
        row = continuation.signals(index, message, previous, hits, terms, decision)
        rows.append({**s, "message": message, "signals": [round(v, 6) for v in row]})
    return rows


def off_topic_sessions(sessions: list[dict[str, Any]], each: int) -> list[dict[str, Any]]:
    """Sessions of `bench/data/offtopic_messages.jsonl`'s messages, each after `each` first
    questions of the blind sessions of its own split (spread over them, none twice)."""
    messages = [json.loads(x) for x in OFF_TOPIC.read_text(encoding="utf-8").splitlines() if x]
    out = []
    for split in ("fit", "heldout"):
        firsts = sorted({s["first"] for s in sessions if s["split"] == split})
        mine = [m for m in messages if m["split"] == split]
        for i, m in enumerate(mine):
            for j in range(each):
                first = firsts[(i * each + j) % len(firsts)]
                out.append(
                    {"id": f"{m['id']}-{j}", "first": first, "second": m["message"],
                     "depends": False, "kind": "off_topic", "split": split}
                )  # fmt: skip
    return out


def everyday(index: Index, sessions: list[dict[str, Any]], out: str) -> None:
    """Ask each everyday message after its first question, as the chat does; count those
    answered from papers (none should be: the collection has no paper on "15% of 240"), and
    those asked of the first answer's papers (rewritten with their names). Writes OUT.md."""
    settings = index.settings.model_copy(update={"backend": "extractive"})
    firsts = first_answers(index, settings, sessions)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    wrong: list[str] = []
    for s in sessions:
        first = firsts[s["first"]]
        if first.abstained or not first.citations:
            continue  # nothing to follow up on
        second = api.ask(s["second"], settings=settings, index=index, history=[(s["first"], first)])
        row = counts[s["split"]]
        row[0] += 1
        row[1] += bool(second.citations)
        row[2] += second.standalone is not None and second.standalone != s["second"]
        if second.citations:
            wrong.append(
                f"- {s['split']}: “{s['first']}” then “{s['second']}”: {second.standalone}"
            )
    lines = [
        "# Everyday messages after an answer",
        "",
        f"`.venv/bin/python bench/answers/generic_followups.py --index DIR --everyday N --out "
        f"{out}`: each message of bench/data/offtopic_messages.jsonl asked after N first "
        "questions of generic_followups.jsonl of its split (sessions whose first answer cited "
        "a paper). None should be answered from papers.",
        "",
        "| part | sessions | answered from papers | rewritten as a follow-up |",
        "|---|---|---|---|",
        *(f"| {k} | {v[0]} | {v[1]} | {v[2]} |" for k, v in sorted(counts.items())),
        "",
        *wrong,
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    (RESULTS / f"{out}.md").write_text(text, encoding="utf-8")


def aspect_model(
    index: Index, rows: list[dict[str, Any]], sessions: list[dict[str, Any]]
) -> tuple[dict[str, Any], np.ndarray]:
    """Fit the `aspect` model on the fitting part; return it and its cross-fitted logits for
    `rows` (the fitting sessions' second messages), so the next stage sees honest values."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    questions = [json.loads(x) for x in QUESTIONS.read_text(encoding="utf-8").splitlines() if x]
    others = {s["first"] for s in sessions if s["split"] == "fit"}
    others |= {q["q"] for q in questions if q["split"] == "fit"}
    texts = [r["message"] for r in rows] + sorted(others - {r["message"] for r in rows})
    y = np.array(
        [r["kind"] == "generic_followup" for r in rows] + [False] * (len(texts) - len(rows))
    )
    x = np.asarray(index.embedder.embed(texts))
    logits = np.zeros(len(texts))
    for train, test in StratifiedKFold(10, shuffle=True, random_state=0).split(x, y):
        part = LogisticRegression(C=1.0, max_iter=2000).fit(x[train], y[train])
        logits[test] = part.decision_function(x[test])
    model = LogisticRegression(C=1.0, max_iter=2000).fit(x, y)
    fitted = {
        "coef": [round(float(v), 6) for v in model.coef_[0]],
        "intercept": round(float(model.intercept_[0]), 6),
        "messages": len(texts),
        "aspects": int(y.sum()),
    }
    return fitted, logits[: len(rows)]


def fit(index: Index, sessions: list[dict[str, Any]], write: bool) -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rows = feature_rows(index, sessions)
    part = {name: [r for r in rows if r["split"] == name] for name in ("fit", "heldout")}
    aspect, crossed = aspect_model(index, part["fit"], sessions)
    held_vectors = np.asarray(index.embedder.embed([r["message"] for r in part["heldout"]]))
    held_aspect = held_vectors @ np.array(aspect["coef"]) + aspect["intercept"]
    x = {
        "fit": np.column_stack([[r["signals"] for r in part["fit"]], crossed]),
        "heldout": np.column_stack([[r["signals"] for r in part["heldout"]], held_aspect]),
    }
    y = {k: np.array([r["kind"] == "generic_followup" for r in v]) for k, v in part.items()}
    model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000))
    folds = StratifiedKFold(10, shuffle=True, random_state=0)
    cv = cross_val_predict(model, x["fit"], y["fit"], cv=folds, method="predict_proba")[:, 1]
    model.fit(x["fit"], y["fit"])
    held = model.predict_proba(x["heldout"])[:, 1]
    grid = [round(t, 2) for t in np.arange(0.05, 1.0, 0.05)]
    safe = [t for t in grid if not (cv[~y["fit"]] >= t).any()]
    bar = min(safe) if safe else 0.95

    def rates(rs: list[dict[str, Any]], p: np.ndarray, t: float) -> str:
        cells = []
        for kind in ("generic_followup", "topic_switch", "off_topic"):
            taken = [q >= t for r, q in zip(rs, p, strict=True) if r["kind"] == kind]
            cells.append(f"{sum(taken)}/{len(taken)}")
        return " | ".join(cells)

    scaler, lr = model[0], model[1]
    aspect["mean"] = round(float(scaler.mean_[-1]), 6)
    weights = {
        "features": list(continuation.FEATURES),
        "mean": [round(float(v), 6) for v in scaler.mean_],
        "scale": [round(float(v), 6) for v in scaler.scale_],
        "coef": [round(float(v), 6) for v in lr.coef_[0]],
        "intercept": round(float(lr.intercept_[0]), 6),
        "continue_probability": bar,
        "aspect": aspect,
    }
    lines = [
        "# Whether a message follows up on the last answer (`rag/answer/continuation.py`)",
        "",
        "Command: `.venv/bin/python bench/answers/generic_followups.py --index DIR --fit` "
        f"({len(part['fit'])} fitting and {len(part['heldout'])} held-out sessions of "
        "`bench/data/generic_followups.jsonl` whose first answer cited a paper; the `aspect` "
        f"model on {aspect['messages']} fitting messages, {aspect['aspects']} of them aspects).",
        "",
        "Taken as a follow-up (generic follow-ups should be; topic switches and off-topic "
        "messages should not). Fitting part: 10-fold cross-validated probabilities. The bar is "
        "the lowest at which no fitting topic switch or off-topic message is taken.",
        "",
        "| bar | part | generic follow-ups | topic switches | off-topic |",
        "|---|---|---|---|---|",
        *(
            f"| {t}{' (chosen)' if t == bar else ''} | {name} | {rates(part[key], p, t)} |"
            for t in grid
            if abs(t - bar) <= 0.21
            for name, key, p in (("fitting (cv)", "fit", cv), ("held out", "heldout", held))
        ),
        "",
        "Weights (standardised features " + ", ".join(continuation.FEATURES) + "): "
        f"coef {weights['coef']}, intercept {weights['intercept']}.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    (RESULTS / "continuation.md").write_text(text, encoding="utf-8")
    summary = {k: v for k, v in weights.items() if k != "aspect"}
    (RESULTS / "continuation.json").write_text(json.dumps(summary, indent=1))
    if write:
        continuation.WEIGHTS.write_text(json.dumps(weights) + "\n", encoding="utf-8")


def subject_scan(index: Index, sessions: list[dict[str, Any]]) -> None:
    """Choose `continuation.SUBJECT_ASPECT` on the fitting sessions: of the generic follow-ups
    and broader questions taken for follow-ups, how many each bar would send to the collection
    (`continuation.asks_the_collection`); the bar sending the most broader questions less the
    most follow-ups (the highest on a tie). Writes bench/results/continuation_subject.md."""
    settings = index.settings.model_copy(update={"backend": "extractive"})
    taken: list[tuple[dict[str, Any], float]] = []
    for s in sessions:
        first = api.ask(s["first"], settings=settings, index=index)
        previous = [] if first.abstained else [c.hit.paper for c in first.citations]
        message = corrected(index, s["second"])
        hits = search(index, message, k=settings.top_k, retriever=settings.retriever, rescore=True)
        terms = question_terms(index, message)
        own = decide(index, message, hits, settings.min_relevance)
        if not continuation.continues(
            index, message, previous, hits, terms, own, settings.continue_probability
        ):
            continue
        saved = continuation.SUBJECT_ASPECT
        continuation.SUBJECT_ASPECT = float("inf")  # every aspect value: the rest of the rule
        try:
            sent = continuation.asks_the_collection(
                index, message, previous, hits, terms, own, settings.paper_probability
            )
        finally:
            continuation.SUBJECT_ASPECT = saved
        logit = continuation.aspect_logit(index, message)
        taken.append((s, logit if sent and logit is not None else float("inf")))
    bars = [round(b, 2) for b in np.arange(-2.5, 0.01, 0.25)]

    def sent(split: str, kind: str, bar: float) -> str:
        rows = [v for s, v in taken if s["split"] == split and s["kind"] == kind]
        return f"{sum(v <= bar for v in rows)}/{len(rows)}"

    def gain(bar: float) -> int:
        fit = [(s["kind"], v <= bar) for s, v in taken if s["split"] == "fit"]
        return sum(k == "broader" and b for k, b in fit) - sum(k != "broader" and b for k, b in fit)

    best = max(bars, key=lambda b: (gain(b), b))
    lines = [
        "# A follow-up that asks the collection (`continuation.SUBJECT_ASPECT`)",
        "",
        "Command: `.venv/bin/python bench/answers/generic_followups.py --index DIR --subject`. "
        "Of the second messages taken for follow-ups on the first answer's papers, those each "
        "bar of the `aspect` logit sends to the collection (`asks_the_collection`). Chosen: the "
        "most fitting broader questions less fitting follow-ups.",
        "",
        "| bar | fit: follow-ups | fit: broader | held out: follow-ups | held out: broader |",
        "|---|---|---|---|---|",
        *(
            f"| {b}{' (chosen)' if b == best else ''} | {sent('fit', 'generic_followup', b)} | "
            f"{sent('fit', 'broader', b)} | {sent('heldout', 'generic_followup', b)} | "
            f"{sent('heldout', 'broader', b)} |"
            for b in bars
        ),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    (RESULTS / "continuation_subject.md").write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a seed index (a copy)")
    parser.add_argument("--out", default="generic_followups")
    parser.add_argument("--fit", action="store_true", help="fit rag.answer.continuation")
    parser.add_argument("--write", action="store_true", help="with --fit: write its weights")
    parser.add_argument("--subject", action="store_true", help="choose SUBJECT_ASPECT")
    parser.add_argument(
        "--everyday", type=int, default=0, metavar="N",
        help="ask each everyday message after N first questions (`everyday`)",
    )  # fmt: skip
    args = parser.parse_args()
    index = Index(Settings(index_dir=args.index))
    sessions = [json.loads(x) for x in DATA.read_text(encoding="utf-8").splitlines() if x]
    if args.everyday:
        everyday(index, off_topic_sessions(sessions, args.everyday), args.out)
        return
    if args.fit:
        fit(index, sessions, args.write)
        return
    sessions += [json.loads(x) for x in BROADER.read_text(encoding="utf-8").splitlines() if x]
    if args.subject:
        subject_scan(index, [s for s in sessions if s["kind"] in ("generic_followup", "broader")])
        return
    rows = [run(index, s) for s in sessions]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[f"{r['split']}: {r['kind']}"].append(r)
    table = {name: summary(group) for name, group in sorted(groups.items())}
    lines = [
        "# Generic follow-ups after an answer (`bench/answers/generic_followups.py`)",
        "",
        f"Command: `.venv/bin/python bench/answers/generic_followups.py --index DIR --out "
        f"{args.out}` ({len(rows)} sessions from `bench/data/generic_followups.jsonl` and "
        "`bench/data/broader_followups.jsonl`).",
        "",
        "| split: kind | sessions | rewritten as a follow-up | cites only the first answer's "
        "papers | abstained | recall | precision | first answer's paper in the message's own "
        "top 3 |",
        "|---|---|---|---|---|---|---|---|",
        *(
            f"| {name} | {s['sessions']} | {s['rewritten']} | {s['on_previous_papers']} | "
            f"{s['abstained']} | {s['recall']} | {s['precision']} | {s['previous_in_top_3']} |"
            for name, s in table.items()
        ),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.out}.md").write_text(text, encoding="utf-8")
    payload = {"summary": table, "rows": rows}
    (RESULTS / f"{args.out}.json").write_text(json.dumps(payload, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
