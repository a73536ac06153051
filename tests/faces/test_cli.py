"""The CLI through Click's runner: JSON shapes, batch questions, errors as one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rag.cli import EXIT_PARTIAL, cli
from rag.index.paper_index import Index

PAPER_FIELDS = {
    "id",
    "rank",
    "score",
    "authors",
    "area",
    "title",
    "label",
    "citation_key",
    "snippet",
}


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def invoke(runner: CliRunner, index: Index | Path, *args: str):  # type: ignore[no-untyped-def]
    folder = index.dir if isinstance(index, Index) else index
    return runner.invoke(cli, ["--index", str(folder), *args], catch_exceptions=False)


def test_no_index_says_to_ingest_and_exits_1(runner: CliRunner, tmp_path: Path) -> None:
    result = invoke(runner, tmp_path / "none", "search", "graphs")
    assert result.exit_code == 1
    assert "rag ingest seeds/" in result.output
    assert "Traceback" not in result.output


def test_env_selects_the_index(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAG_INDEX_DIR", str(tmp_path / "from-env"))
    result = runner.invoke(cli, ["list"])
    assert result.exit_code == 1 and "from-env" in result.output


def test_bad_config_value_is_one_line(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "rag.toml").write_text("top_kk = 3\n")
    result = runner.invoke(cli, ["--index", str(tmp_path), "list"])
    assert result.exit_code == 1 and "top_kk" in result.output


def test_ask_needs_a_question(runner: CliRunner, tmp_path: Path) -> None:
    result = invoke(runner, tmp_path, "ask")
    assert result.exit_code == 2 and "QUESTION or --questions" in result.output


@pytest.mark.slow
def test_search_json_shape(runner: CliRunner, real_seed_index: Index) -> None:
    result = invoke(
        runner, real_seed_index, "search", "noisy labels on graphs", "--json", "-k", "3"
    )
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)
    assert len(hits) == 3 and [h["rank"] for h in hits] == [1, 2, 3]
    assert set(hits[0]) >= PAPER_FIELDS
    assert hits[0]["authors"][0] == "Wei Ju" and hits[0]["area"] is None
    assert hits[0]["title"] is None and hits[0]["label"]


@pytest.mark.slow
def test_no_paper_sharing_a_word_is_said_not_left_blank(
    runner: CliRunner, real_seed_index: Index
) -> None:
    # stop 62's blind re-trial: `search` printed nothing, `ask` an empty "Nearest papers:"
    off_topic = "who won the Tour de France in 2019?"
    found = invoke(runner, real_seed_index, "search", "--retriever", "bm25", off_topic)
    assert found.exit_code == 0 and "No paper matches these words." in found.output
    said = invoke(runner, real_seed_index, "ask", "--retriever", "bm25", off_topic)
    assert said.exit_code == 0, said.output
    assert "Nearest papers:" not in said.output and "listed below" not in said.output
    assert "No paper searched came near enough to be listed." in said.output


@pytest.mark.slow
def test_list_json_has_every_paper(runner: CliRunner, real_seed_index: Index) -> None:
    result = invoke(runner, real_seed_index, "list", "--json")
    papers = json.loads(result.output)
    assert len(papers) == 40
    assert PAPER_FIELDS - {"rank", "score", "snippet"} <= set(papers[0])


@pytest.mark.slow
def test_ask_prints_answer_and_references(runner: CliRunner, real_seed_index: Index) -> None:
    result = invoke(
        runner,
        real_seed_index,
        "ask",
        "--backend",
        "extractive",
        "Which papers deal with noisy labels on graphs?",
    )
    assert result.exit_code == 0, result.output
    answer, _, refs = result.output.partition("References:")
    assert "[1]" in answer
    assert "[1] Ju et al. — ICGNN* · Wei Ju, Wei Zhang" in refs


@pytest.mark.slow
def test_ask_questions_file_writes_json_lines(
    runner: CliRunner, real_seed_index: Index, tmp_path: Path
) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        '{"question": "Which papers deal with noisy labels on graphs?"}\n'
        '{"question": "sourdough bread recipe"}\n'
    )
    result = invoke(
        runner,
        real_seed_index,
        "ask",
        "--backend",
        "extractive",
        "--questions",
        str(questions),
        "--json",
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [a["abstained"] for a in lines] == [False, True]
    assert lines[0]["citations"][0]["authors"][0] == "Wei Ju"
    assert {"answer", "citations", "abstained", "backend", "timings"} <= set(lines[0])


@pytest.mark.slow
def test_questions_file_bad_line_is_named(
    runner: CliRunner, real_seed_index: Index, tmp_path: Path
) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"question": "graphs"}\n{"q": "oops"}\n')
    result = invoke(runner, real_seed_index, "ask", "--questions", str(questions))
    assert result.exit_code == 1 and f"{questions}:2" in result.output


@pytest.mark.slow
def test_filter_matching_nothing_is_an_error(runner: CliRunner, real_seed_index: Index) -> None:
    result = invoke(runner, real_seed_index, "search", "graphs", "--author", "Nobody Atall")
    assert result.exit_code == 1 and "No paper in the index matches" in result.output


@pytest.mark.slow
def test_ingest_reports_bad_file_and_exits_partial(
    runner: CliRunner, seeds_copy: Path, tmp_path: Path
) -> None:
    (seeds_copy / "bad.jsonl").write_text('{"abstract": \n')
    result = invoke(runner, tmp_path / "idx", "ingest", str(seeds_copy))
    assert result.exit_code == EXIT_PARTIAL
    assert "40 added" in result.output and "bad.jsonl:1" in result.output
    again = invoke(runner, tmp_path / "idx", "ingest", str(seeds_copy))
    assert "0 added" in again.output and "40 unchanged" in again.output


@pytest.mark.slow
def test_ask_format_bibtex_prints_the_answers_references(
    runner: CliRunner, real_seed_index: Index
) -> None:
    import bibtexparser

    result = invoke(
        runner,
        real_seed_index,
        "ask",
        "--backend",
        "extractive",
        "--format",
        "bibtex",
        "Which papers deal with noisy labels on graphs?",
    )
    assert result.exit_code == 0, result.output
    library = bibtexparser.parse_string(result.stdout)
    assert [e.key for e in library.entries] == ["ju_icgnn"]
    assert "title" not in library.entries[0].fields_dict  # the seeds have no titles


@pytest.mark.slow
def test_eval_on_a_tiny_beir_folder(runner: CliRunner, tmp_path: Path) -> None:
    data = tmp_path / "tiny"
    (data / "qrels").mkdir(parents=True)
    docs = {"d1": "graph neural networks with noisy labels", "d2": "sourdough bread baking"}
    (data / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": "", "text": t}) + "\n" for i, t in docs.items())
    )
    (data / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "noisy graph labels"}))
    (data / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    run = tmp_path / "run.txt"
    result = invoke(runner, tmp_path / "idx", "eval", str(data), "--json", "--run-out", str(run))
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)
    assert metrics["nDCG@10"] == 1.0 and metrics["MRR@10"] == 1.0 and metrics["queries"] == 1
    assert run.read_text().split()[:4] == ["q1", "Q0", "d1", "1"]


def test_eval_names_the_missing_file(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = invoke(runner, tmp_path / "idx", "eval", str(tmp_path / "empty"))
    assert result.exit_code == 1 and "corpus.jsonl" in result.output
