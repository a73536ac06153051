"""Stock llama-index components over our retriever and query engine, offline, no OpenAI."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from llama_index.core import Settings as LlamaSettings
from llama_index.core.chat_engine import CondensePlusContextChatEngine, ContextChatEngine
from llama_index.core.query_engine import RetrieverQueryEngine

import rag
from rag.cli import cli
from rag.index.paper_index import Index
from rag.index.retrieve import Filters
from rag.ingest.pipeline import ingest
from rag.llamaindex import BackendLLM, PaperQueryEngine, PaperRetriever
from rag.records import Paper
from rag.settings import Settings
from tests.fakes import FakeLLM

QUESTION = "Which papers deal with noisy labels on graphs?"
ICGNN_SENTENCE = (
    "ICGNN harnesses the structure information of the graph to effectively alleviate the "
    "challenges posed by noisy labels"
)


@pytest.fixture(autouse=True)
def _no_openai() -> None:
    # conftest clears OPENAI_*; llama-index's global LLM must stay unset (its default is OpenAI)
    assert "OPENAI_API_KEY" not in os.environ
    LlamaSettings._llm = None
    yield
    assert LlamaSettings._llm is None, "something resolved llama-index's default (OpenAI) LLM"


@pytest.fixture
def seeded(tmp_path: Path, seeds_copy: Path) -> Index:
    from tests.fake_embedding import FakeEmbedding

    # The hashed fake embedding gives lower cosines than MiniLM: thresholds scaled to it.
    settings = Settings(
        index_dir=tmp_path / "idx", backend="extractive", min_relevance=0.1, support_threshold=0.4
    )
    index = Index(settings, FakeEmbedding(), create=True)
    ingest([seeds_copy], index)
    return index


def _ranked(nodes: list) -> list[tuple[str, float]]:  # type: ignore[type-arg]
    return [(n.node.node_id, n.score) for n in nodes]


@pytest.mark.parametrize("retriever", ["hybrid", "dense", "bm25"])
def test_paper_retriever_ranks_as_rag_search(seeded: Index, retriever: str) -> None:
    for query, filters in [
        ("noisy labels on graphs", None),
        ("large language model compression", Filters(area="Large Language Models")),
    ]:
        nodes = PaperRetriever(seeded, k=5, retriever=retriever, filters=filters).retrieve(query)
        hits = rag.search(query, index=seeded, k=5, retriever=retriever, filters=filters)
        assert _ranked(nodes) == [(h.paper.id, h.score) for h in hits]
        for node, hit in zip(nodes, hits, strict=True):
            meta = node.node.metadata
            assert meta["citation_key"] == hit.paper.citation_key
            assert Paper.from_dict(meta["paper"]) == hit.paper
            assert node.node.get_content() == hit.paper.abstract


def test_retriever_query_engine_runs_over_it_offline(seeded: Index) -> None:
    llm = FakeLLM()
    llm.enqueue("Ju et al. correct noisy labels with the graph structure.")
    engine = RetrieverQueryEngine.from_args(PaperRetriever(seeded, k=3), llm=BackendLLM(llm))
    response = engine.query("noisy labels on graphs")
    hits = rag.search("noisy labels on graphs", index=seeded, k=3)
    assert _ranked(response.source_nodes) == [(h.paper.id, h.score) for h in hits]
    assert str(response) == "Ju et al. correct noisy labels with the graph structure."
    prompt = llm.history[0].user
    assert "citation_key: ju_icgnn" in prompt and hits[0].paper.abstract[:80] in prompt
    assert '"record"' not in prompt and "paper_id" not in prompt  # records stay out of prompts


def test_chat_engines_run_over_it(seeded: Index) -> None:
    llm = FakeLLM()
    llm.enqueue("ICGNN corrects them [1].")  # first turn: no history, nothing to condense
    llm.enqueue("How does ICGNN correct noisy labels on graphs?")  # the condensed follow-up
    llm.enqueue("With its neighbours' predictions.")
    chat = CondensePlusContextChatEngine.from_defaults(
        PaperRetriever(seeded, k=3), llm=BackendLLM(llm)
    )
    first = chat.chat(QUESTION)
    assert first.response == "ICGNN corrects them [1]."
    assert first.source_nodes[0].node.metadata["citation_key"] == "ju_icgnn"
    second = chat.chat("And how do they correct them?")
    assert second.response == "With its neighbours' predictions."
    assert QUESTION in llm.history[1].user  # the condense step saw the conversation
    condensed = "How does ICGNN correct noisy labels on graphs?"
    hits = rag.search(condensed, index=seeded, k=3)
    assert _ranked(second.source_nodes) == [(h.paper.id, h.score) for h in hits]
    assert llm.history[2].examples == ((QUESTION, "ICGNN corrects them [1]."),)

    llm.enqueue("Graph label noise.")
    context = ContextChatEngine.from_defaults(PaperRetriever(seeded, k=2), llm=BackendLLM(llm))
    reply = context.chat(QUESTION)
    assert reply.response == "Graph label noise." and len(reply.source_nodes) == 2
    assert "citation_key: ju_icgnn" in llm.history[-1].system


def test_paper_query_engine_response_is_our_checked_answer(seeded: Index) -> None:
    response = PaperQueryEngine(seeded, backend=None).query(QUESTION)
    expected = rag.ask(QUESTION, index=seeded, backend="extractive")
    assert response.response == expected.answer and "[1]" in response.response
    answer = response.metadata["answer"]
    assert isinstance(answer, rag.Answer) and response.metadata["abstained"] is False
    assert replace(answer, timings={}) == replace(expected, timings={})
    keys = [n.node.metadata["citation_key"] for n in response.source_nodes]
    assert keys == [c.hit.paper.citation_key for c in expected.citations] and keys[0] == "ju_icgnn"
    assert response.source_nodes[0].node.metadata["evidence"] == expected.citations[0].evidence

    # An LLM's unsupported sentence never reaches the Response: the citation check ran.
    llm = FakeLLM()
    llm.enqueue(f"{ICGNN_SENTENCE} [1]. Bananas are yellow [1].")
    checked = PaperQueryEngine(seeded, backend=llm).query(QUESTION)
    assert ICGNN_SENTENCE in checked.response and "Bananas" not in checked.response
    assert checked.source_nodes[0].node.metadata["citation_key"] == "ju_icgnn"

    off_topic = PaperQueryEngine(seeded, backend=None).query("sourdough bread recipe")
    assert off_topic.metadata["abstained"] is True and off_topic.source_nodes == []


@pytest.mark.slow
def test_real_index_ranks_as_rag_search_and_chats_with_the_local_model(
    real_seed_index: Index,
) -> None:
    query = "label noise in graph neural networks"
    printed = CliRunner().invoke(
        cli, ["--index", str(real_seed_index.dir), "search", query, "--json", "-k", "5"]
    )
    assert printed.exit_code == 0, printed.output
    nodes = PaperRetriever(real_seed_index, k=5).retrieve(query)
    searched = json.loads(printed.output)
    assert [n.node.metadata["citation_key"] for n in nodes] == [h["citation_key"] for h in searched]
    assert [round(n.score, 6) for n in nodes] == [h["score"] for h in searched]

    llm = BackendLLM("local", real_seed_index.settings)  # the bundled SmolLM2, in-process
    chat = CondensePlusContextChatEngine.from_defaults(
        PaperRetriever(real_seed_index, k=3), llm=llm
    )
    reply = chat.chat(QUESTION)
    assert reply.response.strip()
    assert reply.source_nodes[0].node.metadata["citation_key"] == "ju_icgnn"
