"""Give every abstract sentence its role: background, objective, method, result, conclusion.

Answers should quote what a paper found, not what it set out to do (issue 22), so each sentence
needs a role, computed once at ingest. Two sources, best first:

- `rag.ingest.sections`: the abstract's own headings ("BACKGROUND:", "Results:", "CONCLUSIONS"), as
  structured abstracts from PubMed and many journals carry them. The authors' label beats any
  model, and the heading must not be shown as part of the sentence.
- `classify`: a linear model over what is cheap at ingest: hashed words and opening words of
  the sentence and of its neighbours, and its position in the abstract (optionally MiniLM
  vectors, which the shipped weights do not use); then, if the weights ask for it, a Viterbi
  pass over role transitions and two hand rules (see `conclude`).

The weights are fitted on CSAbstruct (computer-science abstracts, annotated roles) together with
biomedical SciFact abstracts whose own headings give the roles (see
`bench/ingest/sentence_roles.py` and `bench/results/sentence_roles.md`). CSAbstruct has no
"conclusion" label (its annotators filed "we conclude that ..." under result), so its result
sentences were trained as "result or conclusion"; its "other" label (copyright lines, URLs) is a
sixth class, dropped at decoding, where such a line gets its most likely real role. The SciFact
data are CC BY-NC 2.0: the shipped weights carry those non-commercial terms.

Only numpy is imported at run time; the weights live in `model/roles.npz` beside this module.
"""

from __future__ import annotations

import itertools
import json
import re
import zlib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from rag.ingest import sections
from rag.ingest.sections import ROLES, abstract_sentences

# The model's classes, in the order of its weight columns ("other" is CSAbstruct's junk label).
CLASSES = (*ROLES, "other")
WEIGHTS = Path(__file__).with_name("model") / "roles.npz"

# ---------------------------------------------------------------------------------------------
# Features
# ---------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"[a-z]+(?:['-][a-z]+)*|\d+(?:[.,]\d+)*|%|[<>=±≤≥]")
_NUMBER = re.compile(r"\d")
# The concluding voice; checked on a result-like sentence in the last part of an abstract.
_CONCLUDING = re.compile(
    r"\b(?:in\s+conclusion|to\s+conclude|we\s+conclude|conclude[sd]?\s+that|in\s+summary|"
    r"taken\s+together|overall,|collectively|altogether|"
    r"(?:these|our|the|this|such)\s+(?:\w+\s+){0,3}(?:results?|findings?|data|observations?|"
    r"study|studies|analyses|analysis|work|evidence)\s+(?:\w+\s+){0,2}(?:suggests?|indicates?|"
    r"implies|imply|supports?|highlights?|underscores?|demonstrates?|shows?|provides?|"
    r"reveals?|establish(?:es)?|point|points|raise|raises|identif(?:y|ies)|argue)|"
    r"(?:suggest|suggests|indicate|indicates|imply|implies)\s+that|"
    r"(?:may|might|could)\s+(?:be\s+)?(?:serve|represent|provide|offer|help|contribute|be\s+a)|"
    r"(?:is|are)\s+(?:a\s+)?(?:promising|warranted|needed|required)|further\s+(?:studies|"
    r"research|work|investigation|trials)|implications?\s+for)",
    re.IGNORECASE,
)


# How an aim is phrased in an abstract's own voice. CSAbstruct has few such sentences and the
# model files most under background; this rule lifted objective F1 on the SciFact dev half from
# 0.13 to 0.49 and left CSAbstruct dev unchanged (0.604 -> 0.603 macro-F1).
_AIM = re.compile(
    r"^(?:(?:in\s+this\s+(?:paper|work|study|article)|here)\s*,?\s*)?(?:we|this\s+(?:paper|study|"
    r"work|article))\s+(?:\w+ly\s+)?(?:investigate|examine|explore|ask|study|test|assess|evaluate|"
    r"determine|address|analy[sz]e)\s+(?:whether|if|how|what|why|the\s+(?:question|extent|effect|"
    r"role|impact))\b|^to\s+(?:determine|investigate|examine|assess|evaluate|test|explore|compare|"
    r"identify|characteri[sz]e)\b|^(?:the|our)\s+(?:\w+\s+)?(?:aims?|goals?|objectives?|purposes?)"
    r"\s+of\s+(?:this|the\s+present|our)\b",
    re.IGNORECASE,
)


def _tokens(sentence: str) -> list[str]:
    """Lower-cased words; every number becomes "0" so that values do not split the vocabulary."""
    return ["0" if t[0].isdigit() else t for t in _TOKEN.findall(sentence.lower())]


def _bin(value: int, edges: Sequence[int]) -> int:
    return sum(value >= e for e in edges)


def sentence_features(sentences: Sequence[str]) -> list[list[str]]:
    """Name the features of every sentence of one abstract, its neighbours' words included.

    Why these: the opening words carry the role ("We propose", "To address", "Results show"),
    position does too (background first, results last), and a sentence's neighbours tell a
    method from the result that follows it.

    Args:
        sentences: the sentences of one abstract, in order.

    Returns:
        One list of feature names per sentence.
    """
    toks = [_tokens(s) for s in sentences]
    n = len(sentences)
    own: list[list[str]] = []
    for i, (s, t) in enumerate(zip(sentences, toks, strict=True)):
        f = [f"w:{w}" for w in t] + [f"b:{a}_{b}" for a, b in itertools.pairwise(t)]
        f += [f"s1:{'_'.join(t[:1])}", f"s2:{'_'.join(t[:2])}", f"s3:{'_'.join(t[:3])}"]
        rel = i / (n - 1) if n > 1 else 0.0
        f += [f"rel:{min(int(rel * 8), 7)}", f"i:{min(i, 6)}", f"j:{min(n - 1 - i, 6)}"]
        f += [f"n:{_bin(n, (3, 5, 7, 9, 12))}", f"len:{_bin(len(t), (6, 12, 20, 30, 45))}"]
        f += [f"ij:{min(i, 3)}_{min(n - 1 - i, 3)}"]
        # Opening words by third of the abstract: "We" opens an aim early, a result late.
        third = min(int(rel * 3), 2)
        f += [f"s1r:{'_'.join(t[:1])}@{third}", f"s2r:{'_'.join(t[:2])}@{third}"]
        if _NUMBER.search(s):
            f.append("has:num")
        if "%" in s:
            f.append("has:pct")
        if _CONCLUDING.search(s):
            f.append("has:concl")
        own.append(f)
    out: list[list[str]] = []
    for i in range(n):
        f = list(own[i])
        for tag, j in (("p", i - 1), ("x", i + 1)):
            if 0 <= j < n:
                f += [f"{tag}w:{w}" for w in set(toks[j])]
                f += [f"{tag}s1:{'_'.join(toks[j][:1])}", f"{tag}s2:{'_'.join(toks[j][:2])}"]
                f += [f"{tag}{x}" for x in own[j] if x.startswith(("has:", "len:"))]
            else:
                f.append(f"{tag}:none")
        out.append(f)
    return out


def hash_features(features: list[str], dim: int) -> np.ndarray:
    """Map feature names to columns; crc32, because Python's own hash differs between runs."""
    return np.array(sorted({zlib.crc32(x.encode()) & (dim - 1) for x in features}), dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# Model
# ---------------------------------------------------------------------------------------------


DOMAIN_DIM = 2**14  # hashed words of the whole abstract, for the domain guess


def abstract_words(sentences: Sequence[str]) -> np.ndarray:
    """Hashed word columns of a whole abstract, for the domain guess."""
    words = {w for s in sentences for w in _tokens(s)}
    return hash_features([f"w:{w}" for w in words], DOMAIN_DIM)


class RoleModel:
    """Linear scores per sentence plus a Viterbi decode over role transitions.

    With `domains` in its config the model is domain-adapted ("frustratingly easy" feature
    augmentation, Daume 2007): every feature has a shared weight and one per domain, the
    domain being guessed per abstract from its words by a small logistic model (biomedical or
    not). The weight rows are then laid out as [shared | domain 0 | domain 1 | domain biases].
    """

    def __init__(self, path: Path = WEIGHTS) -> None:
        with np.load(path) as data:
            self.config = json.loads(str(data["config"]))
            self.dim = int(self.config["dim"])
            self.domains = list(self.config.get("domains", []))
            rows = self.dim * (1 + len(self.domains)) + len(self.domains)
            self.weights = np.zeros((rows, len(CLASSES)), dtype=np.float32)
            self.weights[data["rows"]] = data["weights"].astype(np.float32)
            self.bias = data["bias"].astype(np.float32)
            self.vec_weights = data.get("vec_weights")
            self.start = data["start"]
            self.trans = data["trans"]
            self.end = data["end"]
            if self.domains:
                self.domain_w = data["domain_w"].astype(np.float32)
                self.domain_b = float(data["domain_b"])

    def domain(self, sentences: Sequence[str]) -> int:
        """Index into `domains` of the abstract's guessed field (1: the second, biomedical)."""
        z = self.domain_w[abstract_words(sentences)].sum() + self.domain_b
        return int(z > 0)

    def scores(
        self, sentences: Sequence[str], vectors: np.ndarray | None, domain: int | None = None
    ) -> np.ndarray:
        """Log-probabilities over `CLASSES`, one row per sentence.

        `domain` overrides the guessed domain (for training-time checks); None guesses it.
        """
        feats = sentence_features(sentences)
        cols = [hash_features(f, self.dim) for f in feats]
        if self.domains:
            d = self.domain(sentences) if domain is None else domain
            off = self.dim * (1 + d)
            cols = [np.concatenate([c, c + off]) for c in cols]
            extra = self.weights[self.dim * (1 + len(self.domains)) + d]
        else:
            extra = 0.0
        out = np.stack([self.weights[c].sum(axis=0) for c in cols]) + self.bias + extra
        if self.vec_weights is not None and vectors is not None:
            out += context_vectors(np.asarray(vectors, dtype=np.float32)) @ self.vec_weights
        out -= out.max(axis=1, keepdims=True)
        return out - np.log(np.exp(out).sum(axis=1, keepdims=True))

    def decode(self, logp: np.ndarray) -> list[str]:
        """The best role sequence: per-sentence scores plus weighted transition scores."""
        keep = [CLASSES.index(r) for r in CLASSES if r != "other"]
        lam = float(self.config.get("viterbi", 0.0))
        emit = logp[:, keep]
        start, trans, end = (lam * self.start[keep], lam * self.trans[np.ix_(keep, keep)],
                             lam * self.end[keep])  # fmt: skip
        best = emit[0] + start
        back = np.zeros(emit.shape, dtype=np.int64)
        for i in range(1, len(emit)):
            cand = best[:, None] + trans
            back[i] = cand.argmax(axis=0)
            best = cand.max(axis=0) + emit[i]
        path = [int((best + end).argmax())]
        for i in range(len(emit) - 1, 0, -1):
            path.append(int(back[i][path[-1]]))
        return [CLASSES[keep[k]] for k in reversed(path)]


def context_vectors(vectors: np.ndarray) -> np.ndarray:
    """Each sentence's vector beside its neighbours' (zeros past either end)."""
    pad = np.zeros((1, vectors.shape[1]), dtype=vectors.dtype)
    prev = np.vstack([pad, vectors[:-1]])
    nxt = np.vstack([vectors[1:], pad])
    return np.hstack([vectors, prev, nxt])


def conclude(
    sentences: Sequence[str], roles: list[str], tail: float = 0.0, aim: bool = False
) -> list[str]:
    """Apply the hand rules the weights file asks for (both off by default).

    Args:
        sentences: the abstract's sentences.
        roles: their roles from the model.
        tail: the share of the abstract, from its end, where a result in the concluding voice
            becomes a conclusion; 0 turns that rule off.
        aim: whether a sentence phrased as an aim ("To determine ...") becomes an objective.

    Returns:
        The roles, with those sentences turned into "conclusion" or "objective".
    """
    n = len(sentences)
    out = list(roles)
    for i, (s, r) in enumerate(zip(sentences, roles, strict=True)):
        late = i >= n - max(1, round(n * tail))
        if tail and r == "result" and late and _CONCLUDING.search(s):
            out[i] = "conclusion"
        elif aim and _AIM.search(s):
            out[i] = "objective"  # "We investigate whether ...", "To determine ..."
    return out


@lru_cache(maxsize=1)
def model_fingerprint(path: Path = WEIGHTS) -> str:
    """A short fingerprint of the weights file and of the headings' reading
    (`rag.ingest.sections`): roles stored by other weights, or before a heading was read as
    one, are stale (any change of the features needs the weights refitted, so the file changes
    with them)."""
    crc = zlib.crc32(path.read_bytes())
    return f"{zlib.crc32(Path(sections.__file__).read_bytes(), crc):08x}"


@lru_cache(maxsize=1)
def load_model(path: Path = WEIGHTS) -> RoleModel:
    """Load the weights once per process (a file of about 1 MB)."""
    return RoleModel(path)


def classify(sentences: list[str], vectors: np.ndarray | None = None) -> list[str]:
    """Give each sentence of one abstract its role.

    Args:
        sentences: the abstract's sentences in order, without any section heading (use
            `section_labels` first on a structured abstract and trust its labels).
        vectors: the sentences' MiniLM vectors, one row each, or None. Used only when the
            weights file has a vector part; the shipped weights need none.

    Returns:
        One of `ROLES` per sentence.
    """
    if not sentences:
        return []
    model = load_model()
    roles = model.decode(model.scores(sentences, vectors))
    return conclude(
        sentences, roles, float(model.config.get("tail", 0.0)), bool(model.config.get("aim"))
    )


def sentence_roles(abstract: str) -> list[tuple[str, str]]:
    """Return the sentences of `abstract` (headings removed) with their roles.

    A heading's role is the authors' own and is kept; the model decides the other sentences,
    seeing the whole abstract for their neighbours and position.
    """
    return _with_roles(abstract_sentences(abstract))


def _with_roles(pairs: list[tuple[str, str | None]]) -> list[tuple[str, str]]:
    guessed = classify([s for s, _ in pairs])
    return [(s, own or guess) for (s, own), guess in zip(pairs, guessed, strict=True)]


def stored_roles(abstract: str, stored: Sequence[str]) -> list[tuple[str, str]]:
    """Return `sentence_roles(abstract)`, from the roles stored at ingest when there are any.

    An index from before sentence roles stored none: the model is cheap (about 1 ms an
    abstract).
    """
    pairs = abstract_sentences(abstract)
    if pairs and len(stored) == len(pairs):
        return [(s, role) for (s, _), role in zip(pairs, stored, strict=True)]
    return _with_roles(pairs)
