"""Messages that name no topic after an answer: about its papers, the collection, or chat.

    .venv/bin/python bench/answers/subjectless_followups.py --index DIR [--out NAME]
    .venv/bin/python bench/answers/subjectless_followups.py --index DIR --fit [--write]

bench/data/subjectless_followups.jsonl (300 two-turn sessions over the seeds, written blind; ids
divisible by 3 held out) pairs a first question with a second message that names no topic of
its own, labelled `previous` ("reslts?", "how did they test it": about the papers just
answered), `collection` ("list every paper you have") or `chat` ("ty", "cool").

Each session is asked as the chat asks it (`rag.api.ask` with the first turn as history,
extractive). Right is: for `previous`, an answer that cites some of the first answer's papers
and no other (sessions whose first answer cited nothing are left out: there is nothing to ask
about); for `collection` and `chat`, the collection overview (`rag.answer.overview.no_topic`).
The collection and chat messages are also asked as a chat's first message (the overview is
right), and so are the topics no seed covers of bench/data/offtopic_messages.jsonl ("no paper
on this" is right). Results: bench/results/NAME.md and NAME.json (default
subjectless_followups).

`--fit` fits `rag.answer.topicless` (does a message ask about the collection or nothing,
rather than about papers?) on the fitting part of these sessions and of the other labelled
messages (`messages`): a logistic regression over the message's MiniLM vector, its L2
strength and bar chosen by 10-fold cross-validation on the fitting part. The table
(cross-validated fitting part; held out) goes to bench/results/topicless.md; `--write` writes
the weights to rag/answer/model/topicless.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

from bench.answers import topicless_searched  # noqa: E402
from rag import api  # noqa: E402
from rag.answer import topicless  # noqa: E402
from rag.answer.overview import no_topic  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data" / "subjectless_followups.jsonl"
RESULTS = ROOT / "bench" / "results"
LABELS = ("previous", "collection", "chat")
# Questions with a topic the collection may lack ("How do I reset my router?"): "no paper on
# this" is the answer to them, not the overview.
EVERYDAY = ("abstention_questions.jsonl", "offtopic_questions.jsonl")


def sessions() -> list[dict[str, Any]]:
    return read_lines(DATA)


def run(index: Index, session: dict[str, Any], overview: tuple[str, ...]) -> dict[str, Any]:
    settings = index.settings.model_copy(update={"backend": "extractive"})
    first = api.ask(session["first"], settings=settings, index=index)
    second = api.ask(
        session["second"], settings=settings, index=index, history=[(session["first"], first)]
    )
    before = set() if first.abstained else {c.hit.paper.id for c in first.citations}
    after = set() if second.abstained else {c.hit.paper.id for c in second.citations}
    gave_overview = second.answer in overview
    on_previous = bool(after) and after <= before
    return {
        "id": session["id"],
        "label": session["label"],
        "split": session["split"],
        "second": session["second"],
        "first_cited": len(before),
        "right": on_previous if session["label"] == "previous" else gave_overview,
        "overview": gave_overview,
        "on_previous": on_previous,
        "standalone": second.standalone,
        "answer": second.answer[:200],
    }


def table(rows: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    lines = [
        "| split | label | sessions | right | overview | cites only the first answer's papers |",
        "|---|---|---|---|---|---|",
    ]
    summary: dict[str, Any] = {}
    for split in ("fit", "heldout"):
        for label in LABELS:
            part = [
                r for r in rows if r["split"] == split and r["label"] == label
                and (label != "previous" or r["first_cited"])
            ]  # fmt: skip
            n = max(1, len(part))
            right = sum(r["right"] for r in part)
            summary[f"{split}: {label}"] = {"sessions": len(part), "right": round(right / n, 3)}
            lines.append(
                f"| {split} | {label} | {len(part)} | {right} ({right / n:.2f}) "
                f"| {sum(r['overview'] for r in part)} | {sum(r['on_previous'] for r in part)} |"
            )
    return "\n".join(lines), summary


def alone(index: Index, overview: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
    """Ask the collection and chat messages, and offtopic_messages.jsonl, as a chat's first
    message: the former should get the overview, the latter "no paper on this"."""
    settings = index.settings.model_copy(update={"backend": "extractive"})
    asked = [(s["second"], s["label"], s["split"]) for s in sessions() if s["label"] != "previous"]
    off = read_lines(DATA.with_name("offtopic_messages.jsonl"))
    asked += [(q["message"], "off-topic", q["split"]) for q in off]
    lines = [
        '| split | message | asked | overview | abstained ("no paper on this") | cited a paper |',
        "|---|---|---|---|---|---|",
    ]
    summary: dict[str, Any] = {}
    results = [
        (label, split, api.ask(m, settings=settings, index=index)) for m, label, split in asked
    ]
    for split in ("fit", "heldout"):
        for label in ("collection", "chat", "off-topic"):
            got = [a for lab, sp, a in results if lab == label and sp == split]
            shown = sum(a.answer in overview for a in got)
            abstained = sum(a.abstained for a in got)
            cited = sum(bool(a.citations) and not a.abstained for a in got)
            summary[f"alone {split}: {label}"] = {
                "asked": len(got),
                "overview": shown,
                "abstained": abstained,
                "cited": cited,
            }
            lines.append(f"| {split} | {label} | {len(got)} | {shown} | {abstained} | {cited} |")
    return "\n".join(lines), summary


def answers(index: Index, out: str) -> None:
    # The overview as a message with no words gets it, and as one whose words matched nothing.
    overview = (no_topic(index), no_topic(index, searched=True))
    rows = [run(index, s, overview) for s in sessions()]
    text, summary = table(rows)
    first, alone_summary = alone(index, overview)
    summary.update(alone_summary)
    wrong = [f"- {r['id']} ({r['label']}) {r['second']!r}: {r['answer'][:90]!r}" for r in rows
             if r["split"] == "fit" and not r["right"]
             and (r["label"] != "previous" or r["first_cited"])]  # fmt: skip
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{out}.json").write_text(
        json.dumps({"summary": summary, "rows": rows}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    report = (
        f"# Messages that name no topic after an answer ({out})\n\n"
        f"Command: `.venv/bin/python bench/answers/subjectless_followups.py --index COPY "
        f"--out {out}`\n\nAfter an answer:\n\n{text}\n\nAs a chat's first message:\n\n"
        f"{first}\n\nWrong after an answer (fitting part only):\n\n" + "\n".join(wrong) + "\n"
    )
    (RESULTS / f"{out}.md").write_text(report, encoding="utf-8")
    print(report)


def messages() -> list[tuple[str, str, str]]:
    """Every labelled message as (text, label, split): `overview` (a collection or chat
    message) or `papers` (a follow-up on an answer, a new topic, an off-topic or a standalone
    question: anything a search should answer, or say the collection lacks)."""
    rows = [
        (s["second"], "papers" if s["label"] == "previous" else "overview", s["split"])
        for s in sessions()
    ]
    for s in read_lines(DATA.with_name("generic_followups.jsonl")):
        rows.append((s["second"], "papers", s["split"]))
    for q in read_lines(DATA.with_name("paper_questions.jsonl")):
        rows.append((q["q"], "papers", q["split"]))
    for name in EVERYDAY:  # no split of their own: every third line held out
        for i, q in enumerate(read_lines(DATA.with_name(name)), 1):
            rows.append((q["question"], "papers", "heldout" if i % 3 == 0 else "fit"))
    for q in read_lines(DATA.with_name("offtopic_messages.jsonl")):
        rows.append((q["message"], "papers", q["split"]))
    return rows


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def fit(index: Index, write: bool) -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    rows = messages()
    x = index.embedder.embed([r[0] for r in rows])
    y = np.array([r[1] == "overview" for r in rows])
    fitting = np.array([r[2] == "fit" for r in rows])
    folds = StratifiedKFold(10, shuffle=True, random_state=0)

    def cross_fitted(c: float) -> np.ndarray:
        model = LogisticRegression(C=c, max_iter=2000, class_weight="balanced")
        return cross_val_predict(model, x[fitting], y[fitting], cv=folds, method="predict_proba")[
            :, 1
        ]

    def balanced(p: np.ndarray, bar: float) -> float:
        chosen, wanted = p >= bar, y[fitting]
        return float((chosen[wanted].mean() + (~chosen[~wanted]).mean()) / 2)

    scores = {c: balanced(cross_fitted(c), 0.5) for c in (0.1, 0.3, 1.0, 3.0, 10.0, 30.0)}
    best = max(scores, key=lambda c: (scores[c], -c))
    cv = cross_fitted(best)
    bars = [round(b, 2) for b in np.arange(0.3, 0.91, 0.05)]
    bar = max(bars, key=lambda b: (balanced(cv, b), b))
    model = LogisticRegression(C=best, max_iter=2000, class_weight="balanced")
    model.fit(x[fitting], y[fitting])
    held = model.predict_proba(x[~fitting])[:, 1]
    lines = [
        "# Does a message ask about the collection, or nothing, rather than papers?",
        "",
        "Command: `.venv/bin/python bench/answers/subjectless_followups.py --index COPY --fit`",
        "",
        "A logistic regression over the message's MiniLM vector (`rag/answer/topicless.py`). "
        "Messages: the subjectless follow-ups (collection and chat: overview; the rest: papers), "
        "the second messages of generic_followups.jsonl and the questions of "
        "paper_questions.jsonl, abstention_questions.jsonl, offtopic_questions.jsonl and "
        "offtopic_messages.jsonl (papers); ids (lines of abstention_questions and "
        "offtopic_questions) divisible by 3 held out. 10-fold cross-validated "
        "balanced accuracy on the fitting part by L2 strength C: "
        + ", ".join(f"{c}: {v:.3f}" for c, v in scores.items())
        + f"; chosen {best}. Bar (best cross-validated balanced accuracy): {bar}.",
        "",
        "| part | source | label | messages | taken as asking no paper |",
        "|---|---|---|---|---|",
    ]
    sources = [
        name
        for name in (
            "subjectless_followups",
            "generic_followups",
            "paper_questions",
            *EVERYDAY,
            "offtopic_messages",
        )
        for _ in read_lines(DATA.with_name(name.removesuffix(".jsonl") + ".jsonl"))
    ]
    labels = [s["label"] for s in sessions()] + ["papers"] * (len(rows) - len(sessions()))
    for part, mask, p in (("fitting (cross-fitted)", fitting, cv), ("held out", ~fitting, held)):
        group: dict[tuple[str, str], list[bool]] = {}
        for source, label, chosen in zip(
            np.array(sources)[mask], np.array(labels)[mask], p >= bar, strict=True
        ):
            group.setdefault((source, label), []).append(bool(chosen))
        for (source, label), chosen in sorted(group.items()):
            lines.append(f"| {part} | {source} | {label} | {len(chosen)} | {sum(chosen)} |")
    # The second judgement, on messages that were searched (bench/answers/topicless_searched.py).
    more = topicless_searched.more_messages()
    texts = [r[0] for r in rows] + [m[0] for m in more]
    cv_logits = np.log(np.clip(cv, 1e-6, 1 - 1e-6) / np.clip(1 - cv, 1e-6, 1))
    logits = model.decision_function(np.vstack([x, index.embedder.embed([m[0] for m in more])]))
    logits[np.flatnonzero(fitting)] = cv_logits
    searched, searched_lines = topicless_searched.fit(
        index,
        texts,
        np.concatenate([y, np.zeros(len(more), dtype=bool)]),
        np.concatenate([fitting, [m[2] == "fit" for m in more]]),
        [*sources, *(m[1] for m in more)],
        logits,
    )
    lines += searched_lines
    text = "\n".join(lines) + "\n"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "topicless.md").write_text(text, encoding="utf-8")
    print(text)
    if write:
        weights = {
            "coef": [round(float(v), 6) for v in model.coef_[0]],
            "intercept": round(float(model.intercept_[0]), 6),
            "bar": bar,
            "C": best,
            "messages": int(fitting.sum()),
            "searched": searched,
        }
        topicless.WEIGHTS.write_text(json.dumps(weights) + "\n", encoding="utf-8")
        print(f"wrote {topicless.WEIGHTS}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a copy of a seed index")
    parser.add_argument("--out", default="subjectless_followups")
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    index = Index(Settings(index_dir=args.index, backend="extractive"))
    if args.fit:
        fit(index, args.write)
    else:
        answers(index, args.out)


if __name__ == "__main__":
    main()
