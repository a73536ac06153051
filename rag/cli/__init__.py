"""The `rag` command: parses flags, calls the library, formats its results. Nothing else.

One module per command family, each command made with `rag.cli.group.command()` and
registered below; the group, its shared options and the error boundary live in `group`:

    group        the `rag` group, --index/--chroma-url/-v (before or after the command name)
    library      ingest, list, remove
    questions    search, ask
    references   cite, show, similar
    evaluation   eval
    serving      serve (the chat UI)
    mcp          mcp (the library as Model Context Protocol tools)

Exit codes: 0 done; 1 error (one line, `-v` for the traceback); 2 usage; 3 partial (an ingest
skipped some files or records, each named on stderr; the good ones went in).
"""

from __future__ import annotations

from rag.cli import evaluation, library, mcp, questions, references, serving
from rag.cli.group import EXIT_PARTIAL, cli

__all__ = ["EXIT_PARTIAL", "cli", "main"]

# A new face or family (e.g. `rag mcp` in rag/cli/mcp.py) adds its commands to this list.
for _command in (
    library.ingest,
    questions.search,
    questions.ask,
    library.list_,
    references.cite,
    references.show,
    references.similar,
    library.remove,
    evaluation.eval_,
    serving.serve,
    mcp.mcp,
):
    cli.add_command(_command)


def main() -> None:
    """Run the CLI (console script entry point)."""
    cli(prog_name="rag")
