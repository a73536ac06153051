"""Answers open with what a paper found, not with what it set out to do (real MiniLM).

The sentence most like a question is the one that asks it: "Does X reduce Y?" matched "To
determine whether X reduces Y." best. Each abstract sentence now has a role (stored at ingest,
`rag/ingest/roles.py`), and the question's want (`rag/ingest/wanted.py`) orders the sentences
that pass the relevance check.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rag import api
from rag.answer.compose import already_said
from rag.answer.evidence import paper_sentence_roles
from rag.index.paper_index import Index
from rag.ingest.pipeline import ingest
from rag.ingest.wanted import is_fragment
from rag.settings import Settings
from rag.text import split_sentences

STATINS = (
    "BACKGROUND: Lowering LDL cholesterol is known to reduce coronary events, but its effect on "
    "stroke in older adults is uncertain. OBJECTIVE: To determine whether lowering LDL "
    "cholesterol with statins reduces the risk of stroke in adults over 70. METHODS: We "
    "randomly assigned 4,120 adults aged 70 to 85 years to atorvastatin or placebo and followed "
    "them for five years. RESULTS: Stroke occurred in 3.1% of the atorvastatin group and 4.6% "
    "of the placebo group (hazard ratio 0.67; 95% CI 0.52 to 0.86). CONCLUSIONS: Lowering LDL "
    "cholesterol with statins reduced the risk of stroke in adults over 70."
)
FALLS = (
    "BACKGROUND: Falls are a leading cause of injury in long-term care. OBJECTIVE: We examined "
    "whether daily vitamin D supplementation reduces falls among nursing home residents. "
    "METHODS: We randomly assigned 612 residents of 40 nursing homes to 800 IU of vitamin D3 a "
    "day or placebo and followed them for 12 months. RESULTS: The rate of falls was 28% lower in "
    "the supplemented group (rate ratio 0.72; 95% CI 0.60 to 0.86), with no difference in "
    "fractures. CONCLUSIONS: A daily dose of vitamin D is a cheap way to prevent injuries in "
    "long-term care."
)
NOISE = (
    "Chronic noise exposure raises blood pressure. We asked whether road traffic noise at night "
    "is linked with hypertension in adults. In 4,000 adults followed for eight years, each 10 dB "
    "of night noise raised the odds of hypertension by 14%. Quieter bedrooms may protect the "
    "heart."
)
SLEEP = (
    "Shift work disturbs sleep. We asked whether a 30-minute nap during night shifts changes "
    "error rates of nurses. In a crossover trial of 80 nurses, naps cut medication errors by a "
    "third. Naps during night shifts make nurses safer."
)


def real_index(folder: Path, rows: list[dict[str, object]]) -> Index:
    """An index of `rows` (JSON-lines records) in `folder`, with the real MiniLM."""
    papers = folder / "papers.jsonl"
    papers.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    index = Index(Settings(index_dir=folder / "index", backend="extractive"), create=True)
    ingest([papers], index)
    return index


@pytest.fixture(scope="module")
def clinical_index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    rows = [
        {"authors": ["Ana Ortiz"], "title": "Statins and stroke in old age", "abstract": STATINS},
        {"authors": ["Ben Okafor"], "title": "Naps on night shifts", "abstract": SLEEP},
        {"authors": ["Ana Ruiz"], "title": "Vitamin D and falls", "abstract": FALLS},
        {"authors": ["Tom Berg"], "title": "Night noise and blood pressure", "abstract": NOISE},
    ]
    return real_index(tmp_path_factory.mktemp("clinical"), rows)


def first_sentence(answer: api.Answer) -> str:
    return next(s["text"] for s in answer.sentences if s.get("shown") and not s.get("note"))


@pytest.mark.slow
def test_a_yes_no_question_is_answered_by_the_result_not_the_aim(clinical_index: Index) -> None:
    answer = api.ask(
        "Does lowering LDL cholesterol with statins reduce stroke risk in people over 70?",
        index=clinical_index,
        backend=None,
    )
    first = first_sentence(answer)
    assert "To determine whether" not in first
    assert "3.1%" in first or "reduced the risk of stroke" in first, first
    assert not any(h in answer.answer for h in ("OBJECTIVE", "RESULTS:", "CONCLUSIONS:"))


@pytest.mark.slow
def test_no_fragment_is_shown_even_when_the_question_repeats_the_aim(
    clinical_index: Index,
) -> None:
    # The question is the aim sentence, word for word.
    answer = api.ask(
        "To determine whether lowering LDL cholesterol with statins reduces the risk of stroke "
        "in adults over 70",
        index=clinical_index,
        backend=None,
    )
    shown = [s["text"] for s in answer.sentences if s.get("shown") and not s.get("note")]
    assert shown
    assert not [s for s in shown if is_fragment(s.split(": ", 1)[-1])], shown


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "findings"),
    [
        # The aim restates the question word for word and is a whole sentence, not a fragment.
        (
            "Does daily vitamin D supplementation reduce falls among nursing home residents?",
            ("28% lower", "cheap way to prevent injuries"),
        ),
        # An unstructured abstract, whose aim the role model does not file as an aim.
        ("Is night-time traffic noise linked with hypertension?", ("14%", "Quieter bedrooms")),
        ("traffic noise hypertension", ("14%", "Quieter bedrooms")),
    ],
)
def test_the_finding_opens_even_when_the_aim_restates_the_question(
    clinical_index: Index, question: str, findings: tuple[str, ...]
) -> None:
    first = first_sentence(api.ask(question, index=clinical_index, backend=None))
    assert "whether" not in first, first
    assert any(f in first for f in findings), first


@pytest.mark.slow
@pytest.mark.parametrize(
    ("claim", "author", "finding"),
    [
        ("Vitamin D supplementation reduces falls in nursing home residents.", "Ana Ruiz", "28%"),
        ("Night-time road traffic noise is linked with hypertension.", "Tom Berg", "14%"),
    ],
)
def test_cite_shows_the_finding_not_the_aim_that_restates_the_claim(
    clinical_index: Index, claim: str, author: str, finding: str
) -> None:
    found = api.cite(claim, index=clinical_index)
    support = next(s for s in found.supports if s.paper.authors == (author,))
    assert finding in support.sentence, support.sentence


@pytest.mark.slow
def test_cite_shows_the_finding_of_a_structured_abstract(clinical_index: Index) -> None:
    found = api.cite("Statins reduce the risk of stroke in adults over 70.", index=clinical_index)
    support = next(s for s in found.supports if s.paper.authors == ("Ana Ortiz",))
    assert "To determine" not in support.sentence
    assert not support.sentence.startswith(("OBJECTIVE", "CONCLUSIONS", "RESULTS"))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "opening"),
    [
        # Asked about an outcome: the experiments' sentence, not the method's.
        ("Does DiP-G work well in experiments?", "Extensive experiments"),
        ("How does BASIL perform compared with existing baselines?", "Experiments on"),
        # Asked what something is: the sentence that introduces it, not its results.
        ("What is IndexGuard?", "introduce IndexGuard"),
        # Asked a finding of a named method: the sentence on what is asked, not the one naming
        # the method beside the topic ("we use ExPLAIND to analyze a Transformer that exhibits
        # Grokking"), as every sentence about ExPLAIND may name it.
        ("What did ExPLAIND find about grokking?", "findings support previously proposed stages"),
        ("RoPE-perturbed self-distillation vs plain long-context fine-tuning", "Experiments on"),
        ("Does CA-AMA still guarantee dominant-strategy incentive compatibility?", "preserves"),
    ],
)
def test_seed_questions_open_with_the_sentence_of_the_wanted_role(
    real_seed_index: Index, question: str, opening: str
) -> None:
    answer = api.ask(question, index=real_seed_index, backend=None)
    first = first_sentence(answer)
    assert opening.lower() in first.lower(), first


@pytest.mark.slow
@pytest.mark.parametrize("question", ["graph neural networks", "GNNs", "federated learning"])
def test_a_keyword_query_on_several_papers_gets_no_field_background_as_a_line(
    real_seed_index: Index, question: str
) -> None:
    # "graph neural networks" opened two papers' lines with "Graph Neural Networks (GNNs) have
    # shown remarkable capabilities ..." and "GNNs are increasingly adopting ...": the field's
    # background, alike in every paper on it, which says nothing of either paper.
    answer = api.ask(question, index=real_seed_index, backend=None)
    assert len(answer.citations) > 1
    for citation in answer.citations:
        roles = dict(paper_sentence_roles(citation.hit.paper))
        line = first_line_of(answer, citation.n)
        opening = next(s for s in roles if s.rstrip(".") in line or line_holds(line, s))
        assert roles[opening] != "background", line


@pytest.mark.slow
def test_every_paper_s_line_opens_with_its_name_even_when_its_sentence_is_generic(
    real_seed_index: Index,
) -> None:
    # With its long label the generic "Extensive experiments ... validated the effectiveness of
    # our proposed method" fell below the support bar, and was shown bare: "our method" of whom?
    answer = api.ask("graph neural networks", index=real_seed_index, backend=None)
    for citation in answer.citations:
        surname = citation.hit.paper.authors[0].split()[-1]
        assert surname.lower() in first_line_of(answer, citation.n).lower(), answer.answer


def first_line_of(answer: api.Answer, n: int) -> str:
    """The first sentence of `answer` that cites `[n]`."""
    for sentence in re.split(r"(?<=\])[.]\s+", answer.answer):
        if f"[{n}]" in sentence:
            return sentence
    raise AssertionError(f"[{n}] is not cited: {answer.answer}")


def line_holds(line: str, sentence: str) -> bool:
    """Whether a shown line holds an abstract sentence, however it was made standalone."""
    words = re.findall(r"[a-z]{4,}", sentence.lower())
    return bool(words) and sum(w in line.lower() for w in words) >= 0.8 * len(words)


def test_roles_are_stored_at_ingest(fake_index: Index, seeds_copy: Path) -> None:
    from rag.ingest.sections import abstract_sentences

    ingest([seeds_copy], fake_index)
    papers = list(fake_index.papers.values())
    assert papers
    for paper in papers:
        assert len(paper.sentence_roles) == len(abstract_sentences(paper.abstract))
        assert set(paper.sentence_roles) <= {
            "background",
            "objective",
            "method",
            "result",
            "conclusion",
        }


def test_an_index_from_before_roles_gets_them_at_the_next_ingest_silently(
    fake_index: Index, seeds_copy: Path
) -> None:
    ingest([seeds_copy], fake_index)
    stored = list(fake_index.papers.values())
    with fake_index.writing():  # as an index written before sentence roles existed
        fake_index.store.update_records([p.with_(sentence_roles=()) for p in stored])
    fake_index.refresh()
    assert not any(p.sentence_roles for p in fake_index.papers.values())
    report = ingest([seeds_copy], fake_index)
    assert report.updated == 0 and report.added == 0
    fake_index.refresh()
    assert all(p.sentence_roles for p in fake_index.papers.values())


def test_roles_of_an_older_role_model_are_replaced_at_the_next_ingest(
    fake_index: Index, seeds_copy: Path
) -> None:
    from rag.ingest.roles import model_fingerprint, sentence_roles

    ingest([seeds_copy], fake_index)
    stored = list(fake_index.papers.values())
    with fake_index.writing():  # as an older role model might have filed them
        fake_index.store.update_records(
            [p.with_(sentence_roles=("background",) * len(p.sentence_roles)) for p in stored]
        )
        fake_index.store.set_roles_model("an older model")
    report = ingest([seeds_copy], fake_index)
    assert report.updated == 0 and report.added == 0
    fake_index.refresh()
    for paper in fake_index.papers.values():
        assert list(paper.sentence_roles) == [r for _, r in sentence_roles(paper.abstract)]
    assert fake_index.store.roles_model == model_fingerprint()
    writes = fake_index.store.writes
    ingest([seeds_copy], fake_index)  # roles in line: nothing is rewritten
    assert fake_index.store.writes == writes


def test_roles_are_not_recomputed_while_the_role_model_is_the_same(
    fake_index: Index, seeds_copy: Path
) -> None:
    # Recomputing every paper's roles costs about 2 ms an abstract: a re-ingest under the
    # same model trusts what is stored.
    ingest([seeds_copy], fake_index)
    stored = list(fake_index.papers.values())
    with fake_index.writing():
        fake_index.store.update_records(
            [p.with_(sentence_roles=("background",) * len(p.sentence_roles)) for p in stored]
        )
    ingest([seeds_copy], fake_index)
    fake_index.refresh()
    assert all(set(p.sentence_roles) == {"background"} for p in fake_index.papers.values())


CITEGUARD = (
    "Retrieval-augmented generation often cites a source that does not support the sentence. "
    "To address this, we propose CiteGuard, a verifier that checks every generated citation "
    "against the passage it points to. CiteGuard scores each cited sentence with a small "
    "entailment model and removes the citations it cannot support. In particular, CiteGuard "
    "runs in 40 ms per answer on a single CPU core. Experiments on three question answering "
    "benchmarks show that CiteGuard cuts unsupported citations by 45%."
)


@pytest.fixture(scope="module")
def method_index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    row = {"authors": ["Mei Tanaka"], "title": "Checking citations", "abstract": CITEGUARD}
    return real_index(tmp_path_factory.mktemp("methods"), [row])


@pytest.mark.slow
@pytest.mark.parametrize("question", ["What is CiteGuard?", "What is CiteGuard"])
def test_what_is_x_opens_with_the_sentence_that_introduces_x(
    method_index: Index, question: str
) -> None:
    # Every later sentence names CiteGuard too, and some are closer to the question than the
    # one that says what it is; the first sentence to name it introduces it.
    first = first_sentence(api.ask(question, index=method_index, backend=None))
    assert "a verifier that checks every generated citation" in first, first


@pytest.mark.slow
def test_a_topic_query_gives_each_paper_its_own_work_not_the_field_s_background(
    real_seed_index: Index,
) -> None:
    # Before, "graph networks" opened ICGNN's line with "Graph Neural Networks (GNNs) have
    # shown remarkable capabilities ...", which says nothing of ICGNN.
    answer = api.ask("graph networks", index=real_seed_index, backend=None)
    lines = {s["citations"][0]: s["text"] for s in answer.sentences if s.get("citations")}
    by_author = {c.n: c.hit.paper.authors[0] for c in answer.citations}
    icgnn = next(n for n, a in by_author.items() if a == "Wei Ju")
    assert "remarkable capabilities" not in lines[icgnn]


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "Which papers are about graph neural networks?",
        "Summarize the work on graph neural networks.",
        "What do these papers say about graph neural networks?",
    ],
)
def test_a_list_gives_no_paper_the_field_s_background_as_its_line(
    real_seed_index: Index, question: str
) -> None:
    # Before, two of the list's lines were "Graph Neural Networks (GNNs) have shown remarkable
    # capabilities ..." and "GNNs are increasingly adopting the 'pre-training, adaptation'
    # paradigm ...": the field, said in the words of the question, not what each paper did.
    answer = api.ask(question, index=real_seed_index, backend=None)
    roles = {s: r for c in answer.citations for s, r in paper_sentence_roles(c.hit.paper)}
    lines = [s["text"] for s in answer.sentences if s.get("citations")]
    assert len(answer.citations) >= 3, answer.answer
    shown = [s for s in roles if any(already_said(s, line) for line in lines)]
    assert shown and all(roles[s] != "background" for s in shown), answer.answer


@pytest.mark.parametrize(
    "sentence",
    [
        "To address this, in this paper we propose a novel ICGNN that corrects noisy labels.",
        "To determine whether autophagy can be kept, in this work we corrected the defect.",
    ],
)
def test_a_purpose_clause_before_the_paper_s_own_clause_is_a_sentence(sentence: str) -> None:
    # Before, "To address this, in this paper we propose ..." read as the fragment "To
    # determine whether ..." and ICGNN's sentence introducing its method was never shown.
    assert not is_fragment(sentence)


@pytest.mark.slow
def test_a_background_line_says_so_under_the_paper_s_label(real_seed_index: Index) -> None:
    # "Seo et al.: It has recently been established that the commonly used Euler-Maruyama ...
    # induces an intrinsic bias" read as Seo et al.'s own finding; it is what they set out from.
    answer = api.ask(
        "PDE solvers with BSDE, bias of Euler-Maruyama", index=real_seed_index, backend=None
    )
    line = answer.sentences[0]["text"]
    assert line.startswith("Seo et al., as background: It has recently been established"), line
    # A sentence in the authors' own voice is theirs, whatever role the model gives it (the
    # label is of the line's first sentence: one it points back to may go on after it).
    cpo = api.ask("what do Zhang et al. prove about DPO?", index=real_seed_index, backend=None)
    assert not any(
        "as background:" in s["text"] and " prove " in split_sentences(s["text"])[0]
        for s in cpo.sentences
    )
