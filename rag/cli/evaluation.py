"""CLI command that scores retrieval on a BEIR-format folder: eval."""

from __future__ import annotations

from pathlib import Path

import click

from rag.cli.group import command, emit_json, settings_for


@command("eval")
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
    from rag.evaluation import evaluate

    settings = settings_for(ctx)
    result = evaluate(
        dataset_dir,
        settings=settings,
        split=split,
        retriever=retriever or settings.retriever,
        run_out=run_out,
        progress=True,
    )
    if as_json:
        emit_json(result.to_dict())
        return
    for name, value in result.to_dict().items():
        click.echo(f"{name:<12} {value:.4f}" if isinstance(value, float) else f"{name:<12} {value}")
    if run_out:
        click.echo(f"run file written to {run_out}")
