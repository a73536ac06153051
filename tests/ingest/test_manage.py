"""Managing the collection: stable keys, show, remove (Chroma and BM25), similar papers."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from rag.cite.claims import find_paper
from rag.cite.similar import paper_query, similar
from rag.cli import cli
from rag.errors import ConfigError
from rag.index.paper_index import Index
from rag.index.retrieve import search
from rag.ingest.pipeline import ingest, remove

DATA = Path(__file__).parents[1] / "data"


@pytest.fixture
def seeded(fake_index: Index, seeds_copy: Path) -> Index:
    ingest([seeds_copy], fake_index)
    return fake_index


def _keys(index: Index) -> dict[str, str]:
    return {pid: p.citation_key for pid, p in index.papers.items()}


def test_keys_are_readable_and_unique_across_the_seeds(seeded: Index) -> None:
    keys = list(_keys(seeded).values())
    assert len(keys) == 40 and len(set(keys)) == 40
    assert all(re.fullmatch(r"[a-z]+(_[a-z0-9]+)?", k) for k in keys)
    by_first_author = {p.authors[0]: p.citation_key for p in seeded.papers.values()}
    assert by_first_author["Xiaoyi MAI"] == "mai"
    assert by_first_author["Chenglin Li"] == "li_conrad"  # with Tse-Hsun (Peter) Chen
    assert by_first_author["Wei Ju"] == "ju_icgnn"
    assert by_first_author["Oğuz Yüksel"] == "yuksel"
    assert by_first_author["Francesco D'Angelo"] == "dangelo"


def test_keys_survive_re_ingest_a_move_and_new_papers(
    seeded: Index, seeds_copy: Path, tmp_path: Path
) -> None:
    before = _keys(seeded)
    assert ingest([seeds_copy], seeded).added == 0
    moved = tmp_path / "moved"
    shutil.move(seeds_copy, moved)
    assert ingest([moved], seeded).updated == 40
    ingest([DATA / "references.bib", DATA / "arxiv-snapshot.jsonl"], seeded)
    after = _keys(seeded)
    assert {pid: after[pid] for pid in before} == before
    assert len(set(after.values())) == len(after) == 46
    # Two papers called "Attention ..." by Vaswani (BibTeX and arXiv versions) get a suffix.
    assert {"vaswani2017attention", "vaswani2017attentionb"} <= set(after.values())


def test_a_label_an_older_rule_derived_is_derived_again_and_its_key_kept(
    seeded: Index, seeds_copy: Path
) -> None:
    # Stop 63 named the PoLar paper; an index built before kept "Li et al." on its cards and
    # in exports, since the unchanged seed file was not read as changed.
    polar = next(p for p in seeded.papers.values() if p.authors[0] == "Ziyue Li")
    assert polar.label == "Li et al. — PoLar" and polar.label_derived
    seeded.store.update_records([polar.with_(label="Li et al.", citation_key="li")])
    seeded.refresh()
    report = ingest([seeds_copy], seeded)
    assert (report.added, report.updated, report.unchanged) == (0, 0, 40)
    again = seeded.papers[polar.id]
    assert again.label == "Li et al. — PoLar"
    assert again.citation_key == "li"  # a key a reader may have cited stays


def test_remove_takes_the_paper_out_of_chroma_and_bm25(seeded: Index, seeds_copy: Path) -> None:
    paper = find_paper(seeded, "ju_icgnn")
    assert paper.id in dict(seeded.bm25().search("noisy labels graph", 5, None))
    assert remove(seeded, [paper.id]) == 1
    assert paper.id not in seeded.papers
    assert paper.id not in dict(seeded.bm25().search("noisy labels graph", 40, None))
    vector = seeded.embedder.embed(["noisy labels on graphs"])[0]
    assert all(m.paper_id != paper.id for m in seeded.store.query(vector, 200))
    assert seeded.store.paper_embeddings([paper.id]) == {}
    # Ingesting its file again brings it back under the same key.
    assert ingest([seeds_copy], seeded).added == 1
    assert find_paper(seeded, paper.id).citation_key == "ju_icgnn"


def test_similar_excludes_the_paper_and_ranks_by_paper_embedding(seeded: Index) -> None:
    paper = find_paper(seeded, "ju_icgnn")
    hits = similar(seeded, paper, k=3, method="vector")
    assert len(hits) == 3 and paper.id not in {h.paper.id for h in hits}
    assert [h.rank for h in hits] == [1, 2, 3]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # Scores are the cosine of the stored paper-level vectors.
    vectors = seeded.store.paper_embeddings([paper.id, hits[0].paper.id])
    assert hits[0].score == pytest.approx(float(vectors[paper.id] @ vectors[hits[0].paper.id]))
    # The fake embedding shares word stems: another graph-learning paper comes first.
    assert hits[0].paper.citation_key in {"li_cell", "wang_clinic", "zhao_discrete"}
    with pytest.raises(ConfigError):
        similar(seeded, paper, k=0)


def test_similar_by_default_searches_with_the_papers_own_text(seeded: Index) -> None:
    paper = find_paper(seeded, "ju_icgnn")
    hits = similar(seeded, paper, k=3)
    assert len(hits) == 3 and paper.id not in {h.paper.id for h in hits}
    assert [h.rank for h in hits] == [1, 2, 3]
    # The same papers, in the same order, as a hybrid search for its title and abstract.
    searched = [h.paper.id for h in search(seeded, paper_query(paper), k=4)]
    assert [h.paper.id for h in hits] == [pid for pid in searched if pid != paper.id][:3]
    fused = similar(seeded, paper, k=3, method="fused")
    assert len(fused) == 3 and paper.id not in {h.paper.id for h in fused}
    with pytest.raises(ConfigError, match="Unknown method 'nearest'"):
        similar(seeded, paper, method="nearest")


def test_similar_in_an_index_of_one_paper_is_empty(fake_index: Index, tmp_path: Path) -> None:
    one = tmp_path / "one.jsonl"
    one.write_text('{"authors": ["A. Smith"], "abstract": "Only paper."}\n', encoding="utf-8")
    ingest([one], fake_index)
    (paper,) = fake_index.papers.values()
    assert similar(fake_index, paper) == []


# -- with the real embedding model, through the CLI


@pytest.mark.slow
def test_similar_papers_with_real_embeddings(real_seed_index: Index) -> None:
    hits = similar(real_seed_index, find_paper(real_seed_index, "yuksel"), k=2)
    # Both study transformers trained on (high-order) Markov chains.
    assert hits[0].paper.citation_key == "dangelo"
    assert float(np.float32(hits[0].score)) > 0.5


@pytest.fixture(scope="module")
def small_real_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real index (real MiniLM) of the BibTeX and arXiv samples, built through the CLI."""
    folder = tmp_path_factory.mktemp("manage") / "index"
    paths = [str(DATA / "references.bib"), str(DATA / "arxiv-snapshot.jsonl")]
    result = CliRunner().invoke(cli, ["--index", str(folder), "ingest", *paths])
    assert result.exit_code == 3, result.output  # partial: the samples' bad records
    return folder


def _rag(index: Path, *args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, ["--index", str(index), *args], catch_exceptions=False)


@pytest.mark.slow
def test_cli_show(small_real_index: Path) -> None:
    result = _rag(small_real_index, "show", "scholkopf2021causal")
    assert result.exit_code == 0, result.output
    assert "title:       Toward Causal Representation Learning" in result.output
    assert "year:        2021" in result.output
    assert "@misc{scholkopf2021causal," in result.output
    assert 'Sch{\\"o}lkopf, Bernhard' in result.output
    record = json.loads(
        _rag(small_real_index, "show", "SCHOLKOPF2021CAUSAL", "--format", "json").output
    )
    assert record["authors"][0] == "Bernhard Schölkopf" and record["year"] == 2021
    ris = _rag(small_real_index, "show", record["id"], "--format", "ris").output
    assert ris.startswith("TY  - GEN\nID  - scholkopf2021causal\n")


@pytest.mark.slow
def test_cli_list_exports_the_whole_library(small_real_index: Path) -> None:
    # Before: exporting a library took one `rag show KEY --format` per paper.
    keys = [p["citation_key"] for p in json.loads(_rag(small_real_index, "list", "--json").output)]
    bib = _rag(small_real_index, "list", "--format", "bibtex").output
    assert re.findall(r"^@misc\{([^,]+),", bib, re.MULTILINE) == keys
    ris = _rag(small_real_index, "list", "--format", "ris").output
    assert ris.count("TY  - GEN") == len(keys) == ris.count("ER  -")
    csl = json.loads(_rag(small_real_index, "list", "--format", "csljson").output)
    assert [item["id"] for item in csl] == keys
    listed = _rag(small_real_index, "list").output
    assert re.search(r"^scholkopf2021causal +2021 ", listed, re.MULTILINE), listed
    assert "Toward Causal Representation Learning" in listed, listed


@pytest.mark.slow
def test_cli_unknown_key_is_one_line_and_exit_1(small_real_index: Path) -> None:
    for command in ("show", "similar", "remove"):
        result = CliRunner().invoke(cli, ["--index", str(small_real_index), command, "nope"])
        assert result.exit_code == 1
        assert "No paper with key or id 'nope'" in result.output and "rag list" in result.output
        assert "Traceback" not in result.output


@pytest.mark.slow
def test_cli_similar_json(small_real_index: Path) -> None:
    result = _rag(small_real_index, "similar", "vaswani2017attention", "--json", "-k", "2")
    hits = json.loads(result.output)
    assert [h["rank"] for h in hits] == [1, 2]
    assert hits[0]["citation_key"] == "vaswani2017attentionb"  # the other version of it
    assert "vaswani2017attention" not in {h["citation_key"] for h in hits}


@pytest.mark.slow
def test_cli_remove_is_all_or_nothing_and_reaches_bm25(small_real_index: Path) -> None:
    listed = json.loads(_rag(small_real_index, "list", "--json").output)
    key = next(p["citation_key"] for p in listed if p["authors"] == ["Juan M. Maldacena"])
    failed = CliRunner().invoke(cli, ["--index", str(small_real_index), "remove", key, "nope"])
    assert failed.exit_code == 1
    assert len(json.loads(_rag(small_real_index, "list", "--json").output)) == len(listed)
    result = _rag(small_real_index, "remove", key)
    assert result.exit_code == 0 and f"removed {key}" in result.output
    left = json.loads(_rag(small_real_index, "list", "--json").output)
    assert len(left) == len(listed) - 1 and key not in {p["citation_key"] for p in left}
    found = _rag(small_real_index, "search", "superconformal supergravity", "--retriever", "bm25")
    assert key not in found.output
