"""A killed ingest resumes: no duplicate, no missing record, Chroma and BM25 agree."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rag.index.paper_index import Index
from rag.ingest.pipeline import PAPERS_PER_BATCH, ingest
from rag.settings import Settings
from tests.conftest import ROOT
from tests.fake_embedding import FakeEmbedding

N_PAPERS = 1500

# A child process that ingests and says when each embedding batch starts; its third batch
# sleeps long enough for the kill to land mid-ingest: the first batch is committed, the second
# is being written (or just was) by the writer thread while the third embeds.
CHILD = """
import sys, time
sys.path.insert(0, {root!r})
from rag.index.paper_index import Index
from rag.ingest.pipeline import PAPERS_PER_BATCH, ingest
from rag.settings import Settings
from tests.fake_embedding import FakeEmbedding

class Announcing(FakeEmbedding):
    def announce(self):
        print("batch", flush=True)
        if self.calls >= 2:
            time.sleep(60)

    def embed(self, texts):
        if len(texts) > 1:
            self.announce()
        return super().embed(texts)

    def embed_late(self, documents):
        self.announce()
        return super().embed_late(documents)

index = Index(Settings(index_dir={index!r}), Announcing(), create=True)
ingest([{corpus!r}], index)
"""


def _corpus(path: Path) -> Path:
    words = [
        "graph",
        "label",
        "noise",
        "fairness",
        "auction",
        "kernel",
        "sparse",
        "prompt",
        "token",
        "memory",
    ]
    with path.open("w") as fh:
        for i in range(N_PAPERS):
            topic = " ".join(words[(i + j) % len(words)] for j in range(4))
            record = {
                "authors": [f"Author {i}", f"Coauthor {i % 97}"],
                "abstract": f"Paper {i} studies {topic}. We propose method M{i} for it. "
                f"Experiments on dataset D{i % 13} show gains of {i % 50} points.",
            }
            fh.write(json.dumps(record) + "\n")
    return path


def _stored_chunks(index: Index) -> set[str]:
    return set(index.store.chunks.get(include=[])["ids"])


def test_kill_nine_mid_ingest_then_resume(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus.jsonl")
    folder = tmp_path / "index"
    script = CHILD.format(root=str(ROOT), index=str(folder), corpus=str(corpus))
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    assert child.stdout is not None
    for _ in range(3):  # the third batch has started: one or two are committed
        assert child.stdout.readline().strip() == "batch"
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()

    index = Index(Settings(index_dir=folder), FakeEmbedding(), create=True)
    before = index.store.count()
    # whole batches only: a batch killed while being written leaves no paper record
    assert before in (PAPERS_PER_BATCH, 2 * PAPERS_PER_BATCH)
    # and every paper record that exists has its chunks (papers are written last)
    assert set(index.papers) <= {cid.rsplit("-", 1)[0] for cid in _stored_chunks(index)}

    report = ingest([corpus], index)
    assert report.added == N_PAPERS - before
    assert index.store.count() == N_PAPERS
    ids = set(index.papers)
    assert len(ids) == N_PAPERS
    assert set(index.bm25().ids) == ids
    # every paper has its chunks, and no chunk belongs to a paper that is not there
    owners = {cid.rsplit("-", 1)[0] for cid in _stored_chunks(index)}
    assert owners == ids


def test_ctrl_c_twice_still_waits_for_the_batch_being_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rag.ingest import pipeline

    class StopsOnSecondBatch(FakeEmbedding):
        def embed(self, texts: list[str]):  # type: ignore[no-untyped-def]
            if len(texts) > 1 and self.calls >= 1:
                raise KeyboardInterrupt  # the first Ctrl+C, while batch 2 embeds
            return super().embed(texts)

        def embed_late(self, documents):  # type: ignore[no-untyped-def]
            if self.calls >= 1:
                raise KeyboardInterrupt  # the first Ctrl+C, while batch 2 embeds
            return super().embed_late(documents)

    index = Index(Settings(index_dir=tmp_path / "index"), StopsOnSecondBatch(), create=True)
    real_add, real_wait = index.store.add, pipeline.wait
    done: list[int] = []

    def slow_add(papers, *args):  # type: ignore[no-untyped-def]
        time.sleep(0.5)
        real_add(papers, *args)
        done.append(len(papers))

    interrupts = iter([True])

    def wait_with_a_second_ctrl_c(futures):  # type: ignore[no-untyped-def]
        if next(interrupts, False):
            raise KeyboardInterrupt  # pressed again while waiting for the write
        return real_wait(futures)

    monkeypatch.setattr(index.store, "add", slow_add)
    monkeypatch.setattr(pipeline, "wait", wait_with_a_second_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        ingest([_corpus(tmp_path / "corpus.jsonl")], index)
    assert done == [PAPERS_PER_BATCH]  # the batch in flight was finished before returning
    assert index.store.count() == PAPERS_PER_BATCH
