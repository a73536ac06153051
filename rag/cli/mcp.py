"""CLI command that serves the library to AI assistants over MCP: mcp."""

from __future__ import annotations

import click

from rag.cli.group import command, settings_for


@command()
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="With --http: address.")
@click.option("--port", default=8765, show_default=True, help="With --http: port.")
@click.option(
    "--token",
    envvar="RAG_MCP_TOKEN",
    help="With --http: require 'Authorization: Bearer TOKEN' (needed off loopback) "
    "[env RAG_MCP_TOKEN].",
)
@click.option(
    "--allow-write",
    is_flag=True,
    help="Also offer the ingest_files and remove_papers tools (read-only otherwise).",
)
@click.pass_context
def mcp(
    ctx: click.Context,
    use_http: bool,
    host: str,
    port: int,
    token: str | None,
    allow_write: bool,
) -> None:
    """Serve the library as MCP tools (stdio for desktop assistants, or --http)."""
    from rag.mcp import server as mcp_server

    settings = settings_for(ctx)
    if not use_http:
        if token or host != "127.0.0.1":
            raise click.UsageError("--host and --token go with --http.")
        mcp_server.serve_stdio(settings, allow_write=allow_write)
        return
    mcp_server.check_http_binding(host, token)
    click.echo(f"MCP over streamable HTTP at http://{host}:{port}/mcp", err=True)
    mcp_server.serve_http(settings, host=host, port=port, token=token, allow_write=allow_write)
