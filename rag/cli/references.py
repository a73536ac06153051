"""CLI commands for literature reviews: cite, show, similar."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import click

from rag import prompts
from rag.cli.group import (
    authors_line,
    command,
    complete_keys,
    emit_json,
    filter_options,
    index_for,
    make_filters,
    paper_name,
    papers_option,
    settings_for,
)

_REFERENCE_FORMATS = ["bibtex", "ris", "csljson", "markdown"]
TITLE_ONLY = "title only"  # a citation matched on the title of a record without an abstract


@command()
@click.argument("claim", required=False)
@click.option(
    "--draft",
    type=click.Path(path_type=Path, allow_dash=True, dir_okay=False),
    help="Cite every sentence of this paragraph file ('-' for stdin) instead of one CLAIM.",
)
@papers_option("Most papers: for a CLAIM (default 5), per sentence (2).")
@click.option(
    "--style",
    type=click.Choice(["latex", "pandoc"]),
    default="latex",
    show_default=True,
    help=r"With --draft: insert \cite{key} (latex) or [@key] (pandoc).",
)
@click.option(
    "--min-score",
    type=click.FloatRange(0.0, 1.0),
    help="Least support score for a citation, for this run only [0.50]; lower it to take near "
    "misses (they are marked on stderr).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(_REFERENCE_FORMATS),
    help="Print only the reference list of the cited papers, in this format.",
)
@click.option(
    "--bib",
    type=click.Path(path_type=Path, dir_okay=False),
    help="With --draft: also write the BibTeX of the cited papers to this file.",
)
@filter_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def cite(
    ctx: click.Context,
    claim: str | None,
    draft: Path | None,
    k: int | None,
    style: str,
    min_score: float | None,
    fmt: str | None,
    bib: Path | None,
    as_json: bool,
    **filters: Any,
) -> None:
    """Find the papers that support CLAIM, or cite each sentence of a --draft paragraph."""
    from rag.cite import claims as citing
    from rag.cite.export import render, to_bibtex
    from rag.stance.choose import judge_for

    if bool(claim) == bool(draft):
        raise click.UsageError("Give either a CLAIM or --draft FILE.")
    if bib and not draft:
        raise click.UsageError("--bib goes with --draft (for a CLAIM, use --format bibtex).")
    index = index_for(ctx)
    score = citing.MIN_SCORE if min_score is None else min_score
    settings = settings_for(ctx)
    judge = judge_for(settings.stance, settings)
    if claim:
        from rag.text import split_sentences

        count = len(split_sentences(claim))
        if count > 1:  # matched as one claim, so one sentence's papers can hide the others'
            click.echo(
                f"Note: the claim holds {count} sentences and is matched as one; "
                "`rag cite --draft -` cites each sentence on its own.",
                err=True,
            )
        result = citing.cite(
            index, claim, k=k or 5, min_score=score, filters=make_filters(**filters), judge=judge
        )
        papers = [s.paper for s in result.supports]
        if fmt:
            click.echo(render(papers, fmt), nl=False)
        elif as_json:
            emit_json(result.to_dict())
        else:
            _print_supports(result)
        return
    assert draft is not None
    text = sys.stdin.read() if str(draft) == "-" else _read(draft)
    cited = citing.cite_draft(
        index,
        text,
        style=style,
        per_sentence=k or 2,
        min_score=score,
        filters=make_filters(**filters),
        judge=judge,
    )
    if bib:
        bib.write_text(to_bibtex(cited.papers), encoding="utf-8")
    if fmt:
        click.echo(render(cited.papers, fmt), nl=False)
    elif as_json:
        emit_json(cited.to_dict())
    else:
        click.echo(cited.text.rstrip("\n"))
    _summarize_draft(cited, bib)


def _read(path: Path) -> str:
    from rag.errors import ParseError

    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ParseError(str(path), "no such file: check the path") from None
    except UnicodeDecodeError as exc:
        line = path.read_bytes().count(b"\n", 0, exc.start) + 1
        raise ParseError(str(path), "invalid UTF-8: save the draft as UTF-8 text", line) from None


# Without a stance judge a match is on the claim's topic, and may say the opposite of it.
UNJUDGED = "Closest to the claim (support or contradiction not checked: the stance judge is off):"


def _print_supports(result: Any) -> None:
    judged = result.stance_checked
    if result.supports:
        click.echo("Supports:" if judged else UNJUDGED)
        _print_papers(result.supports)
    else:
        nearest = result.nearest
        best = (
            f" (nearest: [{nearest.paper.citation_key}] at {nearest.score:.2f})" if nearest else ""
        )
        # Unjudged, the score says how close a paper comes to the claim, not that it agrees.
        verb = "supports this claim" if judged else "matches this claim"
        click.echo(
            f"No paper in the index {verb} with a score of {result.min_score:.2f} or more{best}."
            + ("" if nearest is None else " Lower the bar with --min-score to see it.")
        )
    if result.contradicts:
        click.echo("Contradicts:")
        _print_papers(result.contradicts)


def _print_papers(supports: Any) -> None:
    for s in supports:
        p = s.paper
        mark = f"  ({TITLE_ONLY})" if p.title_only else ""
        click.echo(f"{s.rank:>2}. {paper_name(p)}  [{p.citation_key}]  score {s.score:.2f}{mark}")
        click.echo(
            f"    {authors_line(p.authors, p.authors_truncated)} · {p.area or 'area unknown'}"
        )
        quote = f"“{s.sentence}”" + (" (its title: the source gives no abstract)" if mark else "")
        click.echo(textwrap.fill(quote, width=96, initial_indent="    ", subsequent_indent="    "))


def _summarize_draft(cited: Any, bib: Path | None) -> None:
    """Tell on stderr what each sentence got, so stdout stays the paragraph alone."""
    from rag.cite.claims import MIN_SCORE

    for n, s in enumerate(cited.sentences, start=1):
        if s.supports:
            got = ", ".join(
                f"{c.paper.citation_key} ({c.score:.2f}"
                + (f", below the default {MIN_SCORE:.2f}" if c.score < MIN_SCORE else "")
                + (f", {TITLE_ONLY}" if c.paper.title_only else "")
                + ")"
                for c in s.supports
            )
        elif s.already_cited:
            got = "already cites something; left as is"
        elif s.nearest is None:
            got = "too short to cite"
        else:
            got = f"no citation (best {s.nearest.paper.citation_key} at {s.nearest.score:.2f})"
        if s.contradicts:
            against = ", ".join(f"{c.paper.citation_key} ({c.score:.2f})" for c in s.contradicts)
            got += f"; contradicted by {against}"
        click.echo(f"sentence {n}: {got}", err=True)
    if bib:
        click.echo(f"wrote {len(cited.papers)} BibTeX entries to {bib}", err=True)
    if not cited.stance_checked and cited.papers:
        click.echo(prompts.UNCHECKED_DRAFT, err=True)


@command()
@click.argument("key_or_id", shell_complete=complete_keys)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["bibtex", "ris", "csljson", "json"]),
    help="Print only this form of the record.",
)
@click.pass_context
def show(ctx: click.Context, key_or_id: str, fmt: str | None) -> None:
    """Show the full record of one paper (by citation key or id), and its BibTeX."""
    from rag.cite.claims import find_paper
    from rag.cite.export import render

    paper = find_paper(index_for(ctx), key_or_id)
    if fmt == "json":
        emit_json(paper.to_dict())
        return
    if fmt:
        click.echo(render([paper], fmt), nl=False)
        return
    rows = [
        ("key", paper.citation_key),
        ("id", paper.id),
        ("title", paper.title or f"(none; derived label: {paper.label})"),
        ("authors", "; ".join(paper.authors) + (" et al." if paper.authors_truncated else "")),
        ("year", str(paper.year) if paper.year is not None else "(unknown)"),
        ("area", paper.area or "(unknown)"),
        ("doi", paper.doi),
        ("url", paper.url),
        ("external id", paper.external_id),
        ("source", paper.source),
    ]
    for label, value in rows:
        if value:
            click.echo(f"{label + ':':<13}{value}")
    click.echo()
    if paper.title_only:
        click.echo(
            "(no abstract: a title-only record; search and citations match its title and "
            "keywords, and answers never quote it)"
        )
    else:
        click.echo(textwrap.fill(paper.abstract, width=96))
    click.echo()
    click.echo(render([paper], "bibtex"), nl=False)


@command()
@click.argument("key_or_id", shell_complete=complete_keys)
@papers_option("Papers to list.", 5)
@click.option(
    "--method",
    type=click.Choice(["hybrid", "vector", "fused"]),
    default="hybrid",
    show_default=True,
    help="The paper's text through the hybrid search, paper-embedding cosine, or both fused.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def similar(ctx: click.Context, key_or_id: str, k: int, method: str, as_json: bool) -> None:
    """List the papers most like one paper (by citation key or id)."""
    from rag.cite.claims import find_paper
    from rag.cite.similar import similar as nearest

    index = index_for(ctx)
    paper = find_paper(index, key_or_id)
    hits = nearest(index, paper, k=k, method=method)
    if as_json:
        emit_json([h.to_dict() for h in hits])
        return
    click.echo(f"Papers like {paper_name(paper)} [{paper.citation_key}]:")
    for h in hits:
        p = h.paper
        click.echo(f"{h.rank:>2}. {paper_name(p)}  [{p.citation_key}]  score {h.score:.2f}")
        click.echo(
            f"    {authors_line(p.authors, p.authors_truncated)} · {p.area or 'area unknown'}"
        )
