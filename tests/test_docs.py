"""The README and docs/ point at things that exist: links, commands, paths, modules, benches."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from rag.cli import cli
from tests.conftest import ROOT

README = ROOT / "README.md"
BENCH_README = ROOT / "bench" / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]

FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```", re.S | re.M)
INLINE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
# A repository path quoted in code: not part of a longer path (`../shared/...`, `/tmp/.../tests`).
REPO_PATH = re.compile(r"(?<![\w./~-])((?:rag|bench|tests|seeds|docs)/[\w./-]*)")
MODULE = re.compile(r"(?<![\w./-])rag(?:\.[A-Za-z_]\w*)+")
BENCH_RUN = re.compile(r"python\s+(bench/[\w./-]+\.py)")
BARE_FILE = re.compile(r"\w+\.py")
RUN_MODULE = re.compile(r"python\s+-m\s+(rag[\w.]*)")
PYTHON = frozenset({"python"})  # `import rag` and `from rag import x` are not commands
GLOBAL_OPTIONS_WITH_VALUE = {"--index", "--chroma-url"}
SHELL_SEPARATORS = {"|", "||", "&&", ">", "<", "2>"}


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def _code(text: str, *, skip_languages: frozenset[str] = frozenset()) -> list[str]:
    """Return the code a page quotes: fenced blocks (minus `skip_languages`), inline spans."""
    blocks = [body for lang, body in FENCE.findall(text) if lang not in skip_languages]
    prose = FENCE.sub("", text)
    return blocks + INLINE.findall(prose)


def _links(page: Path) -> list[str]:
    return [t for t in LINK.findall(FENCE.sub("", _text(page))) if "://" not in t]


def _rag_commands(code: str) -> list[str]:
    """Return the subcommand of every `rag ...` invocation in `code` (options skipped)."""
    found: list[str] = []
    for line in code.splitlines():
        tokens = line.split()
        for i, token in enumerate(tokens):
            if token != "rag" and not token.endswith("/bin/rag"):
                continue
            rest = iter(tokens[i + 1 :])
            for word in rest:
                if word in SHELL_SEPARATORS or word.endswith(";"):
                    break
                if word in GLOBAL_OPTIONS_WITH_VALUE:
                    next(rest, None)
                elif not word.startswith("-"):
                    if re.fullmatch(r"[a-z][a-z-]*", word):
                        found.append(word)
                    break
    return found


def _resolves(dotted: str) -> bool:
    """Whether `rag.x.y` is a module, or a name defined in the longest module prefix."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        try:
            spec = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            spec = None
        if spec is None or spec.origin is None:
            continue
        if cut == len(parts):
            return True
        source = Path(spec.origin).read_text(encoding="utf-8")
        return re.search(rf"\b{re.escape(parts[cut])}\b", source) is not None
    return False


def test_every_relative_link_resolves_to_a_file_without_an_anchor() -> None:
    checked = 0
    for page in [*PAGES, BENCH_README]:
        for target in _links(page):
            assert "#" not in target, f"{page.name}: link {target!r} has an anchor"
            path = (page.parent / target).resolve()
            assert path.is_relative_to(ROOT), f"{page.name}: {target!r} leaves the repository"
            assert path.exists(), f"{page.name}: link {target!r} points at nothing"
            checked += 1
    assert checked >= 30, f"only {checked} relative links found: is the link pattern broken?"


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {(ROOT / t).resolve() for t in _links(README)}
    assert len(DOCS) >= 9
    assert [p.name for p in DOCS if p.resolve() not in linked] == []


def test_every_rag_command_quoted_in_the_readme_and_docs_exists() -> None:
    known = set(cli.commands)
    readme = [
        c for code in _code(_text(README), skip_languages=PYTHON) for c in _rag_commands(code)
    ]
    assert len(readme) >= 8 and {"ask", "search", "cite", "ingest"} <= set(readme)
    assert sorted(set(readme) - known) == [], "README quotes commands rag does not have"
    for page in DOCS:
        quoted = [
            c for code in _code(_text(page), skip_languages=PYTHON) for c in _rag_commands(code)
        ]
        assert sorted(set(quoted) - known) == [], f"{page.name} quotes commands rag does not have"


def test_the_command_check_would_catch_a_wrong_command() -> None:
    # The parser must see through options and the venv path, or the test above passes vacuously.
    assert _rag_commands("$ .venv/bin/rag --index idx -v config x") == ["config"]
    assert _rag_commands("rag --version; eval $(_RAG_COMPLETE=bash_source rag)") == []
    assert "config" not in cli.commands


def test_every_bench_script_and_module_quoted_exists() -> None:
    scripts: list[str] = []
    modules: list[str] = []
    for page in [*PAGES, BENCH_README]:
        for code in _code(_text(page)):
            scripts += BENCH_RUN.findall(code)
            modules += RUN_MODULE.findall(code)
    assert len(scripts) >= 30, f"only {len(scripts)} bench commands found"
    assert sorted({s for s in scripts if not (ROOT / s).is_file()}) == []
    assert "rag.index.onnx_export" in modules
    assert [m for m in modules if importlib.util.find_spec(m) is None] == []


def test_every_repository_path_quoted_in_the_docs_exists() -> None:
    paths: list[tuple[str, str]] = []
    for page in [*PAGES, BENCH_README]:
        for code in _code(_text(page)):
            paths += [(page.name, p.rstrip(".,:;")) for p in REPO_PATH.findall(code)]
    assert len(paths) >= 100, f"only {len(paths)} paths found"
    missing = sorted({f"{page}: {p}" for page, p in paths if not (ROOT / p).exists()})
    assert missing == [], "paths that are not in the tree:\n" + "\n".join(missing)


def test_every_bare_file_name_quoted_in_the_docs_is_in_the_tree() -> None:
    # Tables name modules by file (`compose.py` in the `rag/answer/` row): each must exist.
    tree = {p.name for p in ROOT.rglob("*.py") if ".venv" not in p.parts}
    names = {c for page in PAGES for c in INLINE.findall(_text(page)) if BARE_FILE.fullmatch(c)}
    assert {"compose.py", "registry.py", "app.py"} <= names
    assert sorted(names - tree) == []


def test_every_module_name_quoted_in_the_docs_resolves() -> None:
    names: set[str] = set()
    for page in PAGES:
        for code in _code(_text(page)):
            names |= {m for m in MODULE.findall(code) if not m.endswith((".toml", ".py", ".md"))}
    assert {"rag.index.onnx_export", "rag.llamaindex", "rag.Filters"} <= names
    assert sorted(n for n in names if not _resolves(n)) == []
    assert not _resolves("rag.onnx_export")  # the flat layout's name: the check can fail


def test_readme_is_short_and_every_docs_page_reads_in_one_sitting() -> None:
    lines = len(_text(README).splitlines())
    assert 50 <= lines <= 250, f"README.md has {lines} lines"
    long = {p.name: n for p in DOCS if (n := len(_text(p).splitlines())) > 200}
    assert long == {}, f"split these pages: {long}"


def test_bench_readme_lists_every_bench_script() -> None:
    scripts = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("bench/*/*.py"))
    assert len(scripts) >= 20
    listed = _text(BENCH_README)
    assert [s for s in scripts if f"`{s}`" not in listed] == []
