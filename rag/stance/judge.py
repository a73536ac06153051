"""Stance: whether a paper supports a claim, contradicts it, or neither, from its sentences.

The judge is a cross-encoder (all-MiniLM-L6-v2 fine-tuned on SciFact's labelled claims by
`bench/citations/train_stance.py`, shipped int8 in `rag/stance/model/`, CC BY-NC 2.0) run with ONNX
Runtime: no torch on the query path. It reads the claim with one abstract sentence at a time and
gives the three probabilities; a paper's stance comes from its strongest sentence:

    contradicts  when some sentence's P(contradicts) >= CONTRADICT_MIN and beats every P(supports)
    supports     when some sentence's P(supports) >= SUPPORT_MIN (and the paper does not contradict)
    neither      otherwise

and the sentence shown is the one that carries that stance. It sees only the claim and the
sentences it is given: not the title, not the figures or the full text, and not how two
sentences combine (a result stated across two sentences is judged sentence by sentence).
Thresholds are calibrated on held-apart training claims (`bench/citations/stance_eval.py`,
`bench/results/stance.md`).
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from rag.errors import ConfigError

if TYPE_CHECKING:
    pass

LABELS: tuple[str, ...] = ("supports", "contradicts", "neither")
MODEL_DIR = Path(__file__).resolve().parent / "model"
# Chosen on a sample of the `calib` claims (bench/citations/stance_eval.py --sample): see
# bench/results/stance.md. The model is under-confident (its P(supports) for a near copy of an
# abstract sentence is about 0.3), hence the low bars; it misses the targets, so the
# judge is off by default (setting `stance`).
SUPPORT_MIN = 0.10
CONTRADICT_MIN = 0.35
# A paper is read on this many of its sentences, the closest to the claim (by cosine) first
# (3 chosen on the calib sample from 3, 4, 6 and 8).
JUDGED_SENTENCES = 3
_BATCH = 32  # pairs per ONNX run: longer batches pad more


@dataclass(frozen=True)
class Stance:
    """One paper's stance on one claim, and the sentence it rests on."""

    label: str  # "supports", "contradicts" or "neither"
    supports: float  # the highest P(supports) over the paper's sentences
    contradicts: float  # the highest P(contradicts)
    sentence: str  # the sentence carrying the stance; for neither, the likeliest to support
    index: int  # its position among the sentences judged

    @property
    def probability(self) -> float:
        """How sure the judge is of the stance (for neither: 1 - the larger of the two)."""
        if self.label == "supports":
            return self.supports
        if self.label == "contradicts":
            return self.contradicts
        return 1.0 - max(self.supports, self.contradicts)


class StanceJudge(Protocol):
    """Anything that judges papers' stances on a claim: the shipped model, an LLM, a fake."""

    def judge(self, claim: str, papers: Sequence[Sequence[str]]) -> list[Stance]:
        """Return one Stance per paper, each paper given as its sentences."""
        ...


def decide(
    probabilities: np.ndarray,
    sentences: Sequence[str],
    *,
    support_min: float = SUPPORT_MIN,
    contradict_min: float = CONTRADICT_MIN,
) -> Stance:
    """Return the stance of a paper from its sentences' (n, 3) probabilities (see module doc)."""
    if len(sentences) == 0:
        return Stance("neither", 0.0, 0.0, "", -1)
    sup, con = probabilities[:, 0], probabilities[:, 1]
    best_sup, best_con = int(np.argmax(sup)), int(np.argmax(con))
    p_sup, p_con = float(sup[best_sup]), float(con[best_con])
    if p_con >= contradict_min and p_con > p_sup:
        return Stance("contradicts", p_sup, p_con, sentences[best_con], best_con)
    label = "supports" if p_sup >= support_min else "neither"
    return Stance(label, p_sup, p_con, sentences[best_sup], best_sup)


class StanceModel:
    """The shipped stance cross-encoder, run with ONNX Runtime on the CPU.

    Args:
        folder: where `stance.onnx`, `tokenizer.json` and `stance.json` are.
        threads: ONNX Runtime intra-op threads (1: a lookup shares the CPU with the rest).

    Raises:
        ConfigError: the model files are missing.
    """

    def __init__(self, folder: Path = MODEL_DIR, threads: int = 1) -> None:
        files = [folder / n for n in ("stance.onnx", "tokenizer.json", "stance.json")]
        missing = [f.name for f in files if not f.is_file()]
        if missing:
            raise ConfigError(
                f"The stance model in {folder} lacks {', '.join(missing)}: reinstall the "
                "package, or rebuild it with `python bench/citations/train_stance.py`."
            )
        import onnxruntime
        from tokenizers import Tokenizer

        meta = json.loads((folder / "stance.json").read_text(encoding="utf-8"))
        if tuple(meta["labels"]) != LABELS:
            raise ConfigError(f"{folder / 'stance.json'}: labels {meta['labels']} are not {LABELS}")
        self.max_length = int(meta["max_length"])
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(self.max_length)
        self._tokenizer.enable_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(folder / "stance.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self._lock = threading.Lock()

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Return the (n, 3) probabilities of supports / contradicts / neither per (claim, text)."""
        if not pairs:
            return np.zeros((0, len(LABELS)), dtype=np.float32)
        # Similar lengths batched together pad less.
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        out = np.zeros((len(pairs), len(LABELS)), dtype=np.float32)
        with self._lock:
            for start in range(0, len(order), _BATCH):
                chunk = order[start : start + _BATCH]
                encoded = self._tokenizer.encode_batch([pairs[i] for i in chunk])
                feeds = {
                    "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
                    "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
                    "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
                }
                (logits,) = self._session.run(["logits"], feeds)
                logits = logits - logits.max(axis=1, keepdims=True)
                exp = np.exp(logits)
                out[chunk] = exp / exp.sum(axis=1, keepdims=True)
        return out

    def judge(self, claim: str, papers: Sequence[Sequence[str]]) -> list[Stance]:
        """Return the stance of each paper (given as its sentences) on `claim`, in one batch."""
        pairs = [(claim, s) for sentences in papers for s in sentences]
        probabilities = self.probabilities(pairs)
        stances, offset = [], 0
        for sentences in papers:
            part = probabilities[offset : offset + len(sentences)]
            stances.append(decide(part, list(sentences)))
            offset += len(sentences)
        return stances


@functools.lru_cache(maxsize=2)
def load_stance_model(folder: Path = MODEL_DIR) -> StanceModel:
    """Return the stance model in `folder`, loaded once per process."""
    return StanceModel(folder)
