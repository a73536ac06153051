"""What else could tell which retrieved papers address a question: candidate features for the
per-paper judgement (`rag/answer/paper_choice.py`), each judged by cross-validation on the
fitting part and then on the held-out part.

    .venv/bin/python bench/answers/paper_choice_features.py [--stance]   # a minute; 5 with --stance

Same questions and labels as bench/answers/paper_choice.py (misspellings read as `rag ask`
reads them). Beside the shipped ten features, per question and retrieved paper:

- `topic`: the best passage's cosine to the question without its asking words ("Which papers
  deal with federated learning?" as "federated learning"), and its gap below the best paper's;
- `z`: the paper's cosine as a z-score over the question's cosines to every passage of a sample
  of the collection (at most 128 papers), and the best paper's lead in those units;
- `sentence`: the best single abstract sentence's cosine, to the question and to its topic;
- `cluster`: the paper's mean passage vector against the best paper's and the first three's;
- `words`: coverage of the question's words by meaning, not spelling: each topic word's best
  cosine to one of the paper's sentences, averaged with the words' IDF weights, and its gap
  below the best paper's ("interpretability" met by "mechanistic explanations");
- `lead`: the IDF-weighted share of the question's terms its title and first sentence hold
  (what a paper is about is said first: IndexGuard opens on "Federated ..."), and its gap;
- `spread`: the IDF-weighted mean share of its sentences holding each term, and its gap;
- `phrase`: the IDF-weighted share of the topic's adjacent word pairs its text holds side by
  side ("diffusion models" against ICGNN's "graph diffusion matrix"), and its gap;
- `stance` (with --stance): 1 - P(neither) of the shipped stance cross-encoder
  (`rag/stance/model`), the most over the abstract's sentences.

For each set: 5-fold cross-validated F1 of the chosen papers on the fitting part (folds by
question, the threshold chosen for F1), then fitted on the whole fitting part and scored on the
held-out part at that threshold (an answerable question keeps its best paper when none passes,
as `rag ask` does). A logistic regression as shipped, and gradient-boosted trees
(scikit-learn) to see whether interactions help. Writes bench/results/paper_choice_features.md.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.paper_choice import fit_logistic, open_index, questions, scores  # noqa: E402
from rag.answer import paper_choice  # noqa: E402
from rag.answer.abstention import (  # noqa: E402
    _ASKING,
    _WORD,
    decide,
    documents_holding,
    idf,
    question_terms,
)
from rag.answer.evidence import paper_sentences  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.retrieve import best_passages, search  # noqa: E402
from rag.index.spelling import corrected  # noqa: E402
from rag.text import STOPWORDS  # noqa: E402

BASE = list(paper_choice.FEATURES)
SETS = {
    "shipped": [],
    "+ topic": ["topic_cos", "topic_gap"],
    "+ z": ["z", "z_gap"],
    "+ topic, z": ["topic_cos", "topic_gap", "z", "z_gap"],
    "+ sentence": ["sent_q", "sent_topic"],
    "+ cluster": ["sim_best", "sim_first3"],
    "+ words": ["words", "words_gap"],
    "+ lead": ["lead", "lead_gap"],
    "+ spread": ["spread", "spread_gap"],
    "+ lead, spread": ["lead", "lead_gap", "spread", "spread_gap"],
    "+ phrase": ["phrase", "phrase_gap"],
    "+ all of the above": [
        "topic_cos", "topic_gap", "z", "z_gap", "sent_q", "sent_topic", "sim_best", "sim_first3",
    ],
}  # fmt: skip


def topic(question: str) -> str:
    """The question without its asking words and stopwords."""
    from bm25s.stopwords import STOPWORDS_EN

    stop = set(STOPWORDS_EN) | STOPWORDS | _ASKING
    kept = [w for w in _WORD.findall(question) if w.lower() not in stop and not w.isdigit()]
    return " ".join(kept) or question


def word_weights(index: Index, question: str) -> tuple[list[str], np.ndarray]:
    """The topic's words and their IDF weights in the collection (at least 0.1 each)."""
    bm25 = index.bm25()
    n = max(1, len(bm25))
    words = list(dict.fromkeys(topic(question).split()))
    held = [len(documents_holding(index, bm25.stem(w.lower()), False)) for w in words]
    return words, np.array([max(0.1, idf(n, k)) for k in held])


def lead_and_spread(
    index: Index, terms: list[tuple[str, bool]], hits: list
) -> tuple[list[float], list[float]]:
    """Per hit: the IDF-weighted share of the question's terms its title and first sentence
    hold (what a paper is about is said first), and the IDF-weighted mean share of its
    sentences that hold each term (a topic runs through the abstract, a mention does not)."""
    bm25 = index.bm25()
    n = max(1, len(bm25))
    weights = {t: idf(n, len(documents_holding(index, t, name))) for t, name in terms}
    total = sum(weights.values()) or 1.0
    lead, spread = [], []
    for h in hits:
        sentences = paper_sentences(h.paper)
        stems = [{bm25.stem(w) for w in _WORD.findall(x)} for x in sentences]
        head = {bm25.stem(w) for w in _WORD.findall(h.paper.title or "")}
        head |= stems[0] if stems else set()
        lead.append(sum(w for t, w in weights.items() if t in head) / total)
        share = {t: sum(t in st for st in stems) / max(1, len(stems)) for t in weights}
        spread.append(sum(weights[t] * share[t] for t in weights) / total)
    return lead, spread


def phrases(index: Index, question: str, hits: list) -> list[float]:
    """Per hit: the IDF-weighted share of the question's adjacent topic-word pairs ("diffusion
    models", "federated learning") that its title and abstract hold side by side, as BM25 stems
    them (1 when the topic is one word): "graph diffusion matrix" holds "diffusion" but not
    "diffusion model"."""
    bm25 = index.bm25()
    n = max(1, len(bm25))
    words = [bm25.stem(w.lower()) for w in topic(question).split()]
    pairs = list(dict.fromkeys(itertools.pairwise(words)))
    if not pairs:
        return [1.0] * len(hits)
    weight = {
        pair: sum(idf(n, len(documents_holding(index, t, False))) for t in pair) for pair in pairs
    }
    total = sum(weight.values()) or 1.0
    out = []
    for h in hits:
        text = f"{h.paper.title or ''} {h.paper.abstract}"
        held = set(itertools.pairwise(bm25.stem(w.lower()) for w in _WORD.findall(text)))
        out.append(sum(w for pair, w in weight.items() if pair in held) / total)
    return out


def unit(v: np.ndarray) -> np.ndarray:
    return v / (np.linalg.norm(v, axis=-1, keepdims=True) + 1e-12)


def rows_of(index: Index, with_stance: bool) -> list[dict[str, Any]]:
    ids = sorted(index.papers)
    sample = unit(np.stack([v for _, _, v in index.store.passages_of(ids[:128])]))
    by_paper: dict[str, list[np.ndarray]] = defaultdict(list)
    for pid, _, v in index.store.passages_of(ids):
        by_paper[pid].append(unit(v))
    mean_vec = {pid: unit(np.mean(vs, axis=0)) for pid, vs in by_paper.items()}
    stance = None
    if with_stance:
        from rag.stance.judge import load_stance_model

        stance = load_stance_model()
    out = []
    for row in questions():
        q = corrected(index, row["q"])
        hits = search(index, q, k=index.settings.top_k, retriever="hybrid", rescore=True)
        terms = question_terms(index, q)
        decision = decide(index, q, hits, index.settings.min_relevance)
        x = paper_choice.features(index, q, hits, terms, decision)
        qv, tv = (unit(v) for v in index.embedder.embed([q, topic(q)]))
        tb = best_passages(index, tv, [h.paper.id for h in hits])
        topic_cos = np.array([tb[h.paper.id][0] for h in hits])
        cos = x[:, 0]
        spread = sample @ qv
        first3 = unit(np.mean([mean_vec[h.paper.id] for h in hits[:3]], axis=0))
        words, idf = word_weights(index, q)
        wv = unit(index.sentence_embedder.embed(words))
        extra: dict[str, list[float]] = defaultdict(list)
        for h, tc, c in zip(hits, topic_cos, cos, strict=True):
            sv = unit(index.sentence_embedder.embed(paper_sentences(h.paper)))
            extra["topic_cos"].append(tc)
            extra["topic_gap"].append(topic_cos.max() - tc)
            extra["z"].append((c - spread.mean()) / (spread.std() + 1e-9))
            extra["z_gap"].append((cos.max() - c) / (spread.std() + 1e-9))
            extra["sent_q"].append(float((sv @ qv).max()))
            extra["sent_topic"].append(float((sv @ tv).max()))
            extra["sim_best"].append(float(mean_vec[h.paper.id] @ mean_vec[hits[0].paper.id]))
            extra["sim_first3"].append(float(mean_vec[h.paper.id] @ first3))
            extra["words"].append(float((sv @ wv.T).max(axis=0) @ idf / idf.sum()))
            if stance is not None:
                p = stance.probabilities([(q, s) for s in paper_sentences(h.paper)])
                extra["stance"].append(float((1 - p[:, 2]).max()))
        extra["phrase"] = phrases(index, q, hits)
        extra["phrase_gap"] = list(max(extra["phrase"], default=0.0) - np.array(extra["phrase"]))
        lead, spread = lead_and_spread(index, terms, hits)
        extra["lead"], extra["spread"] = lead, spread
        extra["lead_gap"] = list(max(lead, default=0.0) - np.array(lead))
        extra["spread_gap"] = list(max(spread, default=0.0) - np.array(spread))
        extra["words_gap"] = list(max(extra["words"], default=0.0) - np.array(extra["words"]))
        out.append(
            {
                **row,
                "x": x,
                "extra": {k: np.array(v) for k, v in extra.items()},
                "y": np.array([h.paper.authors[0] in row["relevant"] for h in hits], float),
                "authors": [h.paper.authors[0] for h in hits],
                "answerable": decision.answerable,
            }
        )
    return out


def matrix(row: dict[str, Any], names: list[str]) -> np.ndarray:
    cols = [row["x"][:, i] for i in range(len(BASE))] + [row["extra"][n] for n in names]
    return np.stack(cols, axis=1)


def fold(row: dict[str, Any]) -> int:
    return int(hashlib.md5((row["need"] or row["id"]).encode()).hexdigest(), 16) % 5


def predict(train: list, test: list, names: list[str], model: str) -> list[np.ndarray]:
    x = np.concatenate([matrix(r, names) for r in train])
    y = np.concatenate([r["y"] for r in train])
    if model == "trees":
        from sklearn.ensemble import HistGradientBoostingClassifier

        trees = HistGradientBoostingClassifier(
            max_depth=3, max_iter=150, learning_rate=0.05, l2_regularization=1.0
        ).fit(x, y)
        return [trees.predict_proba(matrix(r, names))[:, 1] for r in test]
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    w, b = fit_logistic((x - mean) / scale, y)
    return [1 / (1 + np.exp(-(((matrix(r, names) - mean) / scale) @ w + b))) for r in test]


def chosen(probs: list[np.ndarray], rows: list, t: float) -> list[set[str]]:
    out = []
    for p, r in zip(probs, rows, strict=True):
        picked = {a for a, q in zip(r["authors"], p, strict=True) if q >= t}
        if not picked and r["answerable"] and len(p):
            picked = {r["authors"][int(np.argmax(p))]}
        out.append(picked)
    return out


def f1(s: dict[str, float]) -> float:
    return 2 * s["recall"] * s["precision"] / max(1e-9, s["recall"] + s["precision"])


def judge(rows: list, names: list[str], model: str) -> tuple[float, float, dict, dict]:
    fit = [r for r in rows if r["split"] == "fit"]
    held = [r for r in rows if r["split"] == "heldout"]
    probs: list[np.ndarray] = [np.zeros(0)] * len(fit)
    for k in range(5):
        test = [i for i, r in enumerate(fit) if fold(r) == k]
        train = [r for i, r in enumerate(fit) if fold(r) != k]
        for i, p in zip(test, predict(train, [fit[i] for i in test], names, model), strict=True):
            probs[i] = p
    best_t, best = max(
        ((float(t), scores(chosen(probs, fit, float(t)), fit)) for t in np.arange(0.1, 0.9, 0.01)),
        key=lambda ts: f1(ts[1]),
    )
    held_scores = scores(chosen(predict(fit, held, names, model), held, best_t), held)
    return best_t, f1(best), best, held_scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, default=ROOT / "bench" / "work" / "seeds-index")
    parser.add_argument("--stance", action="store_true", help="also the stance model's feature")
    args = parser.parse_args()
    rows = rows_of(open_index(args.index), args.stance)
    sets = dict(SETS)
    if args.stance:
        sets["+ stance"] = ["stance"]
    lines = [
        "# Candidate features for the per-paper judgement",
        "",
        "Command: `.venv/bin/python bench/answers/paper_choice_features.py"
        + (" --stance`" if args.stance else "`"),
        "",
        "| features | model | fitting part, 5-fold: F1 | recall | precision | threshold "
        "| held out: recall | precision | false abstentions |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, names in sets.items():
        for model in ("logistic", "trees"):
            t, f, s, h = judge(rows, names, model)
            lines.append(
                f"| {name} | {model} | {f:.3f} | {s['recall']} | {s['precision']} | {t:.2f} "
                f"| {h['recall']} | {h['precision']} | {h['false_abstentions']} |"
            )
            print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    (ROOT / "bench" / "results" / "paper_choice_features.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
