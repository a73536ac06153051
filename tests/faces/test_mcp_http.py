"""`rag mcp --http`: streamable HTTP on loopback, a bearer token, and no open port off loopback
without one. A real server process on 127.0.0.1:7865 and the SDK's HTTP client."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from click.testing import CliRunner
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from rag.cli import cli
from rag.mcp.server import READ_TOOLS

ROOT = Path(__file__).resolve().parents[2]
PORT = 7865
TOKEN = "s3cret-token"
URL = f"http://127.0.0.1:{PORT}/mcp"


def _wait_for_port(proc: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(
                f"server exited: {proc.stderr.read().decode() if proc.stderr else ''}"
            )
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", PORT)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError("the MCP HTTP server did not open its port")


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HF_HUB_OFFLINE": "1",
        "RAG_INDEX_DIR": str(tmp_path_factory.mktemp("mcp-http") / "index"),
        "RAG_MCP_TOKEN": TOKEN,
    }
    command = [sys.executable, "-c", "from rag.cli import main; main()", "mcp", "--http"]
    proc = subprocess.Popen(
        [*command, "--port", str(PORT)],
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(proc)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def _list_and_call(token: str) -> tuple[list[str], str]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers) as client,
        streamable_http_client(URL, http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = [t.name for t in (await session.list_tools()).tools]
        result = await session.call_tool("library_stats", {})
        assert result.is_error
        return tools, result.content[0].text


def test_http_with_the_token_serves_the_tools(http_server: None) -> None:
    tools, error = asyncio.run(_list_and_call(TOKEN))
    assert tools == list(READ_TOOLS)
    assert "No index at" in error  # a tool error naming what to do, and the server goes on
    assert asyncio.run(_list_and_call(TOKEN))[0] == list(READ_TOOLS)


def test_http_without_the_token_is_refused(http_server: None) -> None:
    response = httpx.post(URL, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert response.status_code == 401 and "bearer token" in response.text
    wrong = httpx.post(URL, headers={"Authorization": "Bearer guess"}, json={})
    assert wrong.status_code == 401


def test_http_off_loopback_needs_a_token() -> None:
    result = CliRunner().invoke(cli, ["mcp", "--http", "--host", "0.0.0.0"])
    assert result.exit_code == 1
    assert "give --token (or RAG_MCP_TOKEN), or bind 127.0.0.1" in result.output
    assert "Traceback" not in result.output
