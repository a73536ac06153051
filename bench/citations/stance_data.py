"""SciFact training claims for the stance model: loading, the split by claim id, negation.

Shared by `bench/citations/train_stance.py` (fits the model) and `bench/citations/stance_eval.py`
(scores `rag.cite`). The split is fixed before anything else: a claim's part depends only on its
id, so no claim moves between the parts whatever the script or the seed.

    fit       60%: the model's training pairs
    calib     20%: thresholds are chosen here (never trained on)
    held_out  20%: only reported

Data: `../shared/data/scifact-claims` (CC BY-NC 2.0, Wadden et al. 2020); absent means skip.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# `shared/` sits beside the checkout (or beside the folder of worktrees that holds it).
SHARED = next(
    (p / "shared" / "data" for p in ROOT.parents if (p / "shared" / "data").is_dir()),
    ROOT.parent / "shared" / "data",
)
CLAIMS_DIR = SHARED / "scifact-claims"
CORPUS_DIR = SHARED / "scifact"
PARTS = ("fit", "calib", "held_out")


@dataclass(frozen=True)
class Evidence:
    doc_id: str
    label: str  # SUPPORT or CONTRADICT
    rationale: tuple[int, ...]


@dataclass(frozen=True)
class Claim:
    id: str
    text: str
    cited: tuple[str, ...]
    evidence: tuple[Evidence, ...] = field(default=())

    @property
    def part(self) -> str:
        return part_of(self.id)


def part_of(claim_id: str) -> str:
    """Return the split part of a claim id: fit, calib or held_out (60/20/20 by hash)."""
    bucket = int(hashlib.sha1(f"stance:{claim_id}".encode()).hexdigest(), 16) % 100
    return "fit" if bucket < 60 else "calib" if bucket < 80 else "held_out"


def available() -> bool:
    return (CLAIMS_DIR / "claims_train.jsonl").exists() and (CORPUS_DIR / "corpus.jsonl").exists()


def load_claims(folder: Path = CLAIMS_DIR) -> list[Claim]:
    claims = []
    for line in (folder / "claims_train.jsonl").read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        evidence = tuple(
            Evidence(str(e["doc_id"]), e["label"], tuple(e["rationale_sentence_ids"]))
            for e in raw["evidence"]
        )
        cited = tuple(str(d) for d in raw["cited_doc_ids"])
        claims.append(Claim(str(raw["id"]), raw["claim"], cited, evidence))
    return claims


def load_sentences(folder: Path = CLAIMS_DIR) -> dict[str, list[str]]:
    """Return each abstract's sentences as the annotators split them, by doc id."""
    out = {}
    for line in (folder / "corpus_sentences.jsonl").read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        out[str(raw["doc_id"])] = list(raw["sentences"])
    return out


# Negation for augmentation: a supported claim negated is contradicted by the same sentences,
# and the other way round. Only forms that negate cleanly are used; anything else is skipped.
_AUX = r"(is|are|was|were|can|could|may|might|will|would|should|does|do|did|has|have|had|must)"
_DENIED = re.compile(rf"\b{_AUX} not\b", re.IGNORECASE)
_NO_EFFECT = re.compile(r"\b(has|have|had) no\b", re.IGNORECASE)
_NOT_ASSOCIATED = re.compile(r"\bnot (associated|correlated|linked|related)\b", re.IGNORECASE)
# The first auxiliary of the main clause: not one inside "who are", "that is", "where".
_AFFIRMED = re.compile(
    rf"(?<!who )(?<!that )(?<!which )(?<!where )\b{_AUX}\b(?! not\b)", re.IGNORECASE
)
_HAVE = {"has": "does not have", "have": "do not have", "had": "did not have"}
_SWAPS = {
    "increases": "decreases", "decreases": "increases", "increase": "decrease",
    "decrease": "increase", "increased": "decreased", "decreased": "increased",
    "higher": "lower", "lower": "higher", "reduces": "increases", "reduced": "increased",
    "reduce": "increase", "improves": "worsens", "improved": "worsened",
    "promotes": "inhibits", "inhibits": "promotes", "enhances": "reduces",
    "upregulates": "downregulates", "downregulates": "upregulates",
    "activates": "inhibits", "positively": "negatively", "negatively": "positively",
    "greater": "smaller", "less": "more", "more": "less"
}  # fmt: skip
_SWAP = re.compile(r"\b(" + "|".join(_SWAPS) + r")\b", re.IGNORECASE)


def _case(word: str, like: str) -> str:
    return word[0].upper() + word[1:] if like[0].isupper() else word


def negate(claim: str) -> str | None:
    """Return the claim with its polarity flipped, or None when no rule applies cleanly."""
    if m := _DENIED.search(claim):  # "does not affect" -> "does affect"
        return claim[: m.end(1)] + claim[m.end() :]
    if m := _NO_EFFECT.search(claim):  # "has no role" -> "has a role"
        return claim[: m.end(1)] + " a" + claim[m.end() :]
    if m := _NOT_ASSOCIATED.search(claim):
        return claim[: m.start()] + m.group(1) + claim[m.end() :]
    if len(_SWAP.findall(claim)) == 1:  # one direction word: "X increases Y" -> "X decreases Y"
        m = _SWAP.search(claim)
        assert m is not None
        word = m.group(1)
        return claim[: m.start()] + _case(_SWAPS[word.lower()], word) + claim[m.end() :]
    if m := _AFFIRMED.search(claim):  # "X is required" -> "X is not required"
        word = m.group(1)
        if word.lower() in _HAVE:  # "X has a role" -> "X does not have a role"
            return claim[: m.start()] + _HAVE[word.lower()] + claim[m.end() :]
        return claim[: m.end()] + " not" + claim[m.end() :]
    return None
