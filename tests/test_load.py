"""Load: 20 users chatting with the real app at once, 20 searches at once in one process.

Behaviour only (every request completes with the answer a lone user gets); how long they take
is measured in bench/, not asserted here.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest

from rag import api
from rag.index.paper_index import Index
from rag.index.retrieve import Filters
from rag.ingest.pipeline import ingest
from rag.records import Hit
from rag.settings import Settings
from tests.answer.test_seed_questions import QUESTIONS
from tests.fake_embedding import FakeEmbedding
from tests.ui_server import SEEDS, Served, serve_seeds

USERS = 20
# Generous: 20 extractive answers in one line take seconds, but the machine may be shared.
WAIT_S = 300.0

T = TypeVar("T")


@dataclass(frozen=True)
class Chat:
    """One user's question, their sidebar choices, and the paper the answer must cite first."""

    question: str
    cites: str
    retriever: str = "hybrid"
    area: str = "All"


# Questions the fake embedding answers (it matches shared word stems, not paraphrases).
CHATS = [
    Chat("Which papers deal with noisy labels on graphs?", "ju_icgnn"),
    Chat("graph out-of-distribution detection of anomaly graphs", "wang_clinic"),
    Chat("single domain generalization in time series classification", "pei_cure"),
    Chat("automated proving of polynomial inequalities", "zuo_nspi"),
    Chat("SVD-based compression of large language models", "abbasi_zssvd"),
    Chat("bias mitigation for overparameterized machine learning models", "mai"),
    Chat("constrained clustering with pairwise constraints", "wang_basil"),
    Chat("federated unlearning of client deletion requests", "xiao_idft"),
    Chat("training data reconstruction from KKT conditions", "shen"),
    Chat("Direct Preference Optimization alternative to RLHF", "zhang_cpo"),
    Chat("Which papers deal with noisy labels on graphs?", "ju_icgnn", "dense"),
    Chat("graph out-of-distribution detection of anomaly graphs", "wang_clinic", "bm25"),
    Chat("single domain generalization in time series classification", "pei_cure", "dense"),
    Chat("automated proving of polynomial inequalities", "zuo_nspi", "bm25"),
    Chat("calcium imaging neural recording multi-animal modeling", "xu_calm"),
    Chat(
        "graph out-of-distribution detection of anomaly graphs",
        "wang_clinic",
        area="Deep Learning · Graph Neural Networks",
    ),
    Chat("constrained clustering with pairwise constraints", "wang_basil", "bm25"),
    Chat("federated unlearning of client deletion requests", "xiao_idft", "dense"),
    Chat("training data reconstruction from KKT conditions", "shen", "bm25"),
    Chat("Direct Preference Optimization alternative to RLHF", "zhang_cpo", "dense"),
]


def all_at_once(jobs: list[Callable[[], T]], ready: Callable[[], Any] | None = None) -> list[T]:
    """Run every job in its own thread, released together; return their results in order.

    `ready`, when given, runs in each thread before the common start (e.g. to connect).

    Raises:
        AssertionError: a job failed (its exception is chained) or had not ended in WAIT_S.
    """
    start = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)
    errors: list[BaseException | None] = [None] * len(jobs)

    def run(i: int) -> None:
        try:
            if ready is not None:
                ready()
            start.wait(timeout=WAIT_S)
            results[i] = jobs[i]()
        except BaseException as exc:
            errors[i] = exc
            start.abort()  # release the others instead of leaving them at the barrier

    # Daemon threads: a request that never ends fails the test instead of hanging pytest.
    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(jobs))]
    for t in threads:
        t.start()
    deadline = time.monotonic() + WAIT_S
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()))
    stuck = [i for i, t in enumerate(threads) if t.is_alive()]
    assert not stuck, f"requests {stuck} had not ended after {WAIT_S:.0f} s"
    for i, exc in enumerate(errors):
        if exc is not None and not isinstance(exc, threading.BrokenBarrierError):
            raise AssertionError(f"request {i} failed: {exc!r}") from exc
    return results


# -- 20 users chatting with the served app


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve_seeds(tmp_path_factory.mktemp("load-ui")) as running:
        yield running


def first_source(cards: str) -> str:
    card = re.search(r'<article class="source-card" id="t0-source-1">.*?</article>', cards, re.S)
    assert card, cards
    return card.group(0)


def test_twenty_concurrent_chats_all_get_the_answer_a_lone_user_gets(served: Served) -> None:
    from gradio_client import Client

    assert len(CHATS) == USERS
    clients: dict[int, Client] = {}

    def connect() -> None:
        clients[threading.get_ident()] = Client(served.url, verbose=False)

    def asker(chat: Chat) -> Callable[[], Any]:
        def ask() -> Any:
            client = clients[threading.get_ident()]
            try:
                return client.predict(
                    chat.question, retriever=chat.retriever, area=chat.area, api_name="/ask"
                )
            finally:
                client.close()  # here, not after: each close waits up to 1 s for its heartbeat

        return ask

    together = all_at_once([asker(chat) for chat in CHATS], ready=connect)

    client = Client(served.url, verbose=False)
    try:
        alone = [
            client.predict(c.question, retriever=c.retriever, area=c.area, api_name="/ask")
            for c in CHATS
        ]
    finally:
        client.close()

    for chat, (history, cards), lone in zip(CHATS, together, alone, strict=True):
        assert [m["role"] for m in history] == ["user", "assistant"], chat
        answer = str(history[-1]["content"])
        assert 'href="#t0-source-1">[1]</a>' in answer, (chat, answer)
        assert chat.cites in first_source(cards), chat
        # Served alongside 19 others, the answer is the one this user would get alone.
        assert (history, cards) == tuple(lone), chat


# -- 20 searches at once in one process


@dataclass(frozen=True)
class Search:
    query: str
    retriever: str
    filters: Filters | None = None
    k: int = 5


# The ten questions as users ask them (hybrid, no filter), then other retrievers and filters.
SEARCHES = [Search(chat.question, "hybrid") for chat in CHATS[:10]] + [
    Search(CHATS[0].question, "dense"),
    Search(CHATS[1].question, "bm25"),
    Search(CHATS[2].question, "dense", Filters(area="Deep Learning")),
    Search(CHATS[3].question, "bm25", Filters(area="Large Language Models")),
    Search(CHATS[5].question, "dense", Filters(area="Social Aspects")),
    Search(CHATS[6].question, "hybrid", Filters(author="Luwei")),
    Search("graph neural networks", "bm25", Filters(area="Graph Neural Networks")),
    Search("graph neural networks", "hybrid", Filters(area="graph neural networks"), k=10),
    Search("large language models reasoning", "hybrid", Filters(author="Li"), k=10),
    Search("large language models reasoning", "dense", k=10),
]


@pytest.fixture(scope="module")
def seed_index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    folder = tmp_path_factory.mktemp("load-index")
    index = Index(Settings(index_dir=folder, backend="extractive"), FakeEmbedding(), create=True)
    ingest([SEEDS], index)
    return index


def run_searches(index: Index, searches: list[Search]) -> tuple[list[list[Hit]], list[list[Hit]]]:
    """Return the hits of `searches` run one after another, then all at once from a cold start."""

    def searcher(s: Search) -> Callable[[], list[Hit]]:
        return lambda: api.search(
            s.query, index=index, k=s.k, retriever=s.retriever, filters=s.filters
        )

    alone = [searcher(s)() for s in searches]
    # Forget the catalog and the BM25 index: the 20 threads race to load both again.
    index.refresh()
    together = all_at_once([searcher(s) for s in searches])
    return alone, together


def test_twenty_concurrent_searches_equal_the_same_searches_one_by_one(
    seed_index: Index,
) -> None:
    assert len(SEARCHES) == USERS
    assert {s.retriever for s in SEARCHES} == {"hybrid", "dense", "bm25"}

    for _ in range(3):  # a few rounds: more chances for the threads to interleave
        alone, together = run_searches(seed_index, SEARCHES)
        assert together == alone
    assert all(alone), [s for s, hits in zip(SEARCHES, alone, strict=True) if not hits]
    for chat, hits in zip(CHATS[:10], alone, strict=False):
        assert hits[0].paper.citation_key == chat.cites, chat


def torch_threads_of_a_new_thread() -> int:
    """Return how many threads torch gives a thread started now (it inherits the setting)."""
    import torch

    found: list[int] = []
    thread = threading.Thread(target=lambda: found.append(torch.get_num_threads()))
    thread.start()
    thread.join()
    return found[0]


@pytest.mark.slow
def test_twenty_concurrent_searches_with_the_real_model_equal_one_by_one(
    real_seed_index: Index,
) -> None:
    # The real embedder switches torch to one thread per query and back, inside its lock.
    searches = [
        Search(question, retriever)
        for question, _ in QUESTIONS
        for retriever in ("hybrid", "dense", "bm25")
    ][:USERS]

    threads = torch_threads_of_a_new_thread()

    for _ in range(3):  # a few rounds: more chances for the threads to interleave
        alone, together = run_searches(real_seed_index, searches)
        assert together == alone
    # An ingest started afterwards (an upload runs in a new worker thread) still gets every
    # core: without the lock, two queries restore each other's 1 and it stays at 1.
    assert torch_threads_of_a_new_thread() == threads
    for (question, author), hits in zip(QUESTIONS, alone[::3], strict=False):
        assert hits[0].paper.authors[0] == author, question
