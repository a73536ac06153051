"""Bad input: every bad file or record is named with its line, the good ones go in, memory
stays bounded (issue 7)."""

from __future__ import annotations

import json
import os
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from rag import api
from rag.cli import EXIT_PARTIAL, cli
from rag.errors import ConfigError
from rag.index.paper_index import Index
from rag.ingest.parsers import MAX_ERRORS_PER_FILE, detect_format, iter_path, parse_path, reading
from rag.ingest.parsers.limits import MAX_ABSTRACT_CHARS
from rag.records import Paper
from rag.settings import Settings
from tests.fake_embedding import FakeEmbedding

MB = 1024 * 1024


def _abstract(topic: str) -> str:
    return f"We study {topic} with a new method and report what it finds on three benchmarks."


def _huge_line_file(path: Path, megabytes: int, after: str = "") -> None:
    """Write one JSON line of `megabytes` MB (never closed), then `after`, in 1 MB blocks."""
    block = b"a" * MB
    with path.open("wb") as fh:
        fh.write(b'{"abstract": "')
        for _ in range(megabytes):
            fh.write(block)
        fh.write(b"\n" + after.encode())


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[Path, list[str], dict[str, tuple[int | None, str]]]:
    """A folder of good and bad files: the folder, the good abstracts, file → (line, words)."""
    folder = (tmp_path / "library").resolve()
    folder.mkdir()
    good: list[str] = []
    bad: dict[str, tuple[int | None, str]] = {}

    (folder / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 100)
    bad["binary.txt"] = (None, "binary file")
    (folder / "empty.jsonl").write_bytes(b"")
    bad["empty.jsonl"] = (None, "the file is empty")

    lines = [json.dumps({"abstract": _abstract(t), "authors": ["Ada Lovelace"]}) for t in "ABC"]
    good += [_abstract(t) for t in "ABC"]
    (folder / "mixed.jsonl").write_bytes(
        b"\n".join(
            [
                lines[0].encode(),
                b'{"abstract": "caf\xe9 au lait"}',
                lines[1].encode(),
                b'{"abstract": "cut off in the mid',
                lines[2].encode(),
            ]
        )
        + b"\n"
    )
    bad["mixed.jsonl:2"] = (2, "invalid UTF-8 at byte 18 of the line")
    bad["mixed.jsonl:4"] = (4, "invalid JSON")

    (folder / "absurd.jsonl").write_text(
        "\n".join(
            [
                json.dumps({"abstract": "a" * 1_000_000, "authors": ["Ada Lovelace"]}),
                json.dumps(
                    {"abstract": _abstract("D"), "authors": [f"A{i}" for i in range(10_000)]}
                ),
                json.dumps({"abstract": _abstract("E"), "title": "T" * 6000}),
                json.dumps(
                    {"abstract": _abstract("F"), "authors": [f"A{i}" for i in range(3_000)]}
                ),
            ]
        ),
        encoding="utf-8",
    )
    good.append(_abstract("F"))  # a real collaboration paper's 3,000 authors are fine
    bad["absurd.jsonl:1"] = (1, "abstract is 1,000,000 characters, more than 20,000")
    bad["absurd.jsonl:2"] = (2, "10,000 authors, more than 5,000")
    bad["absurd.jsonl:3"] = (3, "title is 6,000 characters, more than 2,000")

    after = json.dumps({"abstract": _abstract("G")}) + "\n"
    _huge_line_file(folder / "huge-line.jsonl", 100, after)
    good.append(_abstract("G"))
    bad["huge-line.jsonl"] = (1, "line 1 is longer than 8 MB: skipped")

    (folder / "refs.bib").write_text(
        "@article{turing1950,\n  author = {Alan Turing},\n  title = {Computing Machinery},\n"
        f"  abstract = {{{_abstract('H')}}},\n  year = {{1950}}\n}}\n",
        encoding="utf-8",
    )
    good.append(_abstract("H"))

    (folder / "table.csv").write_text(
        "title,authors,abstract\n"
        f'One,Ada Lovelace,"{_abstract("I")}"\n'
        f'Two,Ada Lovelace,"{"b" * 1_000_000}"\n'
        f'Three,Ada Lovelace,"{_abstract("J")}"\n',
        encoding="utf-8",
    )
    good += [_abstract("I"), _abstract("J")]
    bad["table.csv"] = (3, "a cell is longer than 131,072 characters")

    (folder / "page.txt").write_text(
        f"论文检索\n\nTheory · Learning\n\nAda Lovelace, Alan Turing\n\n{_abstract('K')}\n",
        encoding="utf-8",
    )
    good.append(_abstract("K"))

    # A folder that links back to its parent: walked once, its file read once.
    (folder / "nested").mkdir()
    (folder / "nested" / "inner.jsonl").write_text(json.dumps({"abstract": _abstract("L")}))
    os.symlink(folder, folder / "nested" / "up")
    good.append(_abstract("L"))
    return folder, good, bad


def _ingest(runner: CliRunner, index_dir: Path, folder: Path):  # type: ignore[no-untyped-def]
    return runner.invoke(cli, ["--index", str(index_dir), "ingest", str(folder)])


def test_bad_corpus_is_ingested_partially_naming_every_bad_file_and_line(
    corpus: tuple[Path, list[str], dict[str, tuple[int | None, str]]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("rag.index.paper_index.load_embedder", lambda *_, **__: FakeEmbedding())
    monkeypatch.setattr(
        "rag.index.paper_index.model_dimension", lambda _: None
    )  # ask the fake instead
    folder, good, bad = corpus
    runner = CliRunner()
    result = _ingest(runner, tmp_path / "idx", folder)
    assert result.exit_code == EXIT_PARTIAL, result.output
    for name, (line, words) in bad.items():
        where = f"{folder / name.split(':')[0]}" + (f":{line}" if line else "")
        assert f"skipped {where}: {words}" in result.output, name
    assert f"{len(bad)} problem(s) above" in result.output
    assert f"{len(good)} added" in result.output

    index = Index(Settings(index_dir=tmp_path / "idx"), FakeEmbedding())
    stored = Counter(p.abstract for p in index.papers.values())
    assert stored == Counter(good)

    again = _ingest(runner, tmp_path / "idx", folder)
    assert again.exit_code == EXIT_PARTIAL
    assert f"0 added, 0 moved, 0 removed, {len(good)} unchanged" in again.output
    reopened = Index(Settings(index_dir=tmp_path / "idx"), FakeEmbedding())
    assert Counter(p.abstract for p in reopened.papers.values()) == Counter(good)


def _peak_bytes(work: Callable[[], object]) -> int:
    """Run `work`; return the peak of Python allocations while it ran."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_100_mb_line_is_skipped_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    _huge_line_file(path, 100, json.dumps({"abstract": "after the long line"}) + "\n")
    results = []
    peak = _peak_bytes(lambda: results.append(parse_path(path)))
    (result,) = results
    assert [p.abstract for p in result.papers] == ["after the long line"]
    (error,) = result.errors
    assert (error.path, error.line) == (str(path), 1)
    assert error.reason == "line 1 is longer than 8 MB: skipped (is this a JSON lines file?)"
    assert peak < 32 * MB


def test_a_line_at_the_cap_is_read_and_one_byte_more_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "MAX_LINE_BYTES", 64)
    at_cap = json.dumps({"abstract": "x"}).ljust(63) + "\n"  # 64 bytes with its newline
    over = json.dumps({"abstract": "y"}).ljust(65) + "\n"
    path = tmp_path / "edge.jsonl"
    path.write_text(at_cap + over + at_cap.replace("x", "z") + over.rstrip("\n"))
    result = parse_path(path)
    assert [p.abstract for p in result.papers] == ["x", "z"]
    assert [e.line for e in result.errors] == [2, 4]
    assert all("is longer than" in e.reason for e in result.errors)


def test_a_large_jsonl_file_streams(tmp_path: Path) -> None:
    path = tmp_path / "large.jsonl"
    # Bulk in a field no parser looks at keeps the file large and the test fast.
    bulk = "x" * 1500
    with path.open("w", encoding="utf-8") as fh:
        for i in range(10_000):
            fh.write(json.dumps({"abstract": f"Paper {i}.", "authors": ["A B"], "x": bulk}) + "\n")
    assert path.stat().st_size > 14 * MB
    count = [0]

    def consume() -> None:
        for item in iter_path(path):
            assert isinstance(item, Paper)
            count[0] += 1

    peak = _peak_bytes(consume)
    assert count[0] == 10_000
    assert peak < 2 * MB


def _formats(abstract: str) -> dict[str, str]:
    """One record with `abstract` in each format, on line 2 of its file."""
    return {
        "p.jsonl": "\n" + json.dumps({"abstract": abstract}),
        "p.json": "[\n" + json.dumps({"abstract": abstract}) + "]",
        "arxiv.jsonl": "\n"
        + json.dumps(
            {
                "id": "2101.00001",
                "title": "T",
                "authors": "A B",
                "abstract": abstract,
                "categories": "cs.LG",
            }
        ),
        "p.csv": f"title,abstract\nT,{abstract}\n",
        "p.bib": f"\n@article{{k,\n  abstract = {{{abstract}}}\n}}\n",
        "p.txt": f"论文检索\nTheory · Learning\n\nAda Lovelace\n\n{abstract}\n",
    }


FORMAT_OF = {
    "p.jsonl": "jsonl",
    "p.json": "jsonl",
    "arxiv.jsonl": "arxiv",
    "p.csv": "csv",
    "p.bib": "bibtex",
    "p.txt": "seed",
}


@pytest.mark.parametrize("name", sorted(FORMAT_OF))
def test_every_format_rejects_an_abstract_over_the_cap(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(_formats("lorem " * 5000)[name], encoding="utf-8")
    assert detect_format(path) == FORMAT_OF[name]
    result = parse_path(path)
    assert result.papers == []
    (error,) = result.errors
    assert error.line == 2  # the record's first line (a seed entry's area line)
    assert error.reason.startswith("abstract is 29,999 characters, more than 20,000")
    assert "full text" in error.reason


@pytest.mark.parametrize("name", sorted(FORMAT_OF))
def test_every_format_accepts_an_abstract_at_the_cap(tmp_path: Path, name: str) -> None:
    abstract = ("lorem " * 4000)[: MAX_ABSTRACT_CHARS - 1] + "."
    path = tmp_path / name
    path.write_text(_formats(abstract)[name], encoding="utf-8")
    result = parse_path(path)
    assert result.errors == []
    assert [len(p.abstract) for p in result.papers] == [MAX_ABSTRACT_CHARS]


def test_a_seed_paragraph_of_many_lines_is_counted_not_kept(tmp_path: Path) -> None:
    path = tmp_path / "page.txt"
    wrapped = "\n".join(["a wrapped line of some long text"] * 100_000)
    second = f"C · D\n\nAlan Turing\n\n{_abstract('x')}\n"
    path.write_text(f"论文检索\n\nA · B\n\nAda Lovelace\n\n{wrapped}\n\n{second}")
    result = parse_path(path)
    assert [p.authors for p in result.papers] == [("Alan Turing",)]
    (error,) = result.errors
    assert error.line == 7
    assert error.reason.startswith("abstract is 3,299,999 characters, more than 20,000")


@pytest.mark.parametrize(
    ("name", "advice"),
    [("papers.json", "jq -c '.[]' papers.json > papers.jsonl"), ("refs.bib", "split it")],
)
def test_whole_document_formats_refuse_a_file_over_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, advice: str
) -> None:
    monkeypatch.setattr(reading, "MAX_DOCUMENT_BYTES", 2 * MB)
    path = tmp_path / name
    path.write_text(_formats("x " * 2 * MB)["p.json" if name.endswith("json") else "p.bib"])
    (error,) = parse_path(path).errors
    assert (error.path, error.line) == (str(path), None)
    assert "the file is 4 MB, more than the 2 MB read at once" in error.reason
    assert advice in error.reason


def test_a_long_line_in_a_csv_ends_the_file_there(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    with path.open("w", encoding="utf-8") as fh:
        fh.write(f"title,abstract\nT,{_abstract('ok')}\nU,")
        fh.write("y" * (9 * MB))
        fh.write(f"\nV,{_abstract('lost')}\n")
    result = parse_path(path)
    assert [p.abstract for p in result.papers] == [_abstract("ok")]
    (error,) = result.errors
    assert (error.line, error.reason) == (
        3,
        "line 3 is longer than 8 MB: the rest of the file is skipped (is this a CSV table?)",
    )


def test_invalid_utf8_in_a_seed_page_keeps_the_entries_before_it(tmp_path: Path) -> None:
    path = tmp_path / "page.txt"
    path.write_bytes(
        f"论文检索\n\nA · B\n\nAda Lovelace\n\n{_abstract('x')}\n\nC · D\n\n".encode()
        + b"Jos\xe9 P\xe9rez\n\nMore text.\n"
    )
    result = parse_path(path)
    assert [p.abstract for p in result.papers] == [_abstract("x")]
    (error,) = result.errors
    assert error.line == 11
    assert "invalid UTF-8 at byte 4 of the line, the rest of the file is skipped" in error.reason


def test_a_file_of_nothing_but_errors_stops_after_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "noise.jsonl"
    path.write_text("{not json\n" * 10_000)
    errors = parse_path(path).errors
    assert len(errors) == MAX_ERRORS_PER_FILE + 1
    assert errors[-1].reason.startswith(f"more than {MAX_ERRORS_PER_FILE} bad records")
    assert errors[-1].path == str(path)


@pytest.mark.parametrize("first_line", [70_000, 200_000])  # the cap is hit on line 3 or 1
def test_an_oversized_cell_over_several_lines_ends_the_file_there(
    tmp_path: Path, first_line: int
) -> None:
    # Starting afresh inside the long quoted cell would read its lines as rows: "Results,
    # Table 2, ..." must not become a paper titled "Results" by "Table 2".
    long_cell = ("x" * first_line + "\n") + "Results, Table 2, we observe that recall improves\n"
    long_cell += "y" * 70_000
    path = tmp_path / "t.csv"
    path.write_text(
        f'title,authors,abstract\nOne,Ada Lovelace,"{_abstract("ok")}"\n'
        f'Two,Ada Lovelace,"{long_cell}"\nThree,Ada Lovelace,"{_abstract("after")}"\n',
        encoding="utf-8",
    )
    result = parse_path(path)
    assert [p.abstract for p in result.papers] == [_abstract("ok")]
    (error,) = result.errors
    assert error.line == 3 and "the rest of the file is skipped" in error.reason
    assert "quote left open" in error.reason


def test_invalid_utf8_in_a_bib_file_with_a_bom_names_the_right_line(tmp_path: Path) -> None:
    path = tmp_path / "r.bib"
    path.write_bytes(b"\xef\xbb\xbf@article{x,\n  abstract = {caf\xe9}\n}\n")
    (error,) = parse_path(path).errors
    assert error.line == 2 and "invalid UTF-8" in error.reason


def test_an_ingest_that_skips_every_file_is_an_error_not_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("rag.index.paper_index.load_embedder", lambda *_, **__: FakeEmbedding())
    monkeypatch.setattr("rag.index.paper_index.model_dimension", lambda _: None)
    missing = tmp_path / "nope.bib"
    result = _ingest(CliRunner(), tmp_path / "idx", missing)
    assert result.exit_code == 1, result.output
    assert f"skipped {missing}: no such file" in result.output
    assert "0 added" in result.output


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["ask", "--questions", "nope.txt"], "'--questions': File 'nope.txt' does not exist"),
        (["ask", "   "], "QUESTION is empty"),
        (["search", ""], "QUERY is empty"),
        (["ask", ""], "QUESTION is empty"),  # before: "Give either a QUESTION or --questions"
        # before: no paper listed, exit 0; and -3 taken without a word
        (["search", "-k", "0", "graphs"], "0 is not in the range x>=1"),
        (["ask", "-k", "-3", "graphs"], "-3 is not in the range x>=1"),
        (["similar", "-k", "0", "ju_icgnn"], "0 is not in the range x>=1"),
    ],
)
def test_a_missing_questions_file_or_an_empty_question_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], words: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--index", str(tmp_path / "idx"), *args])
    assert result.exit_code == 2, result.output
    assert words in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    "call",
    [
        lambda index: api.search("graphs", index=index, k=-3),  # before: 37 papers
        lambda index: api.search("graphs", index=index, k=0),  # before: none, without a word
        lambda index: api.ask("graphs", index=index, top_k=0, backend=None),  # before: answered
        lambda index: api.cite("Graphs help.", index=index, k=0),
        lambda index: api.similar("x", index=index, k=-1),
    ],
)
def test_the_api_names_a_number_of_papers_below_one(
    seed_index: Index, call: Callable[[Index], object]
) -> None:
    with pytest.raises(ConfigError, match="1 or more"):
        call(seed_index)


def test_the_api_takes_any_whole_number_of_papers(seed_index: Index) -> None:
    import numpy as np

    assert len(api.search("graphs", index=seed_index, k=np.int64(2))) == 2  # a slider's value
