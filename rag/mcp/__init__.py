"""The Model Context Protocol face: the library's operations as MCP tools (`rag mcp`).

Owns the server (`server`, on the official `mcp` SDK) and the shapes of its results
(`results`). Parses arguments and formats results, nothing else.

May import: `rag.api` and everything below it. Not another face.
"""
