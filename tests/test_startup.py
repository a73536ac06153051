"""Start-up: help, error paths, a re-ingest that embeds nothing, and every query command never
load torch (queries are embedded by ONNX Runtime) nor Chroma's Python client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rag.index.onnx_cache import default_onnx_dir
from rag.index.onnx_export import exported_folder, is_exported
from rag.index.paper_index import Index
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from tests.conftest import ROOT, SEEDS
from tests.fake_embedding import FakeEmbedding

# Runs CLI commands in one fresh interpreter and reports their exit codes, their output and
# which heavy modules got imported on the way.
CHILD = """
import json, sys
sys.path.insert(0, {root!r})
from click.testing import CliRunner
from rag.cli import cli
results = []
for args in {commands!r}:
    result = CliRunner().invoke(cli, args)
    results.append([result.exit_code, result.output])
heavy = sorted(m for m in ("torch", "sentence_transformers", "transformers") if m in sys.modules)
print(json.dumps({{"results": results, "heavy": heavy, "chromadb": "chromadb" in sys.modules}}))
"""


def run_cli(tmp_path: Path, *commands: list[str], env: dict[str, str] | None = None) -> dict:  # type: ignore[type-arg]
    script = CHILD.format(root=str(ROOT), commands=[list(c) for c in commands])
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


class MiniLMShaped(FakeEmbedding):
    """A fake with the bundled model's name and size, so the CLI accepts its index."""

    name = "all-MiniLM-L6-v2"
    dim = 384


def test_help_and_error_paths_import_no_model(tmp_path: Path) -> None:
    missing = str(tmp_path / "none")
    out = run_cli(
        tmp_path,
        ["--help"],
        ["--index", missing, "search", "graphs"],
        ["--index", missing, "list"],
        ["--index", missing, "ingest", str(tmp_path / "no-such-file.jsonl")],
    )
    (help_code, help_text), search, listing, ingest_missing = out["results"]
    assert help_code == 0 and "ingest" in help_text
    assert search[0] == 1 and "No index at" in search[1]
    assert listing[0] == 1 and "No index at" in listing[1]
    # nothing read: an error, not "partial" (stop 60)
    assert ingest_missing[0] == 1 and "no-such-file.jsonl: no such file" in ingest_missing[1]
    assert out["heavy"] == []
    assert not (tmp_path / "none").exists()  # reading nothing creates no index


def test_an_index_that_is_a_file_is_named_as_one(tmp_path: Path) -> None:
    # A new user (stop 67): "--index plan.md" was told "No index at plan.md: run `rag ingest
    # seeds/` first", and ingesting into it would not have helped.
    notes = tmp_path / "plan.md"
    notes.write_text("my notes\n", encoding="utf-8")
    out = run_cli(
        tmp_path,
        ["--index", str(notes), "search", "graphs"],
        ["--index", str(notes), "ingest", str(ROOT / "seeds")],
    )
    for code, text in out["results"]:
        assert code == 1 and f"{notes} is a file, not an index folder" in text, text
    assert notes.read_text(encoding="utf-8") == "my notes\n"  # nothing written over it


def test_reingest_of_unchanged_files_loads_no_model(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    index = Index(Settings(index_dir=folder), MiniLMShaped(), create=True)
    first = ingest([SEEDS], index)
    assert first.added == 40

    out = run_cli(tmp_path, ["--index", str(folder), "ingest", str(SEEDS)])
    code, text = out["results"][0]
    assert code == 0 and "0 added" in text and "40 unchanged" in text
    assert out["heavy"] == []


def _model_folder(
    tmp_path: Path, pooling: dict, extra_modules: tuple[str, ...] = (), **top: object
) -> str:  # type: ignore[type-arg]
    folder = tmp_path / "model"
    (folder / "1_Pooling").mkdir(parents=True)
    kinds = ["Transformer", "Pooling", *extra_modules]
    modules = [
        {
            "idx": i,
            "path": "1_Pooling" if k == "Pooling" else "",
            "type": f"sentence_transformers.models.{k}",
        }
        for i, k in enumerate(kinds)
    ]
    (folder / "modules.json").write_text(json.dumps(modules))
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    (folder / "config_sentence_transformers.json").write_text(json.dumps(top))
    return str(folder)


MEAN = {
    "word_embedding_dimension": 384,
    "pooling_mode_mean_tokens": True,
    "pooling_mode_cls_token": False,
}


def test_the_vector_size_is_read_from_config_only_when_it_is_certain(tmp_path: Path) -> None:
    from rag.index.model_files import BUNDLED_MODEL, model_dimension

    assert model_dimension(BUNDLED_MODEL) == 384
    assert model_dimension(_model_folder(tmp_path / "a", MEAN, ("Normalize",))) == 384
    two_modes = {**MEAN, "pooling_mode_max_tokens": True}  # concatenated: 768
    assert model_dimension(_model_folder(tmp_path / "b", two_modes)) is None
    assert model_dimension(_model_folder(tmp_path / "c", MEAN, ("Dense",))) is None
    assert model_dimension(_model_folder(tmp_path / "d", MEAN, truncate_dim=128)) is None
    # sentence-transformers 6 writes the pooling config another way
    st6 = {"embedding_dimension": 384, "pooling_mode": "mean", "include_prompt": True}
    assert model_dimension(_model_folder(tmp_path / "e", st6)) == 384
    st6_two = {**st6, "pooling_mode": ["mean", "max"]}
    assert model_dimension(_model_folder(tmp_path / "f", st6_two)) is None


QUESTION = "Which papers deal with noisy labels on graphs?"


@pytest.mark.slow
def test_query_commands_import_no_torch(real_seed_index: Index, tmp_path: Path) -> None:
    folder = str(real_seed_index.dir)
    onnx_dir = str(real_seed_index.settings.onnx_dir or default_onnx_dir())
    unreachable = "http://127.0.0.1:9/v1"  # the openai backend fails: the answer falls back
    draft = tmp_path / "draft.txt"
    draft.write_text("Mislabeled nodes can be found from how their influence spreads on a graph.")
    out = run_cli(
        tmp_path,
        ["--index", folder, "search", "label noise in graph neural networks", "-k", "3"],
        ["--index", folder, "search", "label noise", "--retriever", "dense", "--json"],
        ["--index", folder, "ask", "--backend", "extractive", QUESTION],
        ["--index", folder, "ask", "--backend", "openai", QUESTION],
        ["--index", folder, "cite", "Label noise on graphs can be detected from the structure."],
        ["--index", folder, "cite", "--draft", str(draft)],
        ["--index", folder, "similar", "ju_icgnn", "-k", "2"],
        ["--index", folder, "show", "ju_icgnn"],
        ["--index", folder, "list"],
        env={"RAG_ONNX_DIR": onnx_dir, "RAG_OPENAI_BASE_URL": unreachable},
    )
    results = out["results"]
    assert all(code == 0 for code, _ in results), results
    search, dense, extractive, openai, cite, cited_draft, similar, show, listing = results
    assert search[1].startswith(" 1. Ju et al. — ICGNN  [ju_icgnn]")
    assert json.loads(dense[1])[0]["citation_key"] == "ju_icgnn"
    assert "[1]" in extractive[1] and "ju_icgnn" in extractive[1]
    assert "ju_icgnn" in openai[1]  # the extractive fallback, cited
    assert "[ju_icgnn]" in cite[1] and "\\cite{ju_icgnn}" in cited_draft[1]
    assert "Papers like" in similar[1] and "@misc{ju_icgnn," in show[1]
    assert "40 papers" in listing[1]
    assert out["heavy"] == []
    assert out["chromadb"] is False  # read through Chroma's engine (rag.index.chroma_reader)


@pytest.mark.slow
def test_a_query_without_an_export_makes_it_once_and_says_so(
    real_seed_index: Index, tmp_path: Path
) -> None:
    onnx_dir = tmp_path / "onnx"  # empty: as on a machine where nothing was exported yet
    args = ["--index", str(real_seed_index.dir), "search", "label noise on graphs", "-k", "1"]
    first = run_cli(tmp_path, args, env={"RAG_ONNX_DIR": str(onnx_dir)})
    code, text = first["results"][0]
    assert code == 0 and "[ju_icgnn]" in text
    assert "making the ONNX query encoder" in text  # said on stderr, once
    assert first["heavy"]  # torch was needed for that one export
    assert is_exported(exported_folder("all-MiniLM-L6-v2", onnx_dir))

    again = run_cli(tmp_path, args, env={"RAG_ONNX_DIR": str(onnx_dir)})
    code, text = again["results"][0]
    assert code == 0 and "[ju_icgnn]" in text and "making" not in text
    assert again["heavy"] == []


UI_CHILD = """
import json, sys
sys.path.insert(0, {root!r})
from rag.ui import app as ui
from rag import api
from rag.answer.rendering import Answer
from rag.settings import Settings
settings = Settings(index_dir={index!r}, backend="extractive")
app = ui.build_app(settings)
api.open_index(settings).embedder.embed(["warm-up"])  # what `rag serve` does before launching
final = [e for e in api.ask_stream({question!r}, settings=settings) if isinstance(e, Answer)][-1]
heavy = sorted(m for m in ("torch", "sentence_transformers", "transformers") if m in sys.modules)
print(json.dumps({{"keys": [c.hit.paper.citation_key for c in final.citations], "heavy": heavy}}))
"""


@pytest.mark.slow
def test_the_chat_server_answers_without_torch(real_seed_index: Index, tmp_path: Path) -> None:
    script = UI_CHILD.format(root=str(ROOT), index=str(real_seed_index.dir), question=QUESTION)
    onnx_dir = str(real_seed_index.settings.onnx_dir or default_onnx_dir())
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
        env={**os.environ, "RAG_ONNX_DIR": onnx_dir, "GRADIO_ANALYTICS_ENABLED": "False"},
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert "ju_icgnn" in out["keys"]
    assert out["heavy"] == []
