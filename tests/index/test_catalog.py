"""The local copy of the paper records: used when current, never when anything changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.index.paper_index import Index
from rag.ingest.pipeline import ingest, remove
from rag.records import Paper
from tests.fake_embedding import FakeEmbedding


def _reopen(index: Index, monkeypatch: pytest.MonkeyPatch, *, from_chroma: bool) -> Index:
    """Open `index` afresh; fail if its records come from Chroma when they should not."""
    fresh = Index(index.settings, FakeEmbedding())
    if not from_chroma:

        def refuse(*_: object, **__: object) -> None:
            raise AssertionError("the records were read from Chroma, not from the copy")

        monkeypatch.setattr(fresh.store, "iter_papers", refuse)
    return fresh


def test_a_second_open_reads_the_copy(
    fake_index: Index, seeds_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest([seeds_copy], fake_index)
    assert fake_index.catalog_path.exists()
    fresh = _reopen(fake_index, monkeypatch, from_chroma=False)
    assert fresh.papers == fake_index.papers and len(fresh.papers) == 40


def test_a_write_makes_the_copy_stale(
    fake_index: Index, seeds_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest([seeds_copy], fake_index)
    victim = next(iter(fake_index.papers))
    reader = Index(fake_index.settings, FakeEmbedding())
    assert len(reader.papers) == 40  # reader holds the copy of this generation
    moved = tmp_path / "moved"
    seeds_copy.rename(moved)
    ingest([moved], Index(fake_index.settings, FakeEmbedding()))  # sources change, ids do not
    fresh = Index(fake_index.settings, FakeEmbedding())
    assert all(str(moved) in p.source for p in fresh.papers.values())
    remove(Index(fake_index.settings, FakeEmbedding()), [victim])
    fresh = Index(fake_index.settings, FakeEmbedding())
    assert len(fresh.papers) == 39 and victim not in fresh.papers
    assert _reopen(fake_index, monkeypatch, from_chroma=False).papers == fresh.papers


def test_papers_written_without_a_new_token_are_read_from_chroma(
    fake_index: Index, seeds_copy: Path
) -> None:
    """An ingest killed with -9 stores papers but never leaves a new generation token."""
    ingest([seeds_copy], fake_index)
    extra = Paper.create(
        authors=["Ana Ruiz"], abstract="Zeolite catalysis for ammonia at low temperature."
    )
    vector = FakeEmbedding().embed([extra.abstract])
    fake_index.store.add([extra], vector, [(extra.id, extra.abstract)], vector)
    fresh = Index(fake_index.settings, FakeEmbedding())
    assert extra.id in fresh.papers and len(fresh.papers) == 41


@pytest.mark.parametrize("damage", ["torn", "garbage", "empty"])
def test_a_damaged_copy_is_ignored_and_replaced(
    fake_index: Index, seeds_copy: Path, damage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest([seeds_copy], fake_index)
    path = fake_index.catalog_path
    text = path.read_text(encoding="utf-8")
    path.write_text(
        {"torn": text[: len(text) // 2], "garbage": "\x00{not json", "empty": ""}[damage],
        encoding="utf-8",
    )
    assert len(Index(fake_index.settings, FakeEmbedding()).papers) == 40
    assert _reopen(fake_index, monkeypatch, from_chroma=False).papers == fake_index.papers


def test_records_changed_by_a_write_killed_before_its_token_are_read_from_chroma(
    fake_index: Index, seeds_copy: Path, tmp_path: Path
) -> None:
    """Moved sources change records but no id: only the write's marker tells."""
    ingest([seeds_copy], fake_index)
    moved = [p.with_(source=str(tmp_path / "moved.txt")) for p in fake_index.papers.values()]
    writing = fake_index.writing()
    writing.__enter__()  # the write starts, and is killed before its finally could run
    fake_index.store.update_records(moved)
    fresh = Index(fake_index.settings, FakeEmbedding())
    assert all(p.source.endswith("moved.txt") for p in fresh.papers.values())
    assert Index(fake_index.settings, FakeEmbedding()).papers == fresh.papers  # no stale copy
