"""The README's command-line session is what the CLI prints today over the seeds.

The README calls it "real output"; a change of sentence choice once left its `rag cite` quote
stale without any test noticing. Each `$ .venv/bin/rag ...` command of its console blocks is
run on the real seed index (`--index` added, as the README says), and its output must match the
README's line by line: a line "..." stands for the rest of the output, a `cat FILE` block gives
the file a later command reads, and numbers may differ by 0.002 (embeddings differ in their last
bits from one CPU to another).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from rag.cli import cli
from rag.index.paper_index import Index
from tests.conftest import ROOT

CONSOLE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)
NUMBER = re.compile(r"-?\d+\.\d+")
TOLERANCE = 0.002


def session() -> list[tuple[list[str], list[str]]]:
    """Return every (command words, expected output lines) of the README's console blocks."""
    steps: list[tuple[list[str], list[str]]] = []
    for block in CONSOLE.findall((ROOT / "README.md").read_text(encoding="utf-8")):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((shlex.split(line[2:]), []))
            elif steps:
                steps[-1][1].append(line)
    return [(words, _trim(lines)) for words, lines in steps]


def _trim(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def same_line(want: str, got: str) -> bool:
    """Equal text, and numbers equal within `TOLERANCE`."""
    if NUMBER.sub("#", want) != NUMBER.sub("#", got):
        return False
    pairs = zip(NUMBER.findall(want), NUMBER.findall(got), strict=True)
    return all(abs(float(a) - float(b)) <= TOLERANCE for a, b in pairs)


def mismatch(want: list[str], got: list[str]) -> str | None:
    """Return the first difference of `got` from `want` ("..." ends the comparison)."""
    for i, line in enumerate(want):
        if line == "...":
            return None
        if i >= len(got):
            return f"line {i + 1}: README has {line!r}, output ended"
        if not same_line(line, got[i]):
            return f"line {i + 1}: README has {line!r}, output has {got[i]!r}"
    if len(got) > len(want):
        return f"line {len(want) + 1}: output goes on with {got[len(want)]!r}"
    return None


def test_the_session_is_read_whole() -> None:
    commands = [" ".join(words[:2]) for words, _ in session()]
    assert commands.count(".venv/bin/rag ask") == 2
    assert commands.count(".venv/bin/rag cite") == 2
    assert "cat draft.tex" in commands
    assert mismatch(["a 0.500", "..."], ["a 0.501", "b"]) is None
    assert mismatch(["a 0.500"], ["a 0.510"]) is not None
    assert mismatch(["a"], ["a", "b"]) is not None


@pytest.mark.slow
def test_the_readme_session_is_what_the_cli_prints(
    real_seed_index: Index, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # where `cite --draft draft.tex --bib refs.bib` reads and writes
    runner = CliRunner()
    checked = 0
    for words, want in session():
        if words[:1] == ["cat"]:
            Path(words[1]).write_text("\n".join(want) + "\n", encoding="utf-8")
            continue
        assert words[0].endswith("bin/rag"), words
        result = runner.invoke(
            cli, ["--index", str(real_seed_index.dir), *words[1:]], catch_exceptions=False
        )
        assert result.exit_code == 0, (words, result.output)
        problem = mismatch(want, _trim(result.output.splitlines()))
        assert problem is None, f"{' '.join(words)}: {problem}"
        checked += 1
    assert checked == 5
