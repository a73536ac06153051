"""CLI commands for literature reviews: cite, show, remove, similar (registered on `rag.cli`)."""

from __future__ import annotations
