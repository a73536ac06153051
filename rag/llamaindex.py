"""Our index as llama-index components: a retriever, a checked query engine, our backends as LLM.

    from llama_index.core.chat_engine import CondensePlusContextChatEngine
    from rag.llamaindex import BackendLLM, PaperQueryEngine, PaperRetriever

    retriever = PaperRetriever(k=5)                     # hybrid search + filters, one node a paper
    engine = PaperQueryEngine()                         # Response = our checked, cited answer
    chat = CondensePlusContextChatEngine.from_defaults(retriever, llm=BackendLLM("local"))

Nothing here calls OpenAI or reads llama-index's global `Settings.llm`: the LLM is one of our
backends (the bundled SmolLM2 by default), passed explicitly. Importing this module imports
llama-index (about 1.4 s), so `rag` itself never imports it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseGen,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.base.response.schema import Response
from llama_index.core.callbacks import CallbackManager
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.prompts.mixin import PromptMixinType
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from pydantic import PrivateAttr

from rag import api
from rag.answer.rendering import Answer
from rag.backends.base import Backend, Prompt
from rag.index.paper_index import Index
from rag.index.retrieve import Filters
from rag.records import Hit
from rag.settings import Settings

# Kept out of the text an LLM sees (the abstract is the node's text; these are for programs).
_NOT_FOR_LLM = [
    "paper",
    "paper_id",
    "title_derived",
    "rank",
    "relevance",
    "snippet",
    "evidence",
    "n",
]


def hit_node(hit: Hit, **extra: Any) -> NodeWithScore:
    """Return one paper as a llama-index node: the abstract as text, the record as metadata."""
    paper = hit.paper
    metadata = {
        "citation_key": paper.citation_key,
        "title": paper.title or paper.label,
        "title_derived": paper.title is None,
        "authors": ", ".join(paper.authors) + (" et al." if paper.authors_truncated else ""),
        "year": paper.year,
        "area": paper.area,
        "doi": paper.doi,
        "paper_id": paper.id,
        "rank": hit.rank,
        "relevance": hit.relevance,
        "snippet": hit.snippet,
        "paper": paper.to_dict(),
        **extra,
    }
    node = TextNode(
        id_=paper.id,
        text=paper.abstract,
        metadata={k: v for k, v in metadata.items() if v is not None},
        excluded_llm_metadata_keys=_NOT_FOR_LLM,
        excluded_embed_metadata_keys=list(metadata),
    )
    return NodeWithScore(node=node, score=hit.score)


class PaperRetriever(BaseRetriever):
    """A llama-index retriever over our hybrid search: the same papers, order and scores.

    Args:
        index: an open index (default: the one `settings` point at).
        settings: where the index is (default: flags/env/rag.toml as for the CLI).
        k: papers per query.
        retriever: hybrid, dense or bm25 (default: from settings).
        filters: area / author / year filters applied to every query.
    """

    def __init__(
        self,
        index: Index | None = None,
        *,
        settings: Settings | None = None,
        k: int = 5,
        retriever: str | None = None,
        filters: Filters | None = None,
        callback_manager: CallbackManager | None = None,
    ) -> None:
        self._index = index or api.open_index(settings)
        self._k = k
        self._retriever = retriever
        self._filters = filters
        super().__init__(callback_manager=callback_manager)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        hits = api.search(
            query_bundle.query_str,
            index=self._index,
            k=self._k,
            retriever=self._retriever,
            filters=self._filters,
        )
        return [hit_node(h) for h in hits]


class PaperQueryEngine(BaseQueryEngine):
    """A llama-index query engine whose `Response` is our checked, cited answer.

    `response.response` is the answer text with `[n]` markers, `response.source_nodes` the cited
    papers in marker order (metadata `n` and `evidence`; empty when it abstained), and
    `response.metadata["answer"]` the full `rag.Answer`.
    """

    def __init__(
        self,
        index: Index | None = None,
        *,
        settings: Settings | None = None,
        backend: Backend | str | None = "default",
        top_k: int | None = None,
        retriever: str | None = None,
        filters: Filters | None = None,
        callback_manager: CallbackManager | None = None,
    ) -> None:
        self._index = index or api.open_index(settings)
        self._backend = backend
        self._top_k = top_k
        self._retriever = retriever
        self._filters = filters
        super().__init__(callback_manager=callback_manager)

    def _get_prompt_modules(self) -> PromptMixinType:
        return {}

    def _query(self, query_bundle: QueryBundle) -> Response:
        answer = api.ask(
            query_bundle.query_str,
            index=self._index,
            backend=self._backend,
            top_k=self._top_k,
            retriever=self._retriever,
            filters=self._filters,
        )
        return answer_response(answer)

    async def _aquery(self, query_bundle: QueryBundle) -> Response:
        return await asyncio.to_thread(self._query, query_bundle)


def answer_response(answer: Answer) -> Response:
    """Return a checked `Answer` as a llama-index `Response` with its cited papers as sources."""
    sources = [hit_node(c.hit, n=c.n, evidence=c.evidence) for c in answer.citations]
    return Response(
        response=answer.answer,
        source_nodes=sources,
        metadata={"answer": answer, "abstained": answer.abstained, "backend": answer.backend},
    )


class BackendLLM(CustomLLM):
    """One of our answer backends (local SmolLM2, an OpenAI-compatible server) as a llama-index LLM.

    Args:
        backend: a backend name (`local`, `openai`) or a `Backend` object.
        settings: the settings the backend is made from (default: flags/env/rag.toml).
    """

    context_window: int = 2048  # SmolLM2-135M's context
    max_tokens: int = 256
    temperature: float = 0.1
    _backend: Backend = PrivateAttr()

    def __init__(
        self, backend: Backend | str = "local", settings: Settings | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        if isinstance(backend, str):
            from rag.backends.registry import get_backend
            from rag.settings import load_settings

            backend = get_backend(backend, settings or load_settings())
        self._backend = backend

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(
            context_window=self.context_window,
            num_output=self.max_tokens,
            is_chat_model=True,
            model_name=f"rag:{self._backend.name}",
        )

    def _generate(self, prompt: Prompt, stream: bool) -> Any:
        return self._backend.generate(
            prompt, stream=stream, max_tokens=self.max_tokens, temperature=self.temperature
        )

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text="".join(self._generate(Prompt("", prompt), False)))

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        def pieces() -> CompletionResponseGen:
            text = ""
            for piece in self._generate(Prompt("", prompt), True):
                text += piece
                yield CompletionResponse(text=text, delta=piece)

        return pieces()

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        text = "".join(self._generate(chat_prompt(messages), False))
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=text))

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        def pieces() -> ChatResponseGen:
            text = ""
            for piece in self._generate(chat_prompt(messages), True):
                text += piece
                message = ChatMessage(role=MessageRole.ASSISTANT, content=text)
                yield ChatResponse(message=message, delta=piece)

        return pieces()


def chat_prompt(messages: Sequence[ChatMessage]) -> Prompt:
    """Return llama-index chat messages as our `Prompt`: system text, earlier turns, last user."""
    system = "\n\n".join(m.content or "" for m in messages if m.role == MessageRole.SYSTEM)
    turns = [m for m in messages if m.role in (MessageRole.USER, MessageRole.ASSISTANT)]
    user = turns.pop().content or "" if turns and turns[-1].role == MessageRole.USER else ""
    examples, asked = [], None
    for m in turns:
        if m.role == MessageRole.USER:
            asked = m.content or ""
        elif asked is not None:
            examples.append((asked, m.content or ""))
            asked = None
    return Prompt(system=system, user=user, examples=tuple(examples))
