"""`rag mcp`: the library as Model Context Protocol tools, for AI assistants.

A third face beside the CLI and the UI, on the official `mcp` SDK (`MCPServer`): each tool
parses its arguments, calls `rag.api`, and returns a typed result (`rag.mcp.results`).
Read-only by default; `ingest_files` and `remove_papers` exist only with `allow_write`.
A `RagError` becomes a tool error with its one-line message, so a bad argument never
stops the server. Calls run one at a time (like the UI's queue): the index is not shared
between threads.

Transports: stdio (what desktop assistants launch), or streamable HTTP bound to 127.0.0.1;
another address needs a bearer token, as the UI needs `--auth` off loopback.
"""

from __future__ import annotations

import hmac
import logging
import threading
from collections.abc import Callable, Sequence
from functools import wraps
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field, ValidationError

from rag import api
from rag.errors import ConfigError, RagError
from rag.index.retrieve import Filters
from rag.mcp.results import (
    AskResult,
    ClaimResult,
    DraftResult,
    ExportResult,
    IngestResult,
    PaperHit,
    PaperRecord,
    PaperResult,
    RemoveResult,
    SearchResult,
    StatsResult,
)
from rag.settings import Settings

log = logging.getLogger(__name__)

LOOPBACK = ("127.0.0.1", "localhost", "::1")
READ_TOOLS = (
    "search_papers",
    "ask",
    "cite_claim",
    "cite_draft",
    "get_paper",
    "similar_papers",
    "export_references",
    "library_stats",
)
WRITE_TOOLS = ("ingest_files", "remove_papers")
MAX_K = 50
_INSTRUCTIONS = (
    "An offline library of research-paper abstracts. search_papers finds papers; ask gives a "
    "short answer whose every [n] cites a paper, checked against its abstract, or says the "
    "library has nothing on it (abstained); cite_claim and cite_draft find citations with the "
    "user's own citation keys; get_paper and export_references give BibTeX, RIS or CSL-JSON."
)

K = Annotated[int, Field(ge=1, le=MAX_K, description="How many papers.")]
Key = Annotated[str, Field(min_length=1, description="A citation key or paper id.")]
_T = TypeVar("_T")


def _tool_errors(lock: threading.Lock) -> Callable[[Callable[..., _T]], Callable[..., _T]]:
    """Run a tool under `lock` and turn our errors into tool errors with their message."""

    def decorate(fn: Callable[..., _T]) -> Callable[..., _T]:
        @wraps(fn)
        def run(*args: Any, **kwargs: Any) -> _T:
            with lock:
                try:
                    return fn(*args, **kwargs)
                except RagError as exc:
                    raise ToolError(str(exc)) from None

        return run

    return decorate


class _Server(MCPServer):
    """`MCPServer` whose argument errors are one line naming the argument, like ours."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            problems = "; ".join(
                f"'{'.'.join(str(part) for part in err['loc']) or 'arguments'}': {err['msg']}"
                f" (got {err['input']!r:.80})"
                for err in exc.__cause__.errors()
            )
            raise ToolError(f"Bad argument for {name}: {problems}.") from None


def _text(value: str, name: str) -> str:
    if not value.strip():
        raise ConfigError(f"'{name}' is empty: give some text to search for.")
    return value


def build_server(settings: Settings, *, allow_write: bool = False) -> MCPServer:
    """Return the MCP server over the index `settings` point at.

    Args:
        settings: where the index is, and the answer settings.
        allow_write: also offer `ingest_files` and `remove_papers`.

    Returns:
        The server; run it with `serve_stdio` or `serve_http`.
    """
    server: MCPServer = _Server("rag", instructions=_INSTRUCTIONS, log_level="WARNING")
    guarded = _tool_errors(threading.Lock())
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    def tool(fn: Callable[..., Any], annotations: ToolAnnotations = read_only) -> None:
        server.add_tool(guarded(fn), annotations=annotations)

    def search_papers(
        query: str,
        k: K = 10,
        area: str | None = None,
        author: str | None = None,
        year: int | None = None,
    ) -> SearchResult:
        """Find the papers that best match a query (hybrid dense + BM25), best first.

        area: only papers whose research area contains this; author: only papers with a
        matching author (any case or accent); year: only papers from that year.
        """
        filters = Filters(area=area, author=author, year_min=year, year_max=year)
        hits = api.search(_text(query, "query"), settings=settings, k=k, filters=filters)
        return SearchResult(papers=[PaperHit.of(h) for h in hits])

    def ask(
        question: str,
        k: K | None = None,
        backend: Literal["extractive", "local", "openai"] | None = None,
    ) -> AskResult:
        """Answer a question from the papers; every [n] cites a paper that supports it.

        When the library has no paper on the question, `abstained` is true and `nearest`
        lists the closest papers. backend: extractive (default here: fast, quotes the
        abstracts), local (the bundled small LLM) or openai (a configured endpoint).
        """
        answer = api.ask(
            _text(question, "question"),
            settings=settings,
            top_k=k,
            backend=backend or "extractive",
        )
        return AskResult.of(answer)

    def cite_claim(claim: str, k: K = 5) -> ClaimResult:
        """List the papers that support a claim, each with its best-matching sentence
        (`stance_checked` false: the papers closest to it, not checked to agree)."""
        return ClaimResult.of(api.cite(_text(claim, "claim"), settings=settings, k=k))

    def cite_draft(text: str, style: Literal["latex", "pandoc"] = "latex") -> DraftResult:
        """Insert citations into a paragraph, sentence by sentence, with the library's keys.

        style: latex inserts ~\\cite{key}, pandoc inserts [@key]. A sentence no paper
        supports well enough is left without a citation. Returns the BibTeX of the cited
        papers too.
        """
        cited = api.cite_draft(_text(text, "text"), settings=settings, style=style)
        return DraftResult.of(cited, api.export(cited.papers, "bibtex"))

    def get_paper(key: Key) -> PaperResult:
        """Return one paper's full record and its BibTeX entry, by citation key or id."""
        paper = api.get_paper(key, settings=settings)
        return PaperResult(paper=PaperRecord.of(paper), bibtex=api.export([paper], "bibtex"))

    def similar_papers(key: Key, k: K = 5) -> SearchResult:
        """List the papers most like one paper ("more like this"), by citation key or id."""
        return SearchResult(
            papers=[PaperHit.of(h) for h in api.similar(key, settings=settings, k=k)]
        )

    def export_references(
        keys: Annotated[list[str], Field(min_length=1)],
        format: Literal["bibtex", "ris", "csljson"] = "bibtex",
    ) -> ExportResult:
        """Return the reference list of some papers (by key or id) as BibTeX, RIS or CSL-JSON."""
        papers = [api.get_paper(key, settings=settings) for key in keys]
        return ExportResult(
            format=format, keys=[p.citation_key for p in papers], text=api.export(papers, format)
        )

    def library_stats() -> StatsResult:
        """Count the papers, passages and research areas in the library."""
        index = api.open_index(settings)
        counts = api.stats(index=index)
        papers = list(index.papers.values())
        years = sorted(p.year for p in papers if p.year is not None)
        return StatsResult(
            papers=counts["papers"],
            chunks=counts["chunks"],
            areas=counts["areas"],
            with_title=sum(1 for p in papers if p.title),
            years=[years[0], years[-1]] if years else [],
            index=str(index.store.location),
            writable=allow_write,
        )

    for fn in (
        search_papers,
        ask,
        cite_claim,
        cite_draft,
        get_paper,
        similar_papers,
        export_references,
        library_stats,
    ):
        tool(fn)
    if allow_write:
        _add_write_tools(settings, tool)
    return server


def _add_write_tools(
    settings: Settings, tool: Callable[[Callable[..., Any], ToolAnnotations], None]
) -> None:
    def ingest_files(paths: Annotated[list[str], Field(min_length=1)]) -> IngestResult:
        """Add papers from files or folders on the server's machine (BibTeX, RIS, CSL-JSON,
        PubMed, CSV, JSON lines, seed pages). Bad records are listed; the good ones go in."""
        return IngestResult.of(api.ingest(paths, settings=settings))

    def remove_papers(keys: Annotated[list[str], Field(min_length=1)]) -> RemoveResult:
        """Remove papers by citation key or id (all or none: an unknown key removes nothing)."""
        removed = api.remove(keys, settings=settings)
        return RemoveResult(removed=[p.citation_key for p in removed])

    tool(ingest_files, ToolAnnotations(read_only_hint=False, destructive_hint=False))
    tool(remove_papers, ToolAnnotations(read_only_hint=False, destructive_hint=True))


def serve_stdio(settings: Settings, *, allow_write: bool = False) -> None:
    """Serve the tools over stdin/stdout until the client closes them."""
    build_server(settings, allow_write=allow_write).run("stdio")


def check_http_binding(host: str, token: str | None) -> None:
    """Refuse to serve off loopback without a token.

    Raises:
        ConfigError: `host` is not a loopback address and there is no token.
    """
    if host not in LOOPBACK and not token:
        raise ConfigError(
            f"Serving MCP on {host} would let anyone on the network use the library: "
            "give --token (or RAG_MCP_TOKEN), or bind 127.0.0.1."
        )


def serve_http(
    settings: Settings,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    token: str | None = None,
    allow_write: bool = False,
) -> None:
    """Serve the tools over streamable HTTP at http://HOST:PORT/mcp.

    Raises:
        ConfigError: a non-loopback `host` without a `token`.
    """
    import uvicorn

    check_http_binding(host, token)
    app = build_server(settings, allow_write=allow_write).streamable_http_app(host=host)
    asgi: Any = BearerToken(app, token) if token else app
    uvicorn.run(asgi, host=host, port=port, log_level="warning")


class BearerToken:
    """ASGI middleware: every HTTP request needs `Authorization: Bearer <token>`."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers: Sequence[tuple[bytes, bytes]] = scope.get("headers", [])
            given = next((v for k, v in headers if k.lower() == b"authorization"), b"")
            if not hmac.compare_digest(given, self._expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"text/plain")],
                    }
                )
                body = b"missing or wrong bearer token: send Authorization: Bearer <token>\n"
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
