"""The ONNX query encoder: the same vectors as sentence-transformers, found again by content."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from rag.index.embedding import SentenceTransformerEmbedder, _onnx_embedder
from rag.index.model_files import BUNDLED_MODEL, model_layout, model_path
from rag.index.onnx_cache import FOLDERS_FILE, export_dir, model_digest
from rag.index.onnx_embedding import OnnxEmbedder
from rag.index.onnx_export import ensure_exported, is_exported
from rag.ingest.chunking import chunk_paper
from rag.ingest.parsers import parse_path
from rag.text import split_sentences
from tests.conftest import SEEDS


def _tiny_model(folder: Path, **pooling: object) -> Path:
    """A model folder with the files the layout is read from (no weights)."""
    (folder / "1_Pooling").mkdir(parents=True)
    modules = [
        {"idx": 0, "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]
    (folder / "modules.json").write_text(json.dumps(modules))
    config = {"word_embedding_dimension": 8, "pooling_mode_mean_tokens": True, **pooling}
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(config))
    (folder / "sentence_bert_config.json").write_text('{"max_seq_length": 64}')
    (folder / "config.json").write_text('{"max_position_embeddings": 32}')
    (folder / "model.safetensors").write_bytes(b"weights v1")
    return folder


def test_the_bundled_layout_is_one_the_onnx_encoder_reproduces() -> None:
    layout = model_layout(model_path(BUNDLED_MODEL))
    assert layout is not None
    assert (layout.dim, layout.pooling, layout.max_tokens, layout.lower_case) == (
        384,
        "mean",
        256,  # sentence-transformers' max_seq_length, not the tokenizer file's 128
        False,
    )
    assert (layout.transformer / "tokenizer.json").is_file()


def test_a_layout_the_onnx_encoder_cannot_reproduce_is_left_to_torch(tmp_path: Path) -> None:
    plain = model_layout(_tiny_model(tmp_path / "plain"))
    assert plain is not None and plain.max_tokens == 32  # capped at the position table
    maxed = _tiny_model(
        tmp_path / "max", pooling_mode_mean_tokens=False, pooling_mode_max_tokens=True
    )
    assert model_layout(maxed) is None
    prompted = _tiny_model(tmp_path / "prompted")
    (prompted / "config_sentence_transformers.json").write_text(
        '{"default_prompt_name": "query", "prompts": {"query": "query: "}}'
    )
    assert model_layout(prompted) is None
    # so the query path falls back to sentence-transformers instead of exporting it
    assert _onnx_embedder(str(maxed), tmp_path / "cache") is None
    assert not (tmp_path / "cache").exists()


def test_the_export_is_found_by_content_and_a_changed_model_gets_another(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _tiny_model(tmp_path / "venv1" / "model")
    digest = model_digest(first, cache)
    assert model_digest(first, cache) == digest  # remembered: not hashed again
    assert str(first.resolve()) in json.loads((cache / FOLDERS_FILE).read_text())

    # a fresh venv: the same files at another path, with other modification times
    second = tmp_path / "venv2" / "model"
    shutil.copytree(first, second)
    assert export_dir(second, cache) == export_dir(first, cache)

    (second / "model.safetensors").write_bytes(b"weights v2")  # fine-tuned in place
    assert export_dir(second, cache) != export_dir(first, cache)


def test_an_incomplete_export_is_not_used(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(b"half a file")
    assert not is_exported(folder)  # no meta.json: the export died before the end
    with pytest.raises(Exception, match="incomplete"):
        OnnxEmbedder(folder)


def _seed_texts() -> list[str]:
    papers = [p for f in sorted(SEEDS.iterdir()) for p in parse_path(f).papers]
    passages = [c for p in papers for c in chunk_paper(p)]
    sentences = [s for p in papers for s in split_sentences(p.abstract)]
    return passages + sentences + [p.abstract for p in papers]


@pytest.mark.slow
def test_onnx_vectors_equal_sentence_transformers_vectors_on_the_seeds() -> None:
    texts = _seed_texts()
    onnx = OnnxEmbedder(ensure_exported(BUNDLED_MODEL))
    torch_model = SentenceTransformerEmbedder(BUNDLED_MODEL)
    assert (onnx.name, onnx.dim) == (torch_model.name, torch_model.dim)
    # some texts are longer than the tokenizer file's own truncation (128 word pieces)
    assert max(len(onnx._tokenizer.encode(t).ids) for t in texts) == 256
    ours = onnx.embed(texts)
    theirs = torch_model.embed(texts)
    cosines = (ours * theirs).sum(axis=1)
    assert len(texts) > 400
    assert float(cosines.min()) >= 0.99999
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    # one text alone gets the same vector as in a padded batch
    assert float(onnx.embed([texts[0]])[0] @ ours[0]) >= 0.99999
