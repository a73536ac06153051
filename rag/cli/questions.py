"""CLI commands that answer from the index: search and ask."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from rag.cli.group import (
    authors_line,
    command,
    emit_json,
    filter_options,
    make_filters,
    papers_option,
    settings_for,
)


@command()
@click.argument("query")
@papers_option("Papers to list.", 10)
@click.option("--retriever", type=click.Choice(["hybrid", "dense", "bm25"]))
@filter_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def search(
    ctx: click.Context, query: str, k: int, retriever: str | None, as_json: bool, **filters: Any
) -> None:
    """List the papers that best match QUERY."""
    from rag import api
    from rag.index.spelling import corrected

    if not query.strip():
        raise click.UsageError("QUERY is empty: give the words to search for.")
    index = api.open_index(settings_for(ctx))
    searched = corrected(index, query)  # "graph nueral netwroks": the collection's words
    hits = api.search(
        searched, index=index, k=k, retriever=retriever, filters=make_filters(**filters)
    )
    if as_json:
        emit_json([h.to_dict() for h in hits])
        return
    if searched != query:
        click.echo(f"Searched: {searched}")
    if not hits:  # BM25 alone finds none that shares a word; printing nothing read as a hang
        click.echo("No paper matches these words.", err=True)
    for h in hits:
        p = h.paper
        mark = "  (no abstract)" if p.title_only else ""
        click.echo(
            f"{h.rank:>2}. {p.title or p.label}  [{p.citation_key}]  score {h.score:.3f}{mark}"
        )
        click.echo(
            f"    {authors_line(p.authors, p.authors_truncated)} · {p.area or 'area unknown'}"
        )
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
    if not answer.citations and not (answer.abstained and answer.nearest):
        return  # nothing to list (a question the bundled models cannot read, none near)
    if answer.abstained:
        click.echo("Nearest papers:")
        refs = [(h.rank, h) for h in answer.nearest]
    else:
        click.echo("References:")
        refs = [(c.n, c.hit) for c in answer.citations]
    for n, h in refs:
        p = h.paper
        click.echo(
            f"[{n}] {p.title or p.label + '*'} · {authors_line(p.authors, p.authors_truncated)} · "
            f"{p.area or 'area unknown'} · {p.citation_key} · relevance {max(0.0, h.relevance):.2f}"
        )
    if any(not h.paper.title for _, h in refs):
        click.echo("* no title in the source: label derived from the authors and the abstract")


@command()
@click.argument("question", required=False)
@click.option(
    "--questions",
    "questions_file",
    type=click.Path(path_type=Path, allow_dash=True, exists=True, dir_okay=False),
    help="Answer every question in FILE (one per line, or JSONL with 'question').",
)
@click.option("--backend", type=click.Choice(["local", "openai", "extractive"]))
@papers_option("Papers to use.")
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
    from rag.answer.rendering import Answer

    if question is not None and not question.strip():
        raise click.UsageError("QUESTION is empty: type what you want to know.")
    if bool(question) == bool(questions_file):
        raise click.UsageError("Give either a QUESTION or --questions FILE.")
    if ref_format and (as_json or questions_file):
        raise click.UsageError("--format goes with one QUESTION, without --json.")
    if ref_format:
        _ask_references(ctx, question or "", ref_format, backend, k, retriever, filters)
        return
    settings = settings_for(ctx, backend=backend)
    questions = _read_questions(questions_file) if questions_file else [question or ""]
    for q in questions:
        stream = not as_json and not questions_file
        final = None
        for event in api.ask_stream(
            q, settings=settings, filters=make_filters(**filters), top_k=k, retriever=retriever
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
        settings=settings_for(ctx, backend=backend),
        filters=make_filters(**filters),
        top_k=k,
        retriever=retriever,
    )
    click.echo(answer.answer, err=True)
    if answer.abstained:
        click.echo("No references: the collection has no paper on this question.", err=True)
        return
    click.echo(api.export([c.hit.paper for c in answer.citations], ref_format), nl=False)
