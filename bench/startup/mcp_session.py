"""Run the literature-review loop as an MCP client and print it (the README's session).

    .venv/bin/python bench/startup/mcp_session.py [--index DIR]

Starts `rag mcp --allow-write` over stdio with the SDK's client on an index in a temporary
folder (or DIR), adds seeds/ and tests/data/references.bib (a user's .bib, with its keys)
through `ingest_files`, then finds papers, asks, cites a paragraph with the user's keys and
exports the .bib, printing each call and a short form of its structured result.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[2]
DRAFT = (
    "Sequence transduction no longer needs recurrence: a network based solely on attention "
    "mechanisms is better in quality and faster to train. Graph neural networks lose accuracy "
    "when node labels are noisy, and the graph structure helps to correct them."
)


def _short(value: Any, width: int = 72) -> Any:
    if isinstance(value, str):
        return value if len(value) <= width else value[: width - 1] + "…"
    if isinstance(value, list):
        return [_short(v, width) for v in value[:3]] + (["…"] if len(value) > 3 else [])
    if isinstance(value, dict):
        return {k: _short(v, width) for k, v in value.items() if v is not None}
    return value


async def _show(
    session: ClientSession, name: str, keep: tuple[str, ...], width: int = 72, **args: Any
) -> Any:
    result = await session.call_tool(name, args)
    print(f">>> {name} {json.dumps(args, ensure_ascii=False)}")
    if result.is_error:
        print(f"tool error: {result.content[0].text}\n")
        return None
    data = result.structured_content
    for key in keep:
        value = _short(data[key], width)
        if isinstance(value, list) and value and isinstance(value[0], dict):
            print(f"{key}:")
            for item in value:
                print("  " + json.dumps(item, ensure_ascii=False))
        else:
            print(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    print()
    return data


async def _loop(index: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HF_HUB_OFFLINE": "1",
        "RAG_INDEX_DIR": str(index),
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from rag.cli import main; main()", "mcp", "--allow-write"],
        env=env,
        cwd=str(ROOT),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = [t.name for t in (await session.list_tools()).tools]
        print(f">>> list_tools\n{tools}\n")
        bib = "tests/data/references.bib"
        await _show(session, "ingest_files", ("added", "errors", "notes"), paths=["seeds", bib])
        found = await _show(
            session, "search_papers", ("papers",), query="noisy labels on graphs", k=2
        )
        assert found is not None
        await _show(
            session,
            "ask",
            ("answer", "abstained", "citations"),
            question="Which papers deal with noisy labels on graphs?",
        )
        draft = await _show(session, "cite_draft", ("text", "keys"), width=400, text=DRAFT)
        assert draft is not None
        exported = await _show(session, "export_references", ("keys",), keys=draft["keys"])
        assert exported is not None
        print(exported["text"].split("\n\n")[0][:400] + " …\n")
        await _show(session, "get_paper", ("paper",), key="nope2024")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, help="Index folder (default: a temporary one).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(_loop(args.index or Path(tmp) / "index"))


if __name__ == "__main__":
    main()
