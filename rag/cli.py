"""The `rag` command: parses flags, calls the library, formats its results. Nothing else.

Exit codes: 0 done; 1 error (one line, `-v` for the traceback); 2 usage; 3 partial (an ingest
skipped some files or records, each named on stderr; the good ones went in).
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import click

from rag.errors import RagError
from rag.settings import Settings, load_settings

EXIT_PARTIAL = 3


class _Group(click.Group):
    """The one error boundary: a RagError is a one-line message and exit code 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except RagError as exc:
            if ctx.obj and ctx.obj.get("verbose"):
                raise
            raise click.ClickException(str(exc)) from None


def _setup_logging(verbose: int) -> None:
    level = logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING
    handler = logging.StreamHandler()
    # The level sits on the handler too: some libraries (bm25s) set their own logger to DEBUG.
    handler.setLevel(level)
    logging.basicConfig(
        level=level, format="%(levelname)s %(name)s: %(message)s", handlers=[handler]
    )
    for noisy in ("chromadb", "httpx", "transformers", "sentence_transformers", "urllib3", "bm25s"):
        logging.getLogger(noisy).setLevel(logging.DEBUG if verbose > 1 else logging.WARNING)


@click.group(cls=_Group)
@click.option(
    "--index",
    "index_dir",
    type=click.Path(path_type=Path),
    envvar="RAG_INDEX_DIR",
    help="Index folder [env RAG_INDEX_DIR; default ./index_store].",
)
@click.option("--chroma-url", envvar="RAG_CHROMA_URL", help="Use a Chroma server instead.")
@click.option("-v", "--verbose", count=True, help="More logging; tracebacks on errors.")
@click.version_option(package_name="rag")
@click.pass_context
def cli(ctx: click.Context, index_dir: Path | None, chroma_url: str | None, verbose: int) -> None:
    """Ask questions of a collection of paper abstracts and get cited answers, offline."""
    _setup_logging(verbose)
    ctx.obj = {"verbose": verbose, "flags": {"index_dir": index_dir, "chroma_url": chroma_url}}


def _settings(ctx: click.Context, **flags: Any) -> Settings:
    return load_settings(**ctx.obj["flags"], **flags)


def _filters(area: str | None, author: str | None, year_min: int | None, year_max: int | None):  # type: ignore[no-untyped-def]
    from rag.retrieve import Filters

    return Filters(area=area, author=author, year_min=year_min, year_max=year_max)


def filter_options(f: Any) -> Any:
    """Add --area/--author/--year-min/--year-max to a command."""
    for opt in reversed(
        [
            click.option("--area", help="Only papers whose research area contains this."),
            click.option(
                "--author", help="Only papers with an author matching this (any case/accent)."
            ),
            click.option("--year-min", type=int, help="Only papers from this year on."),
            click.option("--year-max", type=int, help="Only papers up to this year."),
        ]
    ):
        f = opt(f)
    return f


def _emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _authors(authors: tuple[str, ...] | list[str], truncated: bool, most: int = 3) -> str:
    shown = ", ".join(authors[:most])
    return shown + (" et al." if truncated or len(authors) > most else "")


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["arxiv", "bibtex", "csv", "jsonl", "seed"]),
    help="Force a parser instead of choosing by extension and content.",
)
@click.pass_context
def ingest(ctx: click.Context, paths: tuple[Path, ...], fmt: str | None) -> None:
    """Add papers from files or folders to the index."""
    from rag import api

    report = api.ingest(list(paths), settings=_settings(ctx), fmt=fmt, progress=True)
    for error in report.errors:
        click.echo(f"skipped {error}", err=True)
    click.echo(
        f"{report.added} added, {report.updated} moved, {report.removed} removed, "
        f"{report.unchanged} unchanged from {report.files} file(s)"
        + (f"; {len(report.errors)} problem(s) above" if report.errors else "")
    )
    if report.partial:
        ctx.exit(EXIT_PARTIAL)


@cli.command()
@click.argument("query")
@click.option("-k", "--top-k", "k", default=10, show_default=True, help="Papers to list.")
@click.option("--retriever", type=click.Choice(["hybrid", "dense", "bm25"]))
@filter_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def search(
    ctx: click.Context, query: str, k: int, retriever: str | None, as_json: bool, **filters: Any
) -> None:
    """List the papers that best match QUERY."""
    from rag import api

    hits = api.search(
        query, settings=_settings(ctx), k=k, retriever=retriever, filters=_filters(**filters)
    )
    if as_json:
        _emit_json([h.to_dict() for h in hits])
        return
    for h in hits:
        p = h.paper
        click.echo(f"{h.rank:>2}. {p.title or p.label}  [{p.citation_key}]  score {h.score:.3f}")
        click.echo(f"    {_authors(p.authors, p.authors_truncated)} · {p.area or 'area unknown'}")
        click.echo(f"    {h.snippet}")


def _read_questions(path: Path) -> list[str]:
    from rag.errors import ParseError

    questions = []
    text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("{"):
            try:
                questions.append(str(json.loads(line)["question"]))
            except (ValueError, KeyError, TypeError):
                raise ParseError(str(path), "expected a JSON object with a 'question'", n) from None
        else:
            questions.append(line)
    return questions


def _print_answer(answer: Any, streamed: bool) -> None:
    if not streamed:
        click.echo(answer.answer)
    click.echo()
    if answer.standalone:  # a rewritten follow-up or a translation: show what was searched
        click.echo(f"Searched: {answer.standalone}")
    if answer.notice:
        click.echo(f"note: {answer.notice}", err=True)
    if not answer.abstained and not answer.citations:
        return  # nothing to list (a question the bundled models cannot read)
    if answer.abstained:
        click.echo("Nearest papers:")
        refs = [(h.rank, h) for h in answer.nearest]
    else:
        click.echo("References:")
        refs = [(c.n, c.hit) for c in answer.citations]
    for n, h in refs:
        p = h.paper
        click.echo(
            f"[{n}] {p.title or p.label + '*'} · {_authors(p.authors, p.authors_truncated)} · "
            f"{p.area or 'area unknown'} · {p.citation_key} · relevance {h.relevance:.2f}"
        )
    if any(not h.paper.title for _, h in refs):
        click.echo("* no title in the source: label derived from the authors and the abstract")


@cli.command()
@click.argument("question", required=False)
@click.option(
    "--questions",
    "questions_file",
    type=click.Path(path_type=Path, allow_dash=True),
    help="Answer every question in FILE (one per line, or JSONL with 'question').",
)
@click.option("--backend", type=click.Choice(["local", "openai", "extractive"]))
@click.option("-k", "--top-k", "k", type=int, help="Papers to use.")
@click.option("--retriever", type=click.Choice(["hybrid", "dense", "bm25"]))
@filter_options
@click.option(
    "--json", "as_json", is_flag=True, help="Print JSON (one object per line with --questions)."
)
@click.option(
    "--format",
    "ref_format",
    type=click.Choice(["bibtex", "ris", "csljson", "markdown"]),
    help="Print the answer's references in this format on stdout (the answer goes to stderr).",
)
@click.pass_context
def ask(
    ctx: click.Context,
    question: str | None,
    questions_file: Path | None,
    backend: str | None,
    k: int | None,
    retriever: str | None,
    as_json: bool,
    ref_format: str | None,
    **filters: Any,
) -> None:
    """Answer QUESTION from the indexed papers, citing them."""
    from rag import api
    from rag.answer import Answer

    if bool(question) == bool(questions_file):
        raise click.UsageError("Give either a QUESTION or --questions FILE.")
    if ref_format and (as_json or questions_file):
        raise click.UsageError("--format goes with one QUESTION, without --json.")
    if ref_format:
        _ask_references(ctx, question or "", ref_format, backend, k, retriever, filters)
        return
    settings = _settings(ctx, backend=backend)
    questions = _read_questions(questions_file) if questions_file else [question or ""]
    for q in questions:
        stream = not as_json and not questions_file
        final = None
        for event in api.ask_stream(
            q, settings=settings, filters=_filters(**filters), top_k=k, retriever=retriever
        ):
            if isinstance(event, Answer):
                final = event
            elif stream:
                click.echo(event, nl=False)
        assert final is not None
        if as_json:
            data = final.to_dict()
            click.echo(
                json.dumps(data, ensure_ascii=False)
                if questions_file
                else json.dumps(data, ensure_ascii=False, indent=2)
            )
        else:
            if questions_file:
                click.echo(f"Q: {q}")
            _print_answer(final, streamed=stream)


def _ask_references(
    ctx: click.Context,
    question: str,
    ref_format: str,
    backend: str | None,
    k: int | None,
    retriever: str | None,
    filters: dict[str, Any],
) -> None:
    from rag import api

    answer = api.ask(
        question,
        settings=_settings(ctx, backend=backend),
        filters=_filters(**filters),
        top_k=k,
        retriever=retriever,
    )
    click.echo(answer.answer, err=True)
    if answer.abstained:
        click.echo("No references: the collection has no paper on this question.", err=True)
        return
    click.echo(api.export([c.hit.paper for c in answer.citations], ref_format), nl=False)


@cli.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def list_(ctx: click.Context, as_json: bool) -> None:
    """List every paper in the index."""
    from rag import api

    papers = api.list_papers(settings=_settings(ctx))
    if as_json:
        _emit_json([p.to_dict() for p in papers])
        return
    for p in papers:
        click.echo(
            f"{p.citation_key:<24} {_authors(p.authors, p.authors_truncated, 2):<40} "
            f"{p.area or '-'}"
        )
    click.echo(f"{len(papers)} papers")


@cli.command("eval")
@click.argument("dataset_dir", type=click.Path(path_type=Path, file_okay=False))
@click.option("--split", default="test", show_default=True, help="Which qrels/<split>.tsv.")
@click.option("--retriever", type=click.Choice(["hybrid", "dense", "bm25"]))
@click.option("--run-out", type=click.Path(path_type=Path), help="Write a TREC run file.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def eval_(
    ctx: click.Context,
    dataset_dir: Path,
    split: str,
    retriever: str | None,
    run_out: Path | None,
    as_json: bool,
) -> None:
    """Score retrieval on a BEIR-format folder (corpus.jsonl, queries.jsonl, qrels/)."""
    from rag.evaluate import evaluate

    settings = _settings(ctx)
    result = evaluate(
        dataset_dir,
        settings=settings,
        split=split,
        retriever=retriever or settings.retriever,
        run_out=run_out,
        progress=True,
    )
    if as_json:
        _emit_json(result.to_dict())
        return
    for name, value in result.to_dict().items():
        click.echo(f"{name:<12} {value:.4f}" if isinstance(value, float) else f"{name:<12} {value}")
    if run_out:
        click.echo(f"run file written to {run_out}")


@cli.command()
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

    settings = _settings(ctx, host=host, port=port, auth=auth)
    if ingest_paths:
        report = api.ingest(list(ingest_paths), settings=settings, progress=True)
        click.echo(f"index: {report.added} added, {report.unchanged} unchanged", err=True)
    import ui

    ui.main(settings)


# Commands of other concepts register themselves on `cli` (kept out of this file's size).
from rag import cli_references  # noqa: E402, F401


def main() -> None:
    """Run the CLI (console script entry point)."""
    cli(prog_name="rag")
