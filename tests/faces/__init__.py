"""Tests of the faces: the CLI, MCP, the chat UI (also in a real browser), llama-index."""
