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
    return {m.name for m in pkgutil.iter_modules(rag.__path__)}


def test_no_public_name_is_also_a_submodule() -> None:
    # Importing `rag.x` sets the package attribute `x` to the module, hiding a function `x`.
    clashes = sorted(set(rag.__all__) & _submodules())
    assert clashes == [], f"rename these modules to _name.py: {clashes}"


def test_public_names_survive_every_submodule_being_imported() -> None:
    for name in _submodules():
        importlib.import_module(f"rag.{name}")
    for name in rag.__all__:
        value = getattr(rag, name)
        assert callable(value), f"rag.{name} is {value!r} once the submodules are imported"


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
