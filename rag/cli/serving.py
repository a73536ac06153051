"""CLI command that serves the chat UI: serve."""

from __future__ import annotations

from pathlib import Path

import click

from rag.cli.group import command, settings_for


@command()
@click.option("--host", help="Address to bind (default 127.0.0.1).")
@click.option("--port", type=int, help="Port (default 7860).")
@click.option("--auth", envvar="RAG_AUTH", help="user:password, required off loopback.")
@click.option(
    "--ingest",
    "ingest_paths",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Index these files first when they are new or changed.",
)
@click.pass_context
def serve(
    ctx: click.Context,
    host: str | None,
    port: int | None,
    auth: str | None,
    ingest_paths: tuple[Path, ...],
) -> None:
    """Serve the chat UI."""
    from rag import api

    settings = settings_for(ctx, host=host, port=port, auth=auth)
    if ingest_paths:
        report = api.ingest(list(ingest_paths), settings=settings, progress=True)
        click.echo(f"index: {report.added} added, {report.unchanged} unchanged", err=True)
    from rag.ui import app

    app.main(settings)
