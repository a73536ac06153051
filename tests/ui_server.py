"""Serve the chat UI over the seeds on a free loopback port, in a background thread.

Used by the browser tests; also runnable by hand to look at the page:

    .venv/bin/python -m tests.ui_server      # prints the URL, Ctrl-C to stop

The index uses the deterministic `FakeEmbedding`, so start-up takes seconds, not a model load.
"""

from __future__ import annotations

import socket
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rag.index.paper_index import Index
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from rag.ui import app as ui
from tests.fake_embedding import FakeEmbedding

SEEDS = Path(__file__).resolve().parent.parent / "seeds"


@dataclass(frozen=True)
class Served:
    """A running app: its URL, its index, and how long the steps to get there took (seconds)."""

    url: str
    ingest_s: float
    build_s: float
    launch_s: float
    index: Index


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve_seeds(folder: Path) -> Iterator[Served]:
    """Index the seeds in `folder`, serve the UI on a free port, and stop it afterwards."""
    settings = Settings(
        index_dir=folder / "index", backend="extractive", host="127.0.0.1", port=free_port()
    )
    t0 = time.perf_counter()
    index = Index(settings, FakeEmbedding(), create=True)
    ingest([SEEDS], index)
    t1 = time.perf_counter()
    app = ui.build_app(settings, index)
    t2 = time.perf_counter()
    options = {**ui.launch_options(settings), "prevent_thread_lock": True, "quiet": True}
    app.launch(**options)
    t3 = time.perf_counter()
    try:
        yield Served(f"http://127.0.0.1:{settings.port}/", t1 - t0, t2 - t1, t3 - t2, index)
    finally:
        app.close()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp, serve_seeds(Path(tmp)) as served:
        print(f"serving {served.url} (Ctrl-C to stop)", flush=True)
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            pass
