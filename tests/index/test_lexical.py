"""BM25 imported without scipy: the same scores as bm25s with scipy, and scipy stays unloaded."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from rag.index.acronyms import Expander, defined
from rag.index.lexical import paper_text
from rag.ingest.parsers import parse_path
from tests.conftest import ROOT, SEEDS

QUERIES = ["noisy labels on graphs", "fairness overparameterized", "GRPO tool use", "zzz"]
CHILD = """
import json, sys
sys.path.insert(0, {root!r})
from rag.index.lexical import BM25Index
index = BM25Index.build([str(i) for i in range({n})], json.loads(sys.stdin.read()))
scores = [index.scores(q).tolist() for q in {queries!r}]
print(json.dumps({{"scores": scores, "scipy": "scipy" in sys.modules}}))
"""


# bm25s with scipy, as it is where scipy is importable; in its own interpreter, because once
# this process has imported bm25s without scipy (any earlier test that searched did), bm25s
# keeps to its numpy path.
WITH_SCIPY = """
import json, sys
import scipy.sparse  # noqa: F401  before bm25s, so bm25s sees it
import bm25s, Stemmer
texts = json.loads(sys.stdin.read())
stemmer = Stemmer.Stemmer("english")
model = bm25s.BM25(csc_backend="scipy")
model.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False))
scores = []
for query in {queries!r}:
    tokens = bm25s.tokenize(
        [query], stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
    )[0]
    terms = [t for t in tokens if t in model.vocab_dict]
    scores.append(model.get_scores(terms).tolist() if terms else [0.0] * len(texts))
print(json.dumps({{"scores": scores, "scipy": bm25s.SCIPY_AVAILABLE}}))
"""


def _child(code: str, texts: list[str]) -> dict:  # type: ignore[type-arg]
    done = subprocess.run(
        [sys.executable, "-c", code], input=json.dumps(texts), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    out: dict = json.loads(done.stdout)  # type: ignore[type-arg]
    return out


def test_bm25_without_scipy_scores_as_bm25s_with_scipy() -> None:
    texts = [paper_text(p) for f in sorted(SEEDS.iterdir()) for p in parse_path(f).papers]
    out = _child(CHILD.format(root=str(ROOT), n=len(texts), queries=QUERIES), texts)
    assert out["scipy"] is False
    # As our index reads them: with the defined acronyms a paper spells out (rag/index/acronyms.py).
    expander = Expander(defined(texts))
    read = [expander.expand(t) for t in texts]
    assert read != texts
    reference = _child(WITH_SCIPY.format(queries=QUERIES), read)
    assert reference["scipy"] is True
    for got, want in zip(out["scores"], reference["scores"], strict=True):
        assert np.allclose(got, want, atol=1e-6)
    assert any(max(s) > 0 for s in out["scores"])


def test_an_acronym_finds_its_plural_and_the_plural_its_acronym() -> None:
    from rag.index.lexical import BM25Index

    texts = [
        "Graph neural networks (GNNs) are brittle under label noise.",
        "We profile GPU memory when serving LLMs.",
        "Sensors and networks of sensors.",
    ]
    index = BM25Index.build(["gnn", "gpu", "sensor"], texts)
    assert [pid for pid, _ in index.search("GNN", 3)] == ["gnn"]
    assert [pid for pid, _ in index.search("which GPUs", 3)] == ["gpu"]
    assert [pid for pid, _ in index.search("an LLM", 3)] == ["gpu"]
    assert index.stem("GNNs") == index.stem("GNN") == "gnn"
    # Typed in lower case, the plural keeps its "s" through the stemmer: it still finds them.
    assert [pid for pid, _ in index.search("gnns", 3)] == ["gnn"]
    assert [pid for pid, _ in index.search("llms on gpus", 3)] == ["gpu"]
    assert index.stem("llms") == "llm"
    # A word's plural is the stemmer's business, and words with one capital are words.
    assert index.search("sensor network", 3)[0][0] == "sensor"
    assert index.stem("Sensors") == index.stem("sensor")


def test_an_acronym_finds_the_papers_spelling_out_what_the_collection_defines_it_as() -> None:
    from rag.index.lexical import BM25Index

    texts = [
        "Large language models (LLMs) reason with tools.",
        "Federated fine-tuning customizes large language models on private data.",
        "A large model of language acquisition in children.",  # not the words in order
        "Out of distribution detection for graphs (OOD).",  # no definition: initials differ
        "LLM agents call tools.",
    ]
    index = BM25Index.build(["defines", "spells", "apart", "ood", "names"], texts)
    spelled = {"defines", "spells", "names"}
    assert {pid for pid, _ in index.search("LLMs", 5)} == spelled
    assert {pid for pid, _ in index.search("which papers use an LLM?", 5)} == spelled
    # A query's words are not read as the acronym, nor the words added to a paper naming it.
    assert "names" not in {pid for pid, _ in index.search("large language models", 5)}
    assert [pid for pid, _ in index.search("OOD", 5)] == ["ood"]


def test_a_saved_index_finds_by_the_acronyms_it_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from rag.index.lexical import BM25Index

    BM25Index.build(["a", "b"], ["Graph neural networks (GNNs).", "graph neural networks"]).save(
        tmp_path
    )
    loaded = BM25Index.load(tmp_path)
    assert loaded is not None and {pid for pid, _ in loaded.search("GNN", 2)} == {"a", "b"}


def test_an_acronym_is_added_only_where_its_words_stand_for_it() -> None:
    from rag.index.acronyms import Expander, defined

    texts = [
        "Genome-wide association studies (GWAS) find loci. GWAS are common.",
        "Signal transducer and activator of transcription (STAT3) rises.",
        "Signal transducer and activator of transcription levels were low.",
        "Mean arterial pressure (MAP) fell.",
        "Mean arterial pressure was stable; a map of the cohort is shown.",
        "Dendritic cells (DCs) present antigen; DCs migrate.",
    ]
    acronyms = defined(texts)
    # Its digits are not in its words (STAT1 and STAT5 share them); "map" is a plain word here.
    assert "stat3" not in acronyms and "map" not in acronyms
    expander = Expander(acronyms)
    # A text naming the acronym, even as "GWAS" or "DCs", does not get it again.
    assert expander.missing(texts[0]) == [] and expander.missing(texts[5]) == []
    assert expander.missing("Genome-wide association study of height.") == ["gwas"]
    assert expander.missing("Dendritic cells were counted.") == ["dc"]


def test_a_name_finds_its_versions_a_plain_word_not_its_footnotes() -> None:
    from rag.index.lexical import BM25Index

    texts = [
        "Gains of 45% on Qwen2.5-3B over GRPO.",  # indexed as "qwen2"
        "Long-context adaptation of Qwen-3-4B.",  # indexed as "qwen"
        "Gene expression2 was measured in mice.",  # a footnote glued on: "express2"
    ]
    index = BM25Index.build(["glued", "apart", "gene"], texts)
    assert {pid for pid, _ in index.search("which papers use Qwen?", 3)} == {"glued", "apart"}
    assert index.versions("qwen") == ["qwen2"]
    # Typed as a plain word, not a name: its glued forms are left alone.
    assert [pid for pid, _ in index.search("which papers use qwen?", 3)] == ["apart"]
    assert [pid for pid, _ in index.search("what about Expression", 3)] == []


def test_an_index_saved_by_an_older_format_reads_as_stale(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from rag.index import lexical

    saved = lexical.BM25Index.build(["a", "b"], ["GNNs on graphs", "text"])
    saved.save(tmp_path)
    assert lexical.BM25Index.load(tmp_path).fingerprint == lexical.fingerprint(["a", "b"])  # type: ignore[union-attr]
    monkeypatch.setattr(lexical, "FORMAT", lexical.FORMAT + "-next")
    assert lexical.BM25Index.load(tmp_path).fingerprint != lexical.fingerprint(["a", "b"])  # type: ignore[union-attr]
