"""`rag mcp` through the MCP SDK's own client over stdio, with the server started by the test.

One scripted session does the literature-review loop (find papers, ask, cite a paragraph with
the user's own keys, export the .bib) on a real index (bundled MiniLM) that the write tools
built; the tests below check what that session saw.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bibtexparser
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from rag.mcp.server import READ_TOOLS, WRITE_TOOLS

ROOT = Path(__file__).resolve().parents[2]
USER_BIB = ROOT / "tests" / "data" / "references.bib"  # a user's .bib with their own keys
DRAFT = (
    "Sequence transduction no longer needs recurrence: a network based solely on attention "
    "mechanisms is better in quality and faster to train. Graph neural networks lose accuracy "
    "when node labels are noisy, and the graph structure helps to correct them. Our own "
    "interest began with a survey of hospital records."
)


def _server(index: Path, *flags: str) -> StdioServerParameters:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", ""),
        "PYTHONPATH": str(ROOT),
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "RAG_INDEX_DIR": str(index),
    }
    code = "from rag.cli import main; main()"
    return StdioServerParameters(
        command=sys.executable, args=["-c", code, "mcp", *flags], env=env, cwd=str(ROOT)
    )


async def _call(session: ClientSession, name: str, **args: Any) -> Any:
    return await session.call_tool(name, args)


async def _write_session(index: Path) -> dict[str, Any]:
    async with (
        stdio_client(_server(index, "--allow-write")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = [t.name for t in (await session.list_tools()).tools]
        ingested = await _call(session, "ingest_files", paths=[str(ROOT / "seeds"), str(USER_BIB)])
        return {"tools": tools, "ingest": ingested}


async def _review_session(index: Path) -> dict[str, Any]:
    """The literature-review loop, as an assistant would run it."""
    seen: dict[str, Any] = {}
    async with (
        stdio_client(_server(index)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        seen["tools"] = [t.name for t in (await session.list_tools()).tools]
        seen["search"] = await _call(session, "search_papers", query="noisy labels on graphs")
        seen["ask"] = await _call(
            session, "ask", question="Which papers deal with noisy labels on graphs?"
        )
        seen["draft"] = await _call(session, "cite_draft", text=DRAFT)
        seen["claim"] = await _call(
            session,
            "cite_claim",
            claim="Direct preference optimization is always equivalent to RLHF.",
        )
        keys = seen["draft"].structured_content["keys"]
        seen["export"] = await _call(session, "export_references", keys=keys)
        seen["paper"] = await _call(session, "get_paper", key="ju_icgnn")
        seen["bad_k"] = await _call(session, "search_papers", query="graphs", k=0)
        seen["unknown_key"] = await _call(session, "get_paper", key="nope2024")
        seen["write_absent"] = await _call(session, "remove_papers", keys=["ju_icgnn"])
        seen["after_errors"] = await _call(session, "library_stats")
        seen["filtered"] = await _call(session, "search_papers", query="attention", k=3, year=2017)
    return seen


@pytest.fixture(scope="module")
def session_log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    index = tmp_path_factory.mktemp("mcp-index") / "index"
    written = asyncio.run(_write_session(index))
    seen = asyncio.run(_review_session(index))
    yield {"write": written, **seen}


def _ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return result.structured_content


@pytest.mark.slow
def test_tools_are_listed_and_write_tools_only_with_allow_write(
    session_log: dict[str, Any],
) -> None:
    assert session_log["tools"] == list(READ_TOOLS)
    assert session_log["write"]["tools"] == [*READ_TOOLS, *WRITE_TOOLS]
    ingested = _ok(session_log["write"]["ingest"])
    assert ingested["added"] == 43 and ingested["key_clashes"] == []
    (error,) = ingested["errors"]  # the .bib's broken entry, by file and line
    assert error.startswith(f"{USER_BIB}:46: ")
    # Its entry without an abstract is no bad record: one note, naming the flag that keeps it.
    (note,) = ingested["notes"]
    assert note.startswith(f"{USER_BIB}: 1 entry without an abstract was not indexed; ")
    absent = session_log["write_absent"]
    assert absent.is_error and "remove_papers" in absent.content[0].text


@pytest.mark.slow
def test_cite_claim_says_its_matches_were_not_checked_to_agree(
    session_log: dict[str, Any],
) -> None:
    # CPO proves the equivalence "conditional rather than universal": without a stance judge (the
    # default) the tool listed it under `supports` and nothing told the client it was unjudged.
    claim = _ok(session_log["claim"])
    assert claim["stance_checked"] is False
    assert "zhang_cpo" in [s["key"] for s in claim["supports"]]


@pytest.mark.slow
def test_search_papers_finds_the_wei_ju_paper(session_log: dict[str, Any]) -> None:
    papers = _ok(session_log["search"])["papers"]
    assert papers[0]["key"] == "ju_icgnn" and papers[0]["authors"][0] == "Wei Ju"
    assert papers[0]["rank"] == 1 and papers[0]["snippet"]
    filtered = _ok(session_log["filtered"])["papers"]
    assert [p["key"] for p in filtered] == ["vaswani2017attention"]  # the only 2017 paper


@pytest.mark.slow
def test_ask_returns_a_cited_checked_answer(session_log: dict[str, Any]) -> None:
    answer = _ok(session_log["ask"])
    assert not answer["abstained"] and "[1]" in answer["answer"]
    first = answer["citations"][0]
    assert first["n"] == 1 and first["key"] == "ju_icgnn"
    assert first["evidence"] and first["evidence"] in _ok(session_log["paper"])["paper"]["abstract"]


@pytest.mark.slow
def test_a_paragraph_is_cited_with_the_users_own_keys_and_exported(
    session_log: dict[str, Any],
) -> None:
    draft = _ok(session_log["draft"])
    assert draft["keys"][:1] == ["vaswani2017attention"]  # the key of the user's .bib
    assert "ju_icgnn" in draft["keys"]
    assert "faster to train~\\cite{vaswani2017attention}." in draft["text"]
    # Cited by topic alone (no stance judge): the client is told, as cite_claim's is.
    assert draft["stance_checked"] is False
    assert draft["sentences"][-1]["keys"] == []  # nothing supports it: no citation
    exported = _ok(session_log["export"])
    library = bibtexparser.parse_string(exported["text"])
    assert [e.key for e in library.entries] == draft["keys"]
    assert not library.failed_blocks


@pytest.mark.slow
def test_get_paper_gives_the_record_and_bibtex_that_bibtexparser_reads(
    session_log: dict[str, Any],
) -> None:
    result = _ok(session_log["paper"])
    assert result["paper"]["key"] == "ju_icgnn" and result["paper"]["title"] is None
    assert result["paper"]["label_derived"] is True
    (entry,) = bibtexparser.parse_string(result["bibtex"]).entries
    assert entry.key == "ju_icgnn" and "title" not in entry.fields_dict  # never invented
    assert entry.fields_dict["author"].value.startswith("Ju, Wei and Zhang, Wei")


@pytest.mark.slow
def test_bad_arguments_are_one_line_tool_errors_and_the_server_keeps_serving(
    session_log: dict[str, Any],
) -> None:
    bad = session_log["bad_k"]
    assert bad.is_error
    text = bad.content[0].text
    assert "\n" not in text and "'k'" in text and "greater than or equal to 1" in text
    unknown = session_log["unknown_key"]
    assert unknown.is_error and "No paper with key or id 'nope2024'" in unknown.content[0].text
    stats = _ok(session_log["after_errors"])  # served after the errors
    assert stats["papers"] == 43 and stats["writable"] is False
