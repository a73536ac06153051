"""Command-line habits: shared options after the command name, --version, shell completion."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from click.testing import CliRunner

from rag.cli import cli
from rag.index.paper_index import Index
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from tests.conftest import ROOT, SEEDS
from tests.fake_embedding import FakeEmbedding


class MiniLMShaped(FakeEmbedding):
    """A fake with the bundled model's name and size, so the CLI accepts its index."""

    name = "all-MiniLM-L6-v2"
    dim = 384


@pytest.fixture
def seed_folder(tmp_path: Path) -> Path:
    """The seeds indexed under the bundled model's name (the CLI then loads no model)."""
    folder = tmp_path / "idx"
    assert ingest([SEEDS], Index(Settings(index_dir=folder), MiniLMShaped(), create=True)).added
    return folder


def run(*args: str) -> object:
    return CliRunner().invoke(cli, list(args))


def test_index_after_the_command_name(seed_folder: Path) -> None:
    # `rag ingest seeds --index idx` failed with "No such option '--index'"
    result = run("ingest", str(SEEDS), "--index", str(seed_folder))
    assert result.exit_code == 0, result.output
    assert "0 added" in result.output and "40 unchanged" in result.output
    listing = run("list", "--index", str(seed_folder))
    assert listing.exit_code == 0 and "40 papers" in listing.output
    shown = run("show", "ju_icgnn", "--index", str(seed_folder), "--format", "json")
    assert shown.exit_code == 0 and '"Wei Ju"' in shown.output


def test_the_flag_after_the_name_wins_over_the_one_before(
    seed_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = str(tmp_path / "none")
    result = run("--index", missing, "list", "--index", str(seed_folder))
    assert result.exit_code == 0 and "40 papers" in result.output
    monkeypatch.setenv("RAG_INDEX_DIR", missing)  # and over the environment
    result = run("list", "--index", str(seed_folder))
    assert result.exit_code == 0 and "40 papers" in result.output
    result = run("--index", str(seed_folder), "list", "--index", missing)
    assert result.exit_code == 1 and "No index at" in result.output and "none" in result.output


def test_chroma_url_after_the_command_name(tmp_path: Path) -> None:
    result = run("list", "--chroma-url", "ftp://nowhere", "--index", str(tmp_path))
    assert result.exit_code == 1
    assert "'ftp://nowhere' is not of the form http://host:port" in result.output


def test_verbose_after_the_command_name_keeps_the_traceback(tmp_path: Path) -> None:
    quiet = run("list", "--index", str(tmp_path / "none"))
    assert quiet.exit_code == 1 and quiet.exception is not None
    assert isinstance(quiet.exception, SystemExit)  # the one-line message, no traceback
    loud = run("list", "--index", str(tmp_path / "none"), "-v")
    assert type(loud.exception).__name__ == "IndexNotFoundError"


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0 and result.output.strip() == f"rag {version('rag')}"


def _complete(tmp_path: Path, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", "from rag.cli import main; main()"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        timeout=60,
    )
    return done.stdout


def test_shell_completion_through_click(tmp_path: Path) -> None:
    script = _complete(tmp_path, _RAG_COMPLETE="bash_source")
    assert "_rag_completion" in script and "complete -o nosort -F _rag_completion rag" in script
    commands = _complete(
        tmp_path, _RAG_COMPLETE="bash_complete", COMP_WORDS="rag se", COMP_CWORD="1"
    )
    assert commands.split() == ["plain,search", "plain,serve"]
    options = _complete(
        tmp_path, _RAG_COMPLETE="bash_complete", COMP_WORDS="rag ingest --ind", COMP_CWORD="2"
    )
    assert options.split() == ["plain,--index"]


def test_citation_keys_complete_from_the_index(tmp_path: Path, seed_folder: Path) -> None:
    for words in (f"rag --index {seed_folder} show ju_", f"rag similar --index {seed_folder} ju_"):
        at = words.split().index("ju_")
        offered = _complete(
            tmp_path, _RAG_COMPLETE="bash_complete", COMP_WORDS=words, COMP_CWORD=str(at)
        )
        assert offered.split() == ["plain,ju_icgnn"], words
    nothing = _complete(
        tmp_path,
        _RAG_COMPLETE="bash_complete",
        COMP_WORDS=f"rag --index {tmp_path / 'none'} show ju_",
        COMP_CWORD="4",
    )
    assert nothing.strip() == ""  # no index: nothing offered, no traceback
