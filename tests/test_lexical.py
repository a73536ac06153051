"""BM25 imported without scipy: the same scores as bm25s with scipy, and scipy stays unloaded."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from rag.chunking import paper_text
from rag.parsers import parse_path
from tests.conftest import ROOT, SEEDS

QUERIES = ["noisy labels on graphs", "fairness overparameterized", "GRPO tool use", "zzz"]
CHILD = """
import json, sys
sys.path.insert(0, {root!r})
from rag.lexical import BM25Index
index = BM25Index.build([str(i) for i in range({n})], json.loads(sys.stdin.read()))
scores = [index.scores(q).tolist() for q in {queries!r}]
print(json.dumps({{"scores": scores, "scipy": "scipy" in sys.modules}}))
"""


def test_bm25_without_scipy_scores_as_bm25s_with_scipy() -> None:
    import bm25s
    import Stemmer

    texts = [paper_text(p) for f in sorted(SEEDS.iterdir()) for p in parse_path(f).papers]
    child = CHILD.format(root=str(ROOT), n=len(texts), queries=QUERIES)
    done = subprocess.run(
        [sys.executable, "-c", child], input=json.dumps(texts), capture_output=True, text=True
    )
    out = json.loads(done.stdout)
    assert out["scipy"] is False

    stemmer = Stemmer.Stemmer("english")
    model = bm25s.BM25(csc_backend="scipy")  # what bm25s does where scipy is importable
    model.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False))
    for query, got in zip(QUERIES, out["scores"], strict=True):
        tokens = bm25s.tokenize(
            [query], stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
        )[0]
        terms = [t for t in tokens if t in model.vocab_dict]
        want = model.get_scores(terms) if terms else np.zeros(len(texts))
        assert np.allclose(got, want, atol=1e-6)
    assert any(max(s) > 0 for s in out["scores"])
