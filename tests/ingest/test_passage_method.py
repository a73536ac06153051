"""How passage vectors are made is recorded in the index, and two methods never mix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.errors import ConfigError, IndexMismatchError
from rag.index.late_chunking import METHOD
from rag.index.paper_index import Index
from rag.index.retrieve import search
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from tests.fake_embedding import FakeEmbedding


def _late(settings: Settings) -> Settings:
    return settings.model_copy(update={"passage_vectors": "late"})


def _windows(settings: Settings) -> Settings:
    return settings.model_copy(update={"passage_vectors": "windows"})


def test_late_ingest_pools_every_window_from_one_pass_and_records_it(
    settings: Settings, seeds_copy: Path
) -> None:
    fake = FakeEmbedding()
    index = Index(_late(settings), fake, create=True)
    assert ingest([seeds_copy], index).added == 40
    assert (fake.late_documents, fake.texts_embedded) == (40, 0)  # one document per paper
    assert index.store.chunks.metadata["passage_method"] == METHOD
    assert Index(settings, FakeEmbedding()).store.passage_method == METHOD  # as reopened

    windows = Index(
        _windows(settings).model_copy(update={"index_dir": settings.index_dir.with_name("w")}),
        FakeEmbedding(),
        create=True,
    )
    ingest([seeds_copy], windows)
    assert windows.store.chunks.metadata["passage_method"] == "windows"
    assert index.store.chunk_count() == windows.store.chunk_count()  # the same passages
    top = search(index, "noisy labels on graph neural networks", k=1)[0]
    assert top.paper.citation_key == "ju_icgnn"


def test_adding_papers_made_the_other_way_is_refused_before_any_write(
    settings: Settings, seeds_copy: Path, tmp_path: Path
) -> None:
    first = sorted(seeds_copy.iterdir())[0]
    ingest([first], Index(_windows(settings), FakeEmbedding(), create=True))
    count = Index(settings, FakeEmbedding()).store.count()
    fake = FakeEmbedding()
    late = Index(_late(settings), fake, create=True)  # an existing index keeps its record
    with pytest.raises(IndexMismatchError) as caught:
        ingest([seeds_copy], late)
    message = str(caught.value)
    assert "'windows'" in message and "'late'" in message
    assert "RAG_PASSAGE_VECTORS=windows" in message and "new --index" in message
    assert (fake.calls, Index(settings, FakeEmbedding()).store.count()) == (0, count)
    # Reading never minds: queries are embedded the same way for either method.
    assert search(late, "graph neural networks", k=1)


def test_a_new_index_is_late_and_an_unset_method_follows_the_index(
    settings: Settings, seeds_copy: Path
) -> None:
    first, second = sorted(seeds_copy.iterdir())
    assert settings.passage_vectors is None
    fake = FakeEmbedding()
    ingest([first], Index(settings, fake, create=True))
    assert Index(settings, FakeEmbedding()).store.passage_method == METHOD
    assert fake.late_documents > 0 and fake.texts_embedded == 0  # one pass per paper
    windows = settings.model_copy(update={"index_dir": settings.index_dir.with_name("w")})
    ingest([first], Index(_windows(windows), FakeEmbedding(), create=True))
    fake = FakeEmbedding()
    report = ingest([second], Index(windows, fake))  # unset: adds windows, as it holds
    assert report.added > 0 and fake.late_documents == 0 and fake.texts_embedded > 0


def test_an_index_of_the_earlier_late_plan_is_refused_with_a_rebuild_message(
    settings: Settings, seeds_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = sorted(seeds_copy.iterdir())
    with monkeypatch.context() as earlier:  # the first late plan recorded the setting's name
        earlier.setattr("rag.index.paper_index.recorded_method", lambda setting: setting)
        index = Index(_late(settings), FakeEmbedding(), create=True)
        ingest([first], index)
    assert index.store.chunks.metadata["passage_method"] == "late"
    count = index.store.count()
    for wanted in (settings, _late(settings)):
        fake = FakeEmbedding()
        reopened = Index(wanted, fake)
        with pytest.raises(IndexMismatchError) as caught:
            ingest([second], reopened)
        assert "'late'" in str(caught.value) and "no longer makes" in str(caught.value)
        assert "new --index" in str(caught.value)
        assert (fake.calls, Index(settings, FakeEmbedding()).store.count()) == (0, count)
        assert search(reopened, "graph neural networks", k=1)  # reading still works


def test_reingest_of_an_unchanged_late_corpus_loads_no_model(
    settings: Settings, seeds_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    late = _late(settings)
    ingest([seeds_copy], Index(late, FakeEmbedding(), create=True))

    def broken(*_: object, **__: object) -> None:
        raise ConfigError("the model was loaded")

    monkeypatch.setattr("rag.index.paper_index.model_name", lambda _: FakeEmbedding.name)
    monkeypatch.setattr("rag.index.paper_index.model_dimension", lambda _: FakeEmbedding.dim)
    monkeypatch.setattr("rag.index.paper_index.load_embedder", broken)
    report = ingest([seeds_copy], Index(late))
    assert (report.added, report.unchanged) == (0, 40)


def test_an_embedder_that_cannot_pool_is_a_clear_error(
    settings: Settings, seeds_copy: Path
) -> None:
    class WindowsOnly:
        name, dim = FakeEmbedding.name, FakeEmbedding.dim
        embed = FakeEmbedding().embed

    with pytest.raises(ConfigError, match="passage_vectors = 'windows'"):
        ingest([seeds_copy], Index(_late(settings), WindowsOnly(), create=True))
    # Unset, a new index is windows when its embedder cannot pool.
    elsewhere = settings.model_copy(update={"index_dir": settings.index_dir.with_name("w")})
    index = Index(elsewhere, WindowsOnly(), create=True)
    assert ingest([seeds_copy], index).added == 40
    assert index.store.passage_method == "windows"


@pytest.mark.slow
def test_cli_late_ingest_with_the_real_model_then_a_mixed_ingest_is_one_line_error(
    seeds_copy: Path, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from rag.cli import cli

    runner = CliRunner()
    folder = str(tmp_path / "idx")
    first, second = sorted(seeds_copy.iterdir())
    built = runner.invoke(
        cli, ["--index", folder, "ingest", "--passage-vectors", "late", str(first)]
    )
    assert built.exit_code == 0, built.output
    found = runner.invoke(
        cli, ["--index", folder, "search", "--json", "label noise in graph neural networks"]
    )
    assert json.loads(found.output)[0]["citation_key"] == "ju_icgnn"

    mixed = runner.invoke(
        cli, ["--index", folder, "ingest", "--passage-vectors", "windows", str(second)]
    )
    assert mixed.exit_code == 1
    assert "'late'" in mixed.output and "RAG_PASSAGE_VECTORS=late" in mixed.output
    assert "Traceback" not in mixed.output
    added = runner.invoke(cli, ["--index", folder, "ingest", str(second)])  # as it was built
    assert added.exit_code == 0, added.output
