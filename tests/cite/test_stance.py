"""Stance: a paper that contradicts a claim is never offered, cited or shown as its support.

The fast tests use the fake embedding and a fake judge (a rule over words), so they test the
contract and the plumbing; the slow ones use the real MiniLM and the shipped stance model on
the `mai` seed abstract ("even though conventional fair ERM fails on overparameterized models,
this approach can be corrected ...").
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from rag.answer.pipeline import answer
from rag.cite.claims import cite, cite_draft
from rag.cli import cli
from rag.errors import ConfigError
from rag.index.paper_index import Index
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from rag.stance.judge import LABELS, Stance, StanceModel, decide
from tests.answer.test_answer import PromptAwareLLM

WORKS = "Conventional fair ERM works well for overparameterized models."
FAILS = "Conventional fair ERM fails on overparameterized models."
FAKE_MIN = 0.35  # the fake embedding's cosines run lower than MiniLM's


class WordJudge:
    """A fake judge: a paper contradicts a claim with "works" when a sentence says "fails"."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[list[str]]]] = []

    def judge(self, claim: str, papers: Sequence[Sequence[str]]) -> list[Stance]:
        self.calls.append((claim, [list(p) for p in papers]))
        out = []
        for sentences in papers:
            failing = [i for i, s in enumerate(sentences) if "fails" in s]
            if "works" in claim and failing:
                i = failing[0]
                out.append(Stance("contradicts", 0.0, 0.9, sentences[i], i))
            else:
                out.append(Stance("supports", 0.9, 0.0, sentences[0], 0))
        return out


@pytest.fixture
def seeded(fake_index: Index, seeds_copy: Path) -> Index:
    ingest([seeds_copy], fake_index)
    return fake_index


def test_decide_takes_the_strongest_sentence() -> None:
    sentences = ["background", "X fails", "X helps"]
    probabilities = np.array([[0.1, 0.1, 0.8], [0.05, 0.9, 0.05], [0.6, 0.1, 0.3]])
    bars = {"support_min": 0.5, "contradict_min": 0.5}
    st = decide(probabilities, sentences, **bars)
    assert (st.label, st.sentence, st.index) == ("contradicts", "X fails", 1)
    assert st.probability == pytest.approx(0.9)
    st = decide(probabilities[[0, 2]], ["background", "X helps"], **bars)
    assert (st.label, st.sentence) == ("supports", "X helps")
    st = decide(np.array([[0.2, 0.1, 0.7]]), ["background"], **bars)
    assert st.label == "neither" and st.probability == pytest.approx(0.8)
    assert decide(np.zeros((0, 3)), []).label == "neither"


def test_missing_model_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"lacks stance.onnx, tokenizer.json, stance.json"):
        StanceModel(tmp_path)


def test_contradicting_paper_is_listed_apart_and_never_as_support(seeded: Index) -> None:
    judge = WordJudge()
    result = cite(seeded, WORKS, min_score=FAKE_MIN, judge=judge)
    assert "mai" in [s.paper.citation_key for s in result.contradicts]
    assert "mai" not in [s.paper.citation_key for s in result.supports]
    (mai,) = [s for s in result.contradicts if s.paper.citation_key == "mai"]
    assert mai.stance == "contradicts" and "fails" in mai.sentence
    assert all(s.stance == "supports" for s in result.supports)
    data = json.loads(json.dumps(result.to_dict()))
    assert {"supports", "contradicts", "nearest"} <= set(data)
    assert data["contradicts"][0]["stance"] == "contradicts"
    assert data["contradicts"][0]["sentence"] in data["contradicts"][0]["abstract"]
    # The judge reads the claim with the paper's closest sentences, at most six.
    assert all(len(p) <= 6 for _, papers in judge.calls for p in papers)


def test_draft_never_cites_a_contradicting_paper(seeded: Index) -> None:
    draft = f"Graph neural networks are robust to label noise. {WORKS}"
    cited = cite_draft(seeded, draft, min_score=FAKE_MIN, judge=WordJudge())
    second = cited.sentences[1]
    assert "mai" in [s.paper.citation_key for s in second.contradicts]
    assert "mai" not in [s.paper.citation_key for s in second.supports]
    assert "mai" not in [p.citation_key for p in cited.papers]  # nor in the bibliography
    assert "\\cite{mai" not in cited.text and ",mai" not in cited.text
    assert cited.to_dict()["contradictions"][0] == {"sentence": 2, "citation_key": "mai"}


def test_cite_my_draft_tab_shows_a_contradicts_badge(seeded: Index) -> None:
    from rag.ui import tabs as ui_tabs

    cited = cite_draft(seeded, WORKS, min_score=FAKE_MIN, judge=WordJudge())
    shown = ui_tabs.render_draft(cited)
    assert '<span class="badge">contradicts</span> <code>mai</code>' in shown
    assert "conventional fair ERM fails" in shown
    assert cited.stance_checked and "was not checked" not in shown
    # Without a judge, the tab says its citations were matched on topic alone.
    unjudged = cite_draft(seeded, WORKS, min_score=FAKE_MIN, judge="off")
    assert unjudged.papers and not unjudged.stance_checked
    assert "was not checked (the stance judge is off" in ui_tabs.render_draft(unjudged)


def test_ask_drops_a_sentence_its_cited_paper_contradicts(
    seeded: Index, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rag.answer.pipeline

    monkeypatch.setattr(rag.answer.pipeline, "judge_for", lambda *args: WordJudge())
    fake = settings.model_copy(update={"min_relevance": 0.1, "support_threshold": 0.3})
    llm = PromptAwareLLM()  # {MAI} becomes the source number of the mai paper
    llm.enqueue(f"{WORKS[:-1]} [{{MAI}}]. {FAILS[:-1]} [{{MAI}}].")
    question = "Does conventional fair ERM work for overparameterized models?"
    result = answer(seeded, question, settings=fake, backend=llm)
    assert "works well" not in result.answer
    (dropped,) = [s for s in result.sentences if "works well" in s["text"]]
    assert dropped["shown"] is False and dropped["reason"] == "contradicted"
    assert "fails on overparameterized models" in result.answer
    llm.enqueue(f"{WORKS[:-1]} [{{MAI}}].")
    flag = fake.model_copy(update={"unsupported": "flag"})
    flagged = answer(seeded, question, settings=flag, backend=llm)
    assert "works well for overparameterized models. [unsupported]" in flagged.answer


def test_labels_are_the_contract() -> None:
    assert LABELS == ("supports", "contradicts", "neither")


# -- with the real embedding model and the shipped stance model
# The shipped model does not separate these yet: for WORKS and FAILS against the mai sentence it
# gives about the same P(supports) 0.30 and P(contradicts) 0.27 (bench/results/stance.md).
SHORTFALL = "the shipped stance model misses the issue-15 targets (bench/results/stance.md)"


@pytest.mark.slow
@pytest.mark.xfail(reason=SHORTFALL, strict=True)
def test_a_claim_and_its_negation_against_the_mai_abstract(real_seed_index: Index) -> None:
    against = cite(real_seed_index, WORKS, judge="model")
    assert "mai" in [s.paper.citation_key for s in against.contradicts]
    assert "mai" not in [s.paper.citation_key for s in against.supports]
    (mai,) = [s for s in against.contradicts if s.paper.citation_key == "mai"]
    assert "conventional fair ERM fails" in mai.sentence  # the sentence carrying the stance
    backed = cite(real_seed_index, FAILS, judge="model")
    assert backed.supports and backed.supports[0].paper.citation_key == "mai"
    assert "mai" not in [s.paper.citation_key for s in backed.contradicts]


@pytest.mark.slow
@pytest.mark.xfail(reason=SHORTFALL, strict=True)
def test_cli_draft_reports_the_contradiction_and_cites_nothing_from_it(
    real_seed_index: Index, tmp_path: Path
) -> None:
    (tmp_path / "draft.tex").write_text(WORKS + "\n", encoding="utf-8")
    out = tmp_path / "refs.bib"
    args = ["--index", str(real_seed_index.dir), "cite", "--draft", str(tmp_path / "draft.tex")]
    result = CliRunner().invoke(
        cli, [*args, "--bib", str(out)], env={"RAG_STANCE": "model"}, catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "\\cite" not in result.stdout
    assert "sentence 1: no citation" in result.stderr and "contradicted by mai" in result.stderr
    assert "mai" not in out.read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.xfail(reason=SHORTFALL, strict=True)
def test_cli_cite_json_and_text_give_both_lists(real_seed_index: Index) -> None:
    args = ["--index", str(real_seed_index.dir), "cite", WORKS]
    model = {"RAG_STANCE": "model"}
    result = CliRunner().invoke(cli, [*args, "--json"], env=model, catch_exceptions=False)
    data = json.loads(result.output)
    assert [s["citation_key"] for s in data["contradicts"]][:1] == ["mai"]
    assert all(s["stance"] == "supports" for s in data["supports"])
    assert all(s["stance"] == "contradicts" for s in data["contradicts"])
    assert "mai" not in [s["citation_key"] for s in data["supports"]]
    text = CliRunner().invoke(cli, args, env=model, catch_exceptions=False).output
    assert "Contradicts:" in text and "[mai]" in text.split("Contradicts:")[1]


@pytest.mark.slow
@pytest.mark.xfail(reason=SHORTFALL, strict=True)
def test_ask_drops_a_generated_sentence_the_real_judge_finds_contradicted(
    real_seed_index: Index,
) -> None:
    llm = PromptAwareLLM()
    llm.enqueue(f"{WORKS[:-1]} [{{MAI}}]. {FAILS[:-1]} [{{MAI}}].")
    question = "Does conventional fair ERM work for overparameterized models?"
    settings = real_seed_index.settings.model_copy(update={"stance": "model"})
    result = answer(real_seed_index, question, settings=settings, backend=llm)
    shown = [s for s in result.sentences if s["shown"]]
    dropped = [s for s in result.sentences if not s["shown"]]
    assert [s["reason"] for s in dropped] == ["contradicted"]
    assert "works well" not in result.answer
    assert [s["text"] for s in shown] == [FAILS[:-1]]
    assert result.citations[0].hit.paper.citation_key == "mai"


def test_llm_judge_reads_the_label_and_the_sentence_it_names() -> None:
    from rag import prompts
    from rag.stance.llm_judge import LLMStanceJudge
    from tests.fakes import FakeLLM

    llm = FakeLLM()
    for reply in ("CONTRADICTS 2", "supports [1]", "I cannot tell.", "SUPPORTS 7"):
        llm.enqueue(reply)
    sentences = ["ERM is studied here.", "Conventional fair ERM fails on such models."]
    stances = LLMStanceJudge(llm).judge(WORKS, [sentences] * 4)
    assert [(s.label, s.index) for s in stances] == [
        ("contradicts", 1),
        ("supports", 0),
        ("neither", 0),  # no label: never support or contradiction
        ("neither", 0),  # a sentence that is not there
    ]
    assert stances[0].sentence == sentences[1]
    assert "[2] Conventional fair ERM fails" in llm.history[0].user
    assert WORKS in llm.history[0].user and llm.calls[0].temperature == 0
    assert set(re.findall(r"{(\w+)}", prompts.STANCE_USER)) == {"claim", "sentences"}
    assert set(re.findall(r"{(\w+)}", prompts.STANCE_SENTENCE)) == {"n", "sentence"}
    assert "{" not in prompts.STANCE_SYSTEM
