"""Server mode matches the embedded store; a second process writes while the first reads."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import rag
from rag.api import open_index
from rag.index.paper_index import Index
from rag.index.retrieve import Filters, search
from rag.ingest.pipeline import ingest, remove
from rag.settings import Settings
from tests.chroma_server import free_port, serving
from tests.conftest import ROOT
from tests.fake_embedding import FakeEmbedding

CHROMA = Path(sys.executable).parent / "chroma"


@pytest.fixture
def chroma_url(tmp_path: Path) -> Iterator[str]:
    if not CHROMA.exists() and not shutil.which("chroma"):
        pytest.skip("the `chroma` command of chromadb is not installed")
    port = free_port()
    command = [str(CHROMA), "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1"]
    with serving([*command, "--port", str(port)], port, wait=30) as url:
        yield url


def test_server_mode_matches_embedded(chroma_url: str, seeds_copy: Path, tmp_path: Path) -> None:
    embedded = Index(Settings(index_dir=tmp_path / "embedded"), FakeEmbedding(), create=True)
    served = Index(
        Settings(index_dir=tmp_path / "client", chroma_url=chroma_url),
        FakeEmbedding(),
        create=True,
    )
    for index in (embedded, served):
        assert ingest([seeds_copy], index).added == 40
    assert served.store.count() == 40
    assert not (tmp_path / "client" / "chroma.sqlite3").exists()  # vectors live on the server

    for query, filters in [
        ("noisy labels on graphs", None),
        ("large language model compression", Filters(area="Large Language Models")),
    ]:
        for retriever in ("hybrid", "dense", "bm25"):
            a = search(embedded, query, k=5, retriever=retriever, filters=filters)
            b = search(served, query, k=5, retriever=retriever, filters=filters)
            assert [h.paper.id for h in a] == [h.paper.id for h in b]

    for question in ("Which papers deal with noisy labels on graphs?", "How do auctions learn?"):
        a, b = (rag.ask(question, index=i, backend="extractive") for i in (embedded, served))
        assert b.answer == a.answer
        assert [c.hit.paper.id for c in b.citations] == [c.hit.paper.id for c in a.citations]
        assert b.abstained == a.abstained

    victim = next(iter(served.papers))
    assert remove(served, [victim]) == 1
    reopened = Index(served.settings, FakeEmbedding())
    assert reopened.store.count() == 39 and victim not in reopened.bm25().ids


# Another process (a CLI ingest; on a server, from another machine with its own index folder)
# adds papers while this one, like the UI, has the collection open.
WRITER = """
import sys
sys.path.insert(0, {root!r})
from rag.index.paper_index import Index
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from tests.fake_embedding import FakeEmbedding
index = Index(Settings(index_dir={folder!r}, chroma_url={url!r}), FakeEmbedding(), create=True)
print(ingest([{corpus!r}], index).added)
"""


@pytest.mark.parametrize("mode", ["embedded", "server"])
def test_a_second_process_writes_while_the_first_reads(
    mode: str, seeds_copy: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue("chroma_url") if mode == "server" else None
    reader_settings = Settings(index_dir=tmp_path / "ui", chroma_url=url)
    ingest([seeds_copy], Index(reader_settings, FakeEmbedding(), create=True))
    embedder = FakeEmbedding()
    reader = open_index(reader_settings, embedder=embedder)
    client = reader.store
    assert len(reader.papers) == 40
    assert all(h.paper.authors != ("Ana Ruiz",) for h in rag.search("zeolite", index=reader))

    extra = tmp_path / "extra.jsonl"
    extra.write_text(
        '{"authors": ["Ana Ruiz"], "title": "Zeolite catalysis at low temperature", '
        '"abstract": "We study zeolite catalysis for ammonia synthesis at low temperature."}\n'
    )
    writer_folder = tmp_path / ("cli" if url else "ui")  # embedded: the same folder
    script = WRITER.format(root=str(ROOT), folder=str(writer_folder), url=url, corpus=str(extra))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"

    reader = open_index(reader_settings, embedder=embedder)  # what the UI does per request
    # embedded, Chroma's cached client is replaced; a server's is kept (it sees every write)
    assert (reader.store is client) == (mode == "server")
    for retriever in ("hybrid", "dense", "bm25"):
        hits = rag.search("zeolite catalysis", index=reader, k=3, retriever=retriever)
        assert hits and hits[0].paper.authors == ("Ana Ruiz",)
    assert len(reader.papers) == 41 and len(reader.bm25().ids) == 41

    # The same file again adds nothing, and the reader keeps its client and its catalog.
    client, catalog = reader.store, reader.papers
    again = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "0"
    reader = open_index(reader_settings, embedder=embedder)
    assert reader.store is client and reader.papers is catalog
