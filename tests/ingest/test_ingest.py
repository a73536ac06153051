"""Ingest: idempotent, edits replace instead of duplicating, bad files named, good ones kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.errors import ConfigError
from rag.index.paper_index import Index
from rag.ingest.pipeline import ingest, remove
from rag.settings import Settings
from tests.fake_embedding import FakeEmbedding


def test_seeds_ingest_to_40_papers_with_unique_keys(fake_index: Index, seeds_copy: Path) -> None:
    report = ingest([seeds_copy], fake_index)
    assert (report.added, report.files, report.errors) == (40, 2, ())
    assert fake_index.store.count() == 40
    keys = [p.citation_key for p in fake_index.papers.values()]
    assert len(set(keys)) == 40 and all(keys)


def test_second_ingest_changes_nothing_and_embeds_nothing(
    fake_index: Index, fake_embedding: FakeEmbedding, seeds_copy: Path
) -> None:
    ingest([seeds_copy], fake_index)
    keys_before = {pid: p.citation_key for pid, p in fake_index.papers.items()}
    embedded = fake_embedding.texts_embedded
    report = ingest([seeds_copy], fake_index)
    assert (report.added, report.removed, report.unchanged) == (0, 0, 40)
    assert fake_embedding.texts_embedded == embedded
    assert fake_index.store.count() == 40
    assert {pid: p.citation_key for pid, p in fake_index.papers.items()} == keys_before


def test_editing_an_abstract_in_place_replaces_that_one_record(
    fake_index: Index, seeds_copy: Path
) -> None:
    ingest([seeds_copy], fake_index)
    before = set(fake_index.papers)
    seed = next(iter(sorted(seeds_copy.iterdir())))
    text = seed.read_text(encoding="utf-8")
    assert "bioinformatics" in text
    seed.write_text(text.replace("bioinformatics", "computational biology", 1), encoding="utf-8")

    report = ingest([seeds_copy], fake_index)
    after = set(fake_index.papers)
    assert (report.added, report.removed) == (1, 1)
    assert len(after) == 40 and fake_index.store.count() == 40
    assert len(before - after) == 1 and len(after - before) == 1
    (new_id,) = after - before
    assert "computational biology" in fake_index.papers[new_id].abstract
    assert fake_index.bm25().fingerprint == fake_index.bm25().fingerprint  # built
    assert set(fake_index.bm25().ids) == after


def test_moved_file_is_not_new_papers(fake_index: Index, seeds_copy: Path, tmp_path: Path) -> None:
    ingest([seeds_copy], fake_index)
    moved = tmp_path / "elsewhere"
    seeds_copy.rename(moved)
    report = ingest([moved], fake_index)
    assert (report.added, report.updated) == (0, 40)
    assert all(str(moved) in p.source for p in fake_index.papers.values())


def test_bad_file_is_named_and_good_files_still_go_in(fake_index: Index, seeds_copy: Path) -> None:
    (seeds_copy / "broken.jsonl").write_text('{"abstract": "fine abstract text here"\n')
    (seeds_copy / "blob.bin").write_bytes(b"\x00\x01\x02\xff" * 50)
    report = ingest([seeds_copy], fake_index)
    assert report.added == 40
    assert report.partial
    joined = "\n".join(report.errors)
    assert "broken.jsonl:1" in joined
    assert "blob.bin" in joined


def test_remove_takes_paper_out_of_chroma_and_bm25(fake_index: Index, seeds_copy: Path) -> None:
    ingest([seeds_copy], fake_index)
    victim = next(iter(fake_index.papers))
    assert remove(fake_index, [victim]) == 1
    assert victim not in fake_index.papers
    assert fake_index.store.count() == 39
    assert victim not in fake_index.bm25().ids
    # a fresh process sees the same: the persisted BM25 index agrees with Chroma
    reopened = Index(fake_index.settings, FakeEmbedding())
    assert set(reopened.bm25().ids) == set(reopened.papers) and len(reopened.papers) == 39


def test_second_writer_gets_a_clear_busy_error(fake_index: Index, seeds_copy: Path) -> None:
    from filelock import FileLock

    from rag.errors import IndexBusyError

    held = FileLock(str(fake_index.dir / ".write.lock"))  # another process's ingest, in effect
    with held, pytest.raises(IndexBusyError, match="being written by another process"):
        ingest([seeds_copy], fake_index)
    assert fake_index.store.count() == 0
    assert ingest([seeds_copy], fake_index).added == 40  # free again once the writer is done


def _csv(path: Path, abstracts: list[str]) -> Path:
    rows = [f'"Ana Ruiz; Bo Li","{a}"' for a in abstracts]
    path.write_text("authors,abstract\n" + "\n".join(rows) + "\n")
    return path


ABSTRACTS = [
    "We study label noise on citation graphs.",
    "We propose sparse kernels for fast auctions.",
    "We measure memory in long prompts.",
]


def test_a_file_read_with_problems_removes_nothing(fake_index: Index, tmp_path: Path) -> None:
    table = _csv(tmp_path / "papers.csv", ABSTRACTS)
    assert ingest([table], fake_index).added == 3
    before = set(fake_index.papers)

    # A bad byte in the second row stops the CSV there: the rows after it were not read,
    # so their papers are not stale.
    data = table.read_bytes().replace(b"sparse", b"sp\xe9rse")
    table.write_bytes(data)
    report = ingest([table], fake_index)
    assert report.removed == 0 and report.errors
    assert set(fake_index.papers) == before

    table.write_bytes(b"\x00\x01binary now")  # a file that cannot be read at all
    report = ingest([table], fake_index)
    assert report.removed == 0 and "binary" in report.errors[0]
    assert set(fake_index.papers) == before

    _csv(table, ABSTRACTS[:2])  # read cleanly again: the paper it lost goes
    assert ingest([table], fake_index).removed == 1 and len(fake_index.papers) == 2


def test_a_model_that_cannot_load_fails_before_anything_is_removed(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _csv(tmp_path / "papers.csv", ABSTRACTS)
    ingest([table], Index(settings, FakeEmbedding(), create=True))
    _csv(table, ["We study label noise on citation graphs, edited.", *ABSTRACTS[1:]])

    def broken(*_: object, **__: object) -> None:
        raise ConfigError("the weights are corrupt")

    monkeypatch.setattr("rag.index.paper_index.model_name", lambda _: FakeEmbedding.name)
    monkeypatch.setattr("rag.index.paper_index.model_dimension", lambda _: FakeEmbedding.dim)
    monkeypatch.setattr("rag.index.paper_index.load_embedder", broken)
    lazy = Index(settings)  # opens without the model
    with pytest.raises(ConfigError, match="corrupt"):
        ingest([table], lazy)
    reopened = Index(settings, FakeEmbedding())
    assert len(reopened.papers) == 3  # the edited paper's old version is still there


def test_a_write_that_cannot_mark_the_index_still_releases_the_lock(
    fake_index: Index, seeds_copy: Path
) -> None:
    (fake_index.dir / ".generation").mkdir(parents=True)  # cannot be written as a file
    assert ingest([seeds_copy], fake_index).added == 40
    assert ingest([seeds_copy], fake_index).unchanged == 40  # the lock was let go
    assert not list(fake_index.dir.glob(".generation.*"))  # no temporary file left behind
