"""Calibrate how an answer is composed: how many papers it uses, and which sentences are on-topic.

    .venv/bin/python bench/answers/calibrate_composition.py        # about 1 minute on 2 cores

Two labelled sets over the 40 seed papers, both split by question into a fitting half and a
held-out half (a stable hash of the question text decides):

1. Papers an answer uses. Questions with their right papers: bench/data/multi_paper_questions.jsonl
   (written by reading the seeds; 19 with 2-5 right papers, 11 with one), the 40 single-paper seed
   questions and the 16 single-topic dev chat turns. The rule "keep a retrieved paper (of the
   best POOL) when its relevance reaches max(floor, share x best)" is fitted for mean F1 on the
   fitting half and reported on both, beside today's rule (top 5, share 0.75).
2. Sentences about the question. For each of those questions, every sentence of the papers the
   answer draws on (top 5 retrieved), labelled "about the question" when its paper is one of
   the question's right papers and "not about it" otherwise; the weight of the question's terms,
   the margin below the best candidate and the threshold are fitted to drop the most off-topic
   sentences while keeping at least KEEP of the on-topic ones, on the fitting half.

Writes bench/results/composition.json and composition.md.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from bench.answers.chat_sessions import shared_data  # noqa: E402
from rag.answer.compose import Kind, question_kind  # noqa: E402
from rag.answer.evidence import paper_sentences  # noqa: E402
from rag.answer.relevance import question_terms, term_share  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.retrieve import search  # noqa: E402
from rag.ingest.pipeline import ingest  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data"
RESULTS = ROOT / "bench" / "results"
CHAT = shared_data() / "chat" / "sessions-dev.jsonl"
POOL = 10
KEEP = 0.95  # on-topic sentences the relevance check must keep (fitting half)
SHARES = [round(x, 3) for x in np.arange(0.5, 0.951, 0.025)]
# Floors stay well under min_relevance: the abstention decision, not this cut, says whether the
# collection has a paper on the question.
FLOORS = [round(x, 3) for x in np.arange(0.0, 0.301, 0.025)]
WEIGHTS = [0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0]
MARGINS = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 10.0]
THRESHOLDS = [round(x, 3) for x in np.arange(0.0, 0.601, 0.01)]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def held_out(question: str) -> bool:
    return hashlib.sha1(question.encode("utf-8")).digest()[0] % 2 == 1


def questions(index: Index) -> list[dict[str, Any]]:
    """Every labelled question: text, right first authors, and where it comes from."""
    by_key = {p.citation_key: p for p in index.papers.values()}
    out = [
        {"q": q["question"], "gold": q["gold"], "source": "multi-paper"}
        for q in read_jsonl(DATA / "multi_paper_questions.jsonl")
    ]
    out += [
        {"q": q["question"], "gold": [by_key[q["key"]].authors[0]], "source": "seed"}
        for q in read_jsonl(DATA / "seed_questions.jsonl")
    ]
    for session in read_jsonl(CHAT):
        first = session["turns"][0]
        if first.get("gold") and first.get("lang") is None:
            out.append({"q": first["q"], "gold": first["gold"], "source": "dev chat"})
    return out


def paper_rows(index: Index, qs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for q in qs:
        hits = search(index, q["q"], k=POOL, rescore=True)
        rows.append(
            {
                **q,
                "held_out": held_out(q["q"]),
                "list": question_kind(q["q"]) is Kind.LIST,
                "hits": [(h.paper.authors[0], h.relevance) for h in hits],
                "_hits": hits,
            }
        )
    return rows


def cut(hits: list[tuple[str, float]], share: float, floor: float, top: int = POOL) -> list[str]:
    best = max((r for _, r in hits), default=0.0)
    # The best-ranked paper is always kept; the others by their relevance.
    return [a for i, (a, r) in enumerate(hits[:top]) if i == 0 or r >= max(floor, share * best)]


def prf(
    rows: list[dict[str, Any]], share: float, floor: float, top: int = POOL
) -> dict[str, float]:
    precision, recall, f1, f2, first = [], [], [], [], []
    for row in rows:
        kept = cut(row["hits"], share, floor, top)
        right = sum(a in row["gold"] for a in kept)
        p = right / len(kept) if kept else 0.0
        r = right / len(row["gold"])
        precision.append(p)
        recall.append(r)
        f1.append(2 * p * r / (p + r) if p + r else 0.0)
        f2.append(5 * p * r / (4 * p + r) if p + r else 0.0)
        first.append(bool(kept) and kept[0] in row["gold"])
    return {
        "precision": round(statistics.mean(precision), 3),
        "recall": round(statistics.mean(recall), 3),
        "f1": round(statistics.mean(f1), 3),
        "f2": round(statistics.mean(f2), 3),
        "first_right": round(statistics.mean(first), 3),
        "papers_per_answer": round(
            statistics.mean(len(cut(r["hits"], share, floor, top)) for r in rows), 2
        ),
        "n": len(rows),
    }


def calibrate_papers(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Fit the cut for "which papers" questions and for the others, each on its own rows."""
    out = {}
    for group, is_list in (("list", True), ("other", False)):
        # A "which papers" answer must find all of them: recall weighs twice (F2).
        metric = "f2" if is_list else "f1"
        out[group] = _calibrate_cut([r for r in rows if r["list"] is is_list], metric)
    return out


def _calibrate_cut(rows: list[dict[str, Any]], metric: str) -> dict[str, Any]:
    fit = [r for r in rows if not r["held_out"]]
    best = max(
        itertools.product(SHARES, FLOORS), key=lambda sf: (prf(fit, *sf)[metric], -sf[1], sf[0])
    )
    table = []
    for name, (share, floor, top) in {
        "today (top 5, share 0.75)": (0.75, 0.0, 5),
        f"fitted (pool {POOL}, share {best[0]}, floor {best[1]})": (best[0], best[1], POOL),
    }.items():
        for part, subset in (("fit", fit), ("held-out", [r for r in rows if r["held_out"]])):
            for kind in ("all", "multi-paper", "single"):
                chosen = [
                    r
                    for r in subset
                    if kind == "all" or (kind == "multi-paper") == (len(r["gold"]) > 1)
                ]
                if chosen:
                    table.append({"rule": name, "part": part, "questions": kind,
                                  **prf(chosen, share, floor, top)})  # fmt: skip
    return {"share": best[0], "floor": best[1], "pool": POOL, "metric": metric, "table": table}


def sentence_rows(
    index: Index, paper_rows: list[dict[str, Any]], cuts: dict[str, Any]
) -> list[dict[str, Any]]:
    """Label every sentence of the papers each question's answer draws on (the fitted cut)."""
    embedder = index.embedder
    cache: dict[str, tuple[list[str], np.ndarray]] = {}
    rows = []
    for q in paper_rows:
        rule = cuts["list" if q["list"] else "other"]
        best = max((h.relevance for h in q["_hits"]), default=0.0)
        floor = max(rule["floor"], rule["share"] * best)
        hits = [h for i, h in enumerate(q["_hits"]) if i == 0 or h.relevance >= floor]
        qv = embedder.embed([q["q"]])[0]
        terms = question_terms(q["q"])
        pairs = []
        for h in hits:
            if h.paper.id not in cache:
                own = paper_sentences(h.paper)
                cache[h.paper.id] = (own, embedder.embed(own))
            sentences, vectors = cache[h.paper.id]
            cosines = vectors @ qv
            for s, c in zip(sentences, cosines, strict=True):
                pairs.append(
                    {
                        "sentence": s,
                        "author": h.paper.authors[0],
                        "label": h.paper.authors[0] in q["gold"],
                        "cosine": float(c),
                        "share": term_share(terms, s),
                    }
                )
        rows.append({"q": q["q"], "held_out": q["held_out"], "pairs": pairs})
    return rows


def sentence_rates(
    rows: list[dict[str, Any]], weight: float, margin: float, threshold: float
) -> dict[str, float]:
    kept_pos = pos = kept_neg = neg = 0
    for row in rows:
        arrays = row.get("_arrays")
        if arrays is None:
            pairs = row["pairs"]
            arrays = row["_arrays"] = (
                np.array([p["cosine"] for p in pairs]),
                np.array([p["share"] for p in pairs]),
                np.array([p["label"] for p in pairs], dtype=bool),
            )
        cosine, share, label = arrays
        if not len(cosine):
            continue
        scores = cosine + weight * share
        keep = (scores >= threshold) & (scores >= scores.max() - margin)
        pos += int(label.sum())
        neg += int((~label).sum())
        kept_pos += int((keep & label).sum())
        kept_neg += int((keep & ~label).sum())
    kept = kept_pos + kept_neg
    return {
        "on_topic_kept": round(kept_pos / max(1, pos), 3),
        "off_topic_dropped": round(1 - kept_neg / max(1, neg), 3),
        "precision_of_kept": round(kept_pos / max(1, kept), 3),
        "on_topic": pos,
        "off_topic": neg,
    }


def calibrate_sentences(rows: list[dict[str, Any]]) -> dict[str, Any]:
    fit = [r for r in rows if not r["held_out"]]
    candidates = []
    for w, m, t in itertools.product(WEIGHTS, MARGINS, THRESHOLDS):
        rates = sentence_rates(fit, w, m, t)
        if rates["on_topic_kept"] >= KEEP:
            candidates.append(((rates["off_topic_dropped"], -m, t), (w, m, t)))
    _, (weight, margin, threshold) = max(candidates)
    table = []
    for name, params in {
        "no check": (0.0, 10.0, -1.0),
        "cosine only, same keep rate": _cosine_only(fit),
        f"fitted (weight {weight}, margin {margin}, threshold {threshold})": (
            weight,
            margin,
            threshold,
        ),
    }.items():
        for part, subset in (("fit", fit), ("held-out", [r for r in rows if r["held_out"]])):
            table.append({"rule": name, "part": part, **sentence_rates(subset, *params)})
    return {"weight": weight, "margin": margin, "threshold": threshold, "table": table}


def _cosine_only(fit: list[dict[str, Any]]) -> tuple[float, float, float]:
    ok = [t for t in THRESHOLDS if sentence_rates(fit, 0.0, 10.0, t)["on_topic_kept"] >= KEEP]
    return (0.0, 10.0, max(ok))


def write_markdown(data: dict[str, Any], path: Path) -> None:
    s = data["sentences"]
    lines = [
        "# Composing answers: papers used, sentences about the question",
        "",
        f"Command: `{data['command']}`. Seeds indexed with the bundled MiniLM; questions split "
        "by a hash of their text into a fitting half and a held-out half.",
        "",
        "## How many papers an answer uses",
        "",
        f"Rule: keep the best-ranked paper, and any other of the best {POOL} retrieved whose "
        "relevance (cosine of its best passage) reaches max(floor, share x best); fitted "
        "separately for "
        '"which papers" questions (list; mean F2, since such an answer must find all the '
        "papers) and the others (mean F1); settings `list_relative_relevance`, "
        "`list_relevance_floor` and `relative_relevance` (no floor helped the others).",
        "",
        "| questions asked | rule | part | right papers | n | precision | recall | F1 | F2 | "
        "first paper right | papers per answer |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for group, p in data["papers"].items():
        for r in p["table"]:
            lines.append(
                f"| {group} | {r['rule']} | {r['part']} | {r['questions']} | {r['n']} | "
                f"{r['precision']} | {r['recall']} | {r['f1']} | {r['f2']} | {r['first_right']} | "
                f"{r['papers_per_answer']} |"
            )
    lines += [
        "",
        "## Sentences about the question",
        "",
        f"about = cosine(sentence, question) + weight x share of the question's terms in it; "
        f"shown when about >= threshold and about >= best candidate - margin. Fitted to drop the "
        f"most off-topic sentences while keeping {KEEP:.0%} of on-topic ones on the fitting half: "
        f"weight {s['weight']}, margin {s['margin']}, threshold {s['threshold']}. Labels: a "
        "sentence is on-topic when its paper is one of the question's right papers (so a "
        "background sentence of a right paper counts as on-topic, and the off-topic ones are "
        "the supported sentences of the other retrieved papers a model could copy).",
        "",
        "| rule | part | on-topic | off-topic | on-topic kept | off-topic dropped | "
        "precision of kept |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in s["table"]:
        lines.append(
            f"| {r['rule']} | {r['part']} | {r['on_topic']} | {r['off_topic']} | "
            f"{r['on_topic_kept']} | {r['off_topic_dropped']} | {r['precision_of_kept']} |"
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        index = Index(Settings(index_dir=Path(folder), backend="extractive"), create=True)
        ingest([ROOT / "seeds"], index)
        qs = questions(index)
        rows = paper_rows(index, qs)
        papers = calibrate_papers(rows)
        sentences = calibrate_sentences(sentence_rows(index, rows, papers))
    for row in rows:
        row.pop("_hits", None)
    data = {
        "command": "python bench/answers/calibrate_composition.py",
        "papers": papers,
        "sentences": sentences,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "composition.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    write_markdown(data, RESULTS / "composition.md")
    print((RESULTS / "composition.md").read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
