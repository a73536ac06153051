"""Shared fixtures: clean environment, fake embedding, indexes in tmp dirs, the real seeds."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from rag.index.paper_index import Index
from rag.settings import Settings
from tests.fake_embedding import FakeEmbedding

if TYPE_CHECKING:
    from playwright.sync_api import Browser

    from tests.ui_server import Served

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
SCIFACT = ROOT.parent / "shared" / "data" / "scifact"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
os.environ["ANONYMIZED_TELEMETRY"] = "False"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No RAG_*/OPENAI_* variable and no rag.toml leaks into a test."""
    for name in list(os.environ):
        if name.startswith(("RAG_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings for an index in a fresh tmp folder, extractive answers."""
    return Settings(index_dir=tmp_path / "index", backend="extractive")


@pytest.fixture
def fake_embedding() -> FakeEmbedding:
    return FakeEmbedding()


@pytest.fixture
def fake_index(settings: Settings, fake_embedding: FakeEmbedding) -> Index:
    """An empty index on real Chroma in tmp, with the fake embedding."""
    return Index(settings, fake_embedding, create=True)


@pytest.fixture
def seeds_copy(tmp_path: Path) -> Path:
    """A writable copy of the seed files."""
    dest = tmp_path / "seeds"
    shutil.copytree(SEEDS, dest)
    for f in dest.iterdir():
        f.chmod(0o644)
    return dest


@pytest.fixture
def seed_index(fake_index: Index, seeds_copy: Path) -> Index:
    """The seeds ingested into `fake_index`."""
    from rag.ingest.pipeline import ingest

    ingest([seeds_copy], fake_index)
    return fake_index


@pytest.fixture(scope="session")
def real_seed_index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    """The seeds indexed once with the real bundled embedding model (slow tests)."""
    from rag.ingest.pipeline import ingest

    folder = tmp_path_factory.mktemp("real-index")
    index = Index(Settings(index_dir=folder, backend="extractive"), create=True)
    ingest([SEEDS], index)
    return index


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The chat UI over the seeds (fake embedding) on a free loopback port (browser tests)."""
    from tests.ui_server import serve_seeds  # imports Gradio: only for the tests that use it

    with serve_seeds(tmp_path_factory.mktemp("ui")) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium driven by Playwright (browser tests); skipped when it is missing."""
    if not CHROMIUM.exists():
        pytest.skip(
            f"{CHROMIUM} is missing: install it with `apt-get install -y chromium chromium-driver`"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
