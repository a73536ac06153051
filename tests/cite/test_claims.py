"""Citation lookup: claim → supporting papers, and a draft paragraph with citations inserted.

The fast tests use the fake embedding (its scores are lower than MiniLM's, so they pass their
own `min_score`); the slow ones use the real model and the calibrated MIN_SCORE.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import bibtexparser
import numpy as np
import pytest
from click.testing import CliRunner

from rag.cite.claims import MIN_SCORE, _Scorer, citation_command, cite, cite_draft, find_paper
from rag.cli import cli
from rag.errors import ConfigError, PaperNotFoundError
from rag.index.paper_index import Index
from rag.ingest.pipeline import ingest

DATA = Path(__file__).parents[1] / "data"
FAKE_MIN = 0.35  # the fake embedding's cosines run lower than MiniLM's

DRAFT = (
    "Graph neural networks are fragile when node labels are noisy, but mislabeled nodes can be\n"
    "found from how a node's influence contradicts its neighbours under graph diffusion. Fairness\n"
    "constraints need rethinking for overparameterized models: fair empirical risk minimization\n"
    "only works once the constraint allows bias overcompensation. Several groups now train\n"
    "foundation models on neuronal calcium traces and transfer them to forecasting and decoding.\n"
    "Our own interest in these questions began with a survey of hospital records.\n"
)
DRAFT_KEYS = ["ju_icgnn", "mai", "xu_calm", None]


@pytest.fixture
def seeded(fake_index: Index, seeds_copy: Path) -> Index:
    ingest([seeds_copy], fake_index)
    return fake_index


def _strip_citations(text: str) -> str:
    return re.sub(r"~\\cite\{[^}]*\}| \[@[^\]]*\]", "", text)


def test_claim_finds_the_paper_and_its_matching_sentence(seeded: Index) -> None:
    claim = "noisy labels on graphs detected with an influence contradiction score"
    result = cite(seeded, claim, min_score=FAKE_MIN)
    top = result.supports[0]
    assert top.paper.citation_key == "ju_icgnn" and top.rank == 1
    assert "influence contradiction score" in top.sentence
    assert top.sentence in top.paper.abstract
    assert top.score == pytest.approx((top.sentence_score + top.passage_score) / 2)
    assert all(s.score >= FAKE_MIN for s in result.supports)


def test_unsupported_claim_gets_no_paper_but_a_nearest(seeded: Index) -> None:
    result = cite(seeded, "Sourdough bread rises because wild yeast ferments the dough.")
    assert result.supports == ()
    assert result.nearest is not None and result.nearest.score < MIN_SCORE
    assert result.to_dict()["supports"] == []


def test_draft_gets_keys_before_the_final_period(seeded: Index) -> None:
    cited = cite_draft(seeded, DRAFT, min_score=FAKE_MIN)
    assert [s.supports[0].paper.citation_key if s.supports else None for s in cited.sentences] == (
        DRAFT_KEYS
    )
    assert "under graph diffusion~\\cite{ju_icgnn}. Fairness" in cited.text
    assert "bias overcompensation~\\cite{mai}." in cited.text
    assert cited.text.endswith("survey of hospital records.\n")  # nothing good enough: no cite
    assert _strip_citations(cited.text) == DRAFT  # the rest of the text is untouched
    assert [p.citation_key for p in cited.papers] == ["ju_icgnn", "mai", "xu_calm"]


def test_pandoc_style(seeded: Index) -> None:
    cited = cite_draft(seeded, DRAFT, style="pandoc", min_score=FAKE_MIN)
    assert "under graph diffusion [@ju_icgnn]. Fairness" in cited.text
    assert _strip_citations(cited.text) == DRAFT


def test_citation_commands() -> None:
    assert citation_command(["a", "b"], "latex") == "\\cite{a,b}"
    assert citation_command(["a", "b"], "pandoc") == "[@a; @b]"


def test_sentences_already_citing_and_fragments_are_left_alone(seeded: Index) -> None:
    draft = (
        "Related work.\n\nNoisy labels on graphs are detected with an influence contradiction"
        " score~\\cite{mine}. Noisy labels on graphs are detected with an influence"
        " contradiction score [@other]."
    )
    cited = cite_draft(seeded, draft, min_score=FAKE_MIN)
    assert cited.text == draft
    heading, latex, pandoc = cited.sentences
    assert heading.nearest is None and latex.already_cited and pandoc.already_cited


def test_paragraphs_are_split_at_blank_lines(seeded: Index) -> None:
    draft = "Background on graphs\n\nNoisy labels on graphs are detected with influence scores."
    cited = cite_draft(seeded, draft, min_score=FAKE_MIN)
    assert [s.text for s in cited.sentences] == [
        "Background on graphs",
        "Noisy labels on graphs are detected with influence scores.",
    ]


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda ix: cite(ix, "   "), "claim is empty"),
        (lambda ix: cite(ix, "graphs", k=0), "-k must be at least 1"),
        (lambda ix: cite_draft(ix, "\n\n"), "draft is empty"),
        (lambda ix: cite_draft(ix, "A sentence here.", style="mla"), "latex or pandoc"),
    ],
)
def test_bad_input_is_a_config_error(seeded: Index, call, words: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match=words):
        call(seeded)


def test_find_paper_by_key_id_or_prefix(seeded: Index) -> None:
    paper = find_paper(seeded, "ju_icgnn")
    assert find_paper(seeded, "JU_ICGNN") == paper
    assert find_paper(seeded, paper.id) == paper
    assert find_paper(seeded, paper.id[:8]) == paper
    with pytest.raises(PaperNotFoundError, match=r"'ju_icgn'.*did you mean ju_icgnn\?.*rag list"):
        find_paper(seeded, "ju_icgn")


# -- with the real embedding model


@pytest.mark.slow
def test_draft_cites_each_paraphrase_with_its_own_paper(real_seed_index: Index) -> None:
    draft = (
        "Learning on graphs with corrupted annotations is an active topic: one line of work "
        "flags mislabeled nodes by how strongly their influence contradicts their neighbours "
        "under graph diffusion. In mechanism design, letting the payment of affine maximizer "
        "auctions depend on correlated bidder valuations raises revenue while keeping "
        "incentive compatibility. For compressing large language models, choosing SVD ranks "
        "globally across all weight matrices works better than a uniform rank per matrix. "
        "Deep BSDE solvers for high-dimensional PDEs suffer from a loss bias introduced by "
        "the Euler-Maruyama time discretization. Finally, we collected our own survey data "
        "from three hospitals in 2019."
    )
    cited = cite_draft(real_seed_index, draft)
    keys = [[s.paper.citation_key for s in sentence.supports] for sentence in cited.sentences]
    assert keys == [["ju_icgnn"], ["sun_caama"], ["abbasi_zssvd"], ["seo"], []]
    assert cited.text.count("\\cite{") == 4
    assert cited.text.endswith("from three hospitals in 2019.")


def _calibration(index: Index) -> tuple[dict[str, dict[str, float]], float]:
    """Recompute the table in rag/cite.py from tests/data/cite_calibration.json.

    Returns:
        Per threshold, the share of paraphrases whose own paper is cited first and the share
        of unsupported claims that get a citation; and the best score of an off-topic claim.
    """
    data = json.loads((DATA / "cite_calibration.json").read_text(encoding="utf-8"))
    scorer = _Scorer(index, None)
    table: dict[str, dict[str, float]] = {}
    off_topic = 0.0
    for split in ("dev", "heldout"):
        keys, claims = zip(*data[split]["paraphrases"].items(), strict=True)
        paraphrased = [ranked[0] for ranked in scorer.rank(list(claims))]
        unsupported = [ranked[0].score for ranked in scorer.rank(data[split]["unsupported"])]
        if split == "dev":
            off_topic = max(unsupported[:10])  # the first ten: coral reefs, bread, history...
        for threshold in (0.45, 0.50, 0.55, 0.60):
            right = [
                b.paper.citation_key == k and b.score >= threshold
                for k, b in zip(keys, paraphrased, strict=True)
            ]
            wrong = [score >= threshold for score in unsupported]
            row = table.setdefault(f"{threshold:.2f}", {})
            row[f"{split} cited"] = float(np.mean(right))
            row[f"{split} unsupported cited"] = float(np.mean(wrong))
    return table, off_topic


@pytest.mark.slow
def test_min_score_is_calibrated(real_seed_index: Index) -> None:
    table, off_topic = _calibration(real_seed_index)
    for threshold, row in table.items():
        print(threshold, {k: round(v, 3) for k, v in row.items()}, f"off-topic max {off_topic:.2f}")
    at = table[f"{MIN_SCORE:.2f}"]
    assert at["dev cited"] >= 38 / 40 and at["dev unsupported cited"] <= 3 / 30
    assert at["heldout cited"] >= 13 / 16
    assert off_topic < 0.3


@pytest.mark.slow
def test_cli_cite_claim_json_and_bibtex(real_seed_index: Index) -> None:
    runner = CliRunner()
    claim = "Mislabeled nodes can be found from graph diffusion influence scores."
    args = ["--index", str(real_seed_index.dir), "cite", claim]
    result = runner.invoke(cli, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["supports"][0]["citation_key"] == "ju_icgnn"
    assert data["supports"][0]["sentence"] in data["supports"][0]["abstract"]
    assert data["min_score"] == MIN_SCORE
    bib = runner.invoke(cli, [*args, "--format", "bibtex"], catch_exceptions=False)
    assert bibtexparser.parse_string(bib.output).entries[0].key == "ju_icgnn"


@pytest.mark.slow
def test_cli_draft_to_latex_and_bib(real_seed_index: Index, tmp_path: Path) -> None:
    (tmp_path / "draft.tex").write_text(DRAFT, encoding="utf-8")
    out = tmp_path / "refs.bib"
    args = ["cite", "--draft", str(tmp_path / "draft.tex"), "--bib", str(out)]
    result = CliRunner().invoke(
        cli, ["--index", str(real_seed_index.dir), *args], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "graph diffusion~\\cite{ju_icgnn}." in result.stdout
    assert "sentence 4: no citation" in result.stderr
    library = bibtexparser.parse_string(out.read_text(encoding="utf-8"))
    assert library.failed_blocks == []
    assert [e.key for e in library.entries] == ["ju_icgnn", "mai", "xu_calm"]
    # The stance judge is off: a sentence cites the paper closest to its topic, which may
    # refute it (Panchal et al. for "zero-order is more accurate than backprop"), and the
    # draft said nothing of it while the `.bib` was written.
    assert "was not checked (the stance judge is off" in result.stderr
    assert "\\cite" not in result.stderr


@pytest.mark.slow
def test_cli_cite_does_not_head_unjudged_matches_as_support(real_seed_index: Index) -> None:
    # With the stance judge off (the default), "Supports:" stood over CPO for "DPO is always
    # equivalent to RLHF", which CPO's abstract proves false ("conditional rather than
    # universal"): a match on the claim's topic is not a paper that supports it.
    claim = "Direct preference optimization is always equivalent to RLHF."
    args = ["--index", str(real_seed_index.dir), "cite", claim]
    text = CliRunner().invoke(cli, args, catch_exceptions=False).output
    assert "[zhang_cpo]" in text
    assert "Supports:" not in text and "stance judge is off" in text.splitlines()[0]


@pytest.mark.slow
def test_cli_cite_says_no_unjudged_match_rather_than_no_support(real_seed_index: Index) -> None:
    # "No paper in the index supports this claim" stood over ConPress, which says just this
    # ("reduces reasoning token usage by 59% ... while maintaining competitive accuracy"): the
    # judge was off, so the score only said ConPress fell short of the bar.
    claim = "Chain-of-thought traces can be shortened without losing accuracy."
    args = ["--index", str(real_seed_index.dir), "cite", claim, "--min-score", "0.9"]
    text = CliRunner().invoke(cli, args, catch_exceptions=False).output
    assert "supports this claim" not in text
    assert "No paper in the index matches this claim" in text and "--min-score" in text


def test_cli_cite_needs_a_claim_or_a_draft(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--index", str(tmp_path), "cite"])
    assert result.exit_code == 2 and "CLAIM or --draft" in result.output
    result = CliRunner().invoke(cli, ["--index", str(tmp_path), "cite", "x", "--bib", "o.bib"])
    assert result.exit_code == 2 and "--bib goes with --draft" in result.output


@pytest.mark.slow
def test_cli_cite_says_a_claim_of_several_sentences_is_matched_as_one(
    real_seed_index: Index,
) -> None:
    # Before: two sentences came back with the papers of one of them and no word on the other.
    claim = "LLMs can check their proofs in Lean. Graph networks resist label noise."
    result = CliRunner().invoke(cli, ["--index", str(real_seed_index.dir), "cite", claim])
    assert result.exit_code == 0, result.output
    assert "the claim holds 2 sentences" in result.stderr
    assert "rag cite --draft -" in result.stderr
