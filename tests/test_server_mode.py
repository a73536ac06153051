"""Server mode: a real `chroma run` on 127.0.0.1 gives the same results as the embedded store."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from rag.index import Index
from rag.ingest import ingest, remove
from rag.retrieve import Filters, search
from rag.settings import Settings
from tests.fake_embedding import FakeEmbedding

CHROMA = Path(sys.executable).parent / "chroma"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def chroma_url(tmp_path: Path) -> Iterator[str]:
    if not CHROMA.exists() and not shutil.which("chroma"):
        pytest.skip("the `chroma` command of chromadb is not installed")
    port = _free_port()
    proc = subprocess.Popen(
        [
            str(CHROMA),
            "run",
            "--path",
            str(tmp_path / "server"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                pytest.fail(f"chroma run did not come up on {url}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


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

    victim = next(iter(served.papers))
    assert remove(served, [victim]) == 1
    reopened = Index(served.settings, FakeEmbedding())
    assert reopened.store.count() == 39 and victim not in reopened.bm25().ids
