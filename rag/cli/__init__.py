"""The `rag` command line (moved into a package; split by command family next)."""

from __future__ import annotations

from rag.cli.questions import EXIT_PARTIAL, cli, main

__all__ = ["EXIT_PARTIAL", "cli", "main"]
