"""The `rag` group, the options every command shares, and the CLI's one error boundary.

`--index`, `--chroma-url` and `-v` are accepted before the command name (`rag --index idx
ingest seeds`) and after it (`rag ingest seeds --index idx`); given in both places, the one
after the name wins. Every command is made with `command()` so that it takes them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from click.shell_completion import CompletionItem

from rag.errors import RagError
from rag.settings import Settings, load_settings

EXIT_PARTIAL = 3

_NOISY = ("chromadb", "httpx", "transformers", "sentence_transformers", "urllib3", "bm25s")


class RagGroup(click.Group):
    """The one error boundary: a RagError is a one-line message and exit code 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except RagError as exc:
            if _state(ctx)["verbose"]:
                raise
            raise click.ClickException(str(exc)) from None


class RagCommand(click.Command):
    """A command that sets up logging once all its options, wherever given, are parsed."""

    def invoke(self, ctx: click.Context) -> Any:
        _setup_logging(_state(ctx)["verbose"])
        return super().invoke(ctx)


def _state(ctx: click.Context) -> dict[str, Any]:
    """The shared options collected so far (the group's, then the command's)."""
    obj = ctx.find_root().ensure_object(dict)
    obj.setdefault("verbose", 0)
    obj.setdefault("flags", {"index_dir": None, "chroma_url": None})
    return obj


def _setup_logging(verbose: int) -> None:
    level = logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING
    handler = logging.StreamHandler()
    # The level sits on the handler too: some libraries (bm25s) set their own logger to DEBUG.
    handler.setLevel(level)
    logging.basicConfig(
        level=level, format="%(levelname)s %(name)s: %(message)s", handlers=[handler]
    )
    for noisy in _NOISY:
        logging.getLogger(noisy).setLevel(logging.DEBUG if verbose > 1 else logging.WARNING)


def _set_flag(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    if value is not None:
        _state(ctx)["flags"][param.name] = value


def _add_verbosity(ctx: click.Context, param: click.Parameter, value: int) -> None:
    _state(ctx)["verbose"] += value


INDEX_HELP = "Index folder [env RAG_INDEX_DIR; default ./index_store]."
CHROMA_HELP = "Use a Chroma server at this URL instead [env RAG_CHROMA_URL]."
VERBOSE_HELP = "More logging; tracebacks on errors (repeat for debug)."


def _shared_options() -> list[click.Parameter]:
    """The group's options again, for a command: they feed the settings, not its arguments."""
    return [
        click.Option(
            ["--index", "index_dir"],
            type=click.Path(path_type=Path),
            expose_value=False,
            callback=_set_flag,
            help=INDEX_HELP,
        ),
        click.Option(["--chroma-url"], expose_value=False, callback=_set_flag, help=CHROMA_HELP),
        click.Option(
            ["-v", "--verbose"],
            count=True,
            expose_value=False,
            callback=_add_verbosity,
            help=VERBOSE_HELP,
        ),
    ]


def command(name: str | None = None, **attrs: Any) -> Callable[[Callable[..., Any]], click.Command]:
    """Make a `rag` subcommand (like `click.command`) that also takes the shared options.

    Register it on the group in `rag/cli/__init__.py`.
    """

    def decorate(f: Callable[..., Any]) -> click.Command:
        made = click.command(name, cls=RagCommand, **attrs)(f)
        made.params.extend(_shared_options())  # listed after the command's own options
        return made

    return decorate


@click.group("rag", cls=RagGroup)
@click.option(
    "--index", "index_dir", type=click.Path(path_type=Path), envvar="RAG_INDEX_DIR", help=INDEX_HELP
)
@click.option("--chroma-url", envvar="RAG_CHROMA_URL", help=CHROMA_HELP)
@click.option("-v", "--verbose", count=True, help=VERBOSE_HELP)
@click.version_option(package_name="rag", message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx: click.Context, index_dir: Path | None, chroma_url: str | None, verbose: int) -> None:
    """Ask questions of a collection of paper abstracts and get cited answers, offline.

    Shell completion: eval "$(_RAG_COMPLETE=bash_source rag)" (zsh_source, fish_source).
    """
    state = _state(ctx)
    state["verbose"] += verbose
    state["flags"].update(index_dir=index_dir, chroma_url=chroma_url)


def verbosity(ctx: click.Context) -> int:
    """Return how many times -v was given, before and after the command name."""
    return int(_state(ctx)["verbose"])


def settings_for(ctx: click.Context, **flags: Any) -> Settings:
    """Return the settings, with the shared options and a command's own `flags` applied."""
    return load_settings(**_state(ctx)["flags"], **flags)


def index_for(ctx: click.Context) -> Any:
    """Return the open `Index` the shared options point at."""
    from rag import api

    return api.open_index(settings_for(ctx))


def complete_keys(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """Offer the index's citation keys for a KEY_OR_ID argument (shell completion).

    Completion parses without running the group, so its options are read from the context.
    """
    flags = {k: ctx.find_root().params.get(k) for k in ("index_dir", "chroma_url")}
    flags.update({k: v for k, v in _state(ctx)["flags"].items() if v is not None})
    try:
        from rag import api

        papers = api.list_papers(settings=load_settings(**flags))
    except Exception:  # no index, a bad setting: nothing to offer, and no noise in the shell
        return []
    return [
        CompletionItem(p.citation_key, help=paper_name(p))
        for p in papers
        if p.citation_key.startswith(incomplete)
    ]


def papers_option(help_text: str, default: int | None = None) -> Any:
    """The `-k/--top-k` option: how many papers, a whole number of 1 or more (`-k 0` listed
    nothing, `-k -3` was taken, without a word)."""
    return click.option(
        "-k",
        "--top-k",
        "k",
        default=default,
        show_default=default is not None,
        type=click.IntRange(min=1),
        help=help_text,
    )


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


def make_filters(
    area: str | None = None,
    author: str | None = None,
    year_min: int | None = None,
    year_max: int | None = None,
) -> Any:
    """Return the `rag.Filters` of the options `filter_options` added."""
    from rag.index.retrieve import Filters

    return Filters(area=area, author=author, year_min=year_min, year_max=year_max)


def emit_json(data: Any) -> None:
    """Print `data` as indented JSON, non-ASCII kept."""
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def authors_line(authors: tuple[str, ...] | list[str], truncated: bool, most: int = 3) -> str:
    """Return the first `most` authors, with "et al." when there are more."""
    shown = ", ".join(authors[:most])
    return shown + (" et al." if truncated or len(authors) > most else "")


def paper_name(paper: Any) -> str:
    """Return the title, else the derived label, else the citation key."""
    return str(paper.title or paper.label or paper.citation_key)
