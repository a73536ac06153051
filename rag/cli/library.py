"""CLI commands that manage the library in the index: ingest, list, remove."""

from __future__ import annotations

from pathlib import Path

import click

from rag.cli.group import (
    EXIT_PARTIAL,
    authors_line,
    command,
    complete_keys,
    emit_json,
    index_for,
    paper_name,
    settings_for,
    verbosity,
)

NO_ABSTRACT = "no abstract"  # the mark of a title-only record wherever a paper is listed


@command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(
        ["arxiv", "bibtex", "csljson", "csv", "jsonl", "pubmed", "ris", "seed", "wos"]
    ),
    help="Force a parser instead of choosing by extension and content.",
)
@click.option(
    "--title-only",
    is_flag=True,
    help="Keep entries without an abstract as title-only records: searchable and citable by "
    "title, never quoted in answers [env RAG_TITLE_ONLY].",
)
@click.option(
    "--passage-vectors",
    type=click.Choice(["windows", "late"]),
    help="How passage vectors are made: each window encoded (windows) or pooled from one pass "
    "over title and abstract (late, faster); default: as the index was built, windows for a "
    "new one. An index keeps its method [env RAG_PASSAGE_VECTORS].",
)
@click.pass_context
def ingest(
    ctx: click.Context,
    paths: tuple[Path, ...],
    fmt: str | None,
    title_only: bool,
    passage_vectors: str | None,
) -> None:
    """Add papers from files or folders to the index."""
    from rag import api

    settings = settings_for(ctx, title_only=title_only or None, passage_vectors=passage_vectors)
    report = api.ingest(list(paths), settings=settings, fmt=fmt, progress=True)
    for error in report.errors:
        click.echo(f"skipped {error}", err=True)
    for note in report.notes:
        click.echo(f"note: {note}", err=True)
    if verbosity(ctx):
        for entry in report.no_abstract:
            click.echo(f"  {entry}", err=True)
    for clash in report.key_clashes:
        click.echo(f"key clash: {clash}", err=True)
    for change in report.key_changes:
        click.echo(f"key changed: {change}", err=True)
    click.echo(
        f"{report.added} added, {report.updated} moved, {report.removed} removed, "
        f"{report.unchanged} unchanged from {report.files} file(s)"
        + (
            f"; {report.upgraded} title-only record(s) replaced by the paper with its abstract"
            if report.upgraded
            else ""
        )
        + (f"; {len(report.errors)} problem(s) above" if report.errors else "")
    )
    if report.partial and not (
        report.added or report.updated or report.unchanged or report.removed
    ):
        # every file or record was skipped, each named above: nothing came from them
        ctx.exit(1)
    if report.partial:
        ctx.exit(EXIT_PARTIAL)


@command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["bibtex", "ris", "csljson"]),
    help="Print the whole library in this reference format (to save as .bib, .ris, .json).",
)
@click.pass_context
def list_(ctx: click.Context, as_json: bool, fmt: str | None) -> None:
    """List every paper in the index, or export them all (--format)."""
    from rag import api

    papers = api.list_papers(settings=settings_for(ctx))
    if as_json:
        emit_json([p.to_dict() for p in papers])
        return
    if fmt:
        click.echo(api.export(papers, fmt), nl=False)
        return
    for p in papers:
        mark = f"  ({NO_ABSTRACT})" if p.title_only else ""
        name = p.title or p.label  # a derived label where the source gave no title
        name = name if len(name) <= 60 else name[:59].rsplit(" ", 1)[0] + "…"
        click.echo(
            f"{p.citation_key:<24} {p.year or '-':<5} "
            f"{authors_line(p.authors, p.authors_truncated, 2):<36} {name}{mark}"
        )
    title_only = sum(p.title_only for p in papers)
    click.echo(
        f"{len(papers)} papers" + (f", {title_only} with {NO_ABSTRACT}" if title_only else "")
    )


@command()
@click.argument("keys", nargs=-1, required=True, shell_complete=complete_keys)
@click.pass_context
def remove(ctx: click.Context, keys: tuple[str, ...]) -> None:
    """Remove papers (by citation key or id) from the index: Chroma and BM25 both."""
    from rag.cite.claims import find_paper
    from rag.ingest.pipeline import remove as remove_papers

    index = index_for(ctx)
    papers = [find_paper(index, key) for key in keys]  # all known before anything goes
    unique = list({p.id: p for p in papers}.values())
    removed = remove_papers(index, [p.id for p in unique])
    for p in unique:
        click.echo(f"removed {p.citation_key}  {paper_name(p)}  ({p.source_file})")
    click.echo(f"{removed} paper(s) removed; ingesting their file again brings them back.")
