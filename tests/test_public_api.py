"""The documented Python API keeps working after its first call (no name is also a submodule)."""

from __future__ import annotations

import importlib
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rag
from tests.conftest import ROOT, SEEDS


def _submodules() -> set[str]:
    """Every module under `rag`, nested ones included."""
    return {m.name for m in pkgutil.walk_packages(rag.__path__, prefix="rag.")}


def test_every_public_name_is_documented_and_callable() -> None:
    for name in rag.__all__:
        assert callable(getattr(rag, name)), f"rag.{name} is not callable"


def test_public_names_survive_every_submodule_being_imported() -> None:
    # Importing `rag.x` sets the package attribute `x` to the module; `rag.ingest` and
    # `rag.cite` are also stage packages, and must still be the functions afterwards.
    for name in sorted(_submodules()):
        importlib.import_module(name)
    for name in rag.__all__:
        value = getattr(rag, name)
        assert callable(value), f"rag.{name} is {value!r} once the submodules are imported"


# A user's script that imports a stage module before touching the API, in a fresh interpreter.
STAGES_FIRST = """
import sys
sys.path.insert(0, {root!r})
import rag.ingest.pipeline, rag.cite.claims, rag.cite.export, rag.cite.similar
from rag.ingest.parsers import parse_path
import rag
from rag import cite, export, ingest, similar
print(all(callable(f) for f in (rag.ingest, rag.cite, rag.export, rag.similar,
                                 cite, export, ingest, similar)))
"""


def test_public_names_are_functions_when_stage_modules_are_imported_first() -> None:
    done = subprocess.run(
        [sys.executable, "-c", STAGES_FIRST.format(root=str(ROOT))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "True"


def _readme_example() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Python API", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "README's Python API section has no python block"
    return match.group(1)


# Runs the README's example twice in one fresh interpreter, as a user pasting it twice would:
# the second round calls every function after its module was imported by the first.
TWICE = """
import sys
sys.path.insert(0, {root!r})
example = {example!r}
for round in (1, 2):
    print(f"--- round {{round}}")
    exec(compile(example, "README.md", "exec"), {{}})
"""


@pytest.mark.slow
def test_readme_python_example_runs_twice_in_one_interpreter(tmp_path: Path) -> None:
    shutil.copytree(SEEDS, tmp_path / "seeds")
    script = TWICE.format(root=str(ROOT), example=_readme_example())
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    first, second = done.stdout.split("--- round 2")
    first = first.removeprefix("--- round 1")
    assert first.strip() == second.strip()  # the same answer and references both times
    assert "ju_icgnn" in first  # the answer cites the paper on noisy labels on graphs
    assert "@misc{ju_icgnn" in first  # and the exported BibTeX holds it
