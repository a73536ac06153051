"""The package shows the pipeline: stages import only stages below them, and no module cycles.

Every import in `rag/` counts, those inside functions too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import rag

PACKAGE = Path(rag.__file__).resolve().parent

# Lowest first. A module may import its own stage and any stage on a lower line; stages on the
# same line know nothing of each other (the shared ground's modules are one stage).
STAGES: list[set[str]] = [
    {"rag.errors", "rag.settings", "rag.records", "rag.text", "rag.prompts"},  # shared ground
    {"rag.backends", "rag.index"},
    {"rag.ingest", "rag.stance"},
    {"rag.answer", "rag.cite"},
    {"rag.api", "rag.evaluation"},
    {"rag.mcp", "rag.ui", "rag.llamaindex"},
    {"rag.cli"},  # the command line starts the other faces (`rag serve`, `rag mcp`)
]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(name: str) -> set[str]:
    """Return the `rag` modules `name` imports (a `from pkg import mod` counts as `pkg.mod`)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {m for m in found if m in MODULES and m != name}


def stage_of(name: str) -> int | None:
    for level, stage in enumerate(STAGES):
        if any(name == s or name.startswith(s + ".") for s in stage):
            return level
    return None


def stage_name(name: str) -> str:
    return next(s for stage in STAGES for s in stage if name == s or name.startswith(s + "."))


def test_every_module_belongs_to_a_stage() -> None:
    homeless = sorted(m for m in MODULES if m != "rag" and stage_of(m) is None)
    assert homeless == [], f"put these in a stage (and in STAGES): {homeless}"


def test_no_stage_imports_a_higher_or_sibling_stage() -> None:
    wrong = []
    for name in MODULES:
        if name == "rag":  # the package's lazy names point at the API on purpose
            continue
        for target in imports_of(name):
            if target == "rag":
                continue
            mine, theirs = stage_of(name), stage_of(target)
            assert mine is not None and theirs is not None
            sibling = theirs == mine and mine > 0 and stage_name(name) != stage_name(target)
            if theirs > mine or sibling:
                wrong.append(f"{name} -> {target}")
    assert wrong == [], "imports against the stage order:\n" + "\n".join(sorted(wrong))


def test_no_import_cycles() -> None:
    graph = {name: imports_of(name) - {"rag"} for name in MODULES}
    # Tarjan's strongly connected components: any component of two or more is a cycle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for name in graph:
        if name not in index:
            visit(name)
    assert cycles == [], f"import cycles: {cycles}"


def test_the_checks_see_a_violation() -> None:
    # The walk must find imports at all, lazy ones included, or the tests above pass vacuously.
    assert "rag.index.paper_index" in imports_of("rag.api")
    assert "rag.ui.app" in imports_of("rag.cli.serving")  # imported inside the command
    assert stage_of("rag.answer.compose") == stage_of("rag.cite.claims") == 3
