"""Answers: markers map to retrieved papers, invented ones are dropped, off-topic abstains."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rag import prompts
from rag.answer import pipeline
from rag.answer.discourse import standalone, third_person
from rag.answer.evidence import Evidence
from rag.answer.nearest import NEAREST_SHOWN
from rag.answer.pipeline import answer, answer_stream
from rag.answer.rendering import Answer
from rag.backends.base import Prompt
from rag.errors import BackendError
from rag.index.paper_index import Index
from rag.ingest.naming import speaker
from rag.ingest.pipeline import ingest
from rag.records import Paper
from rag.settings import Settings
from tests.conftest import ROOT
from tests.fakes import FakeLLM

QUESTION = "Which papers deal with noisy labels on graphs?"
ICGNN_SENTENCE = (
    "ICGNN harnesses the structure information of the graph to effectively alleviate the "
    "challenges posed by noisy labels"
)


class PromptAwareLLM(FakeLLM):
    """A FakeLLM whose queued answers may name sources by label: `{Ju}` → that source's n."""

    def generate(self, prompt: Prompt, **kwargs: object) -> Iterator[str]:  # type: ignore[override]
        numbers = dict(re.findall(r"^\[(\d+)\] (\w+)", prompt.user, flags=re.M))
        by_name = {name: n for n, name in numbers.items()}
        pieces = list(super().generate(prompt, **kwargs))  # type: ignore[arg-type]
        text = "".join(pieces).format_map(_Missing(by_name))
        yield from re.split(r"(?<=\s)(?=\S)", text)


class _Missing(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "99"


@pytest.fixture
def seeded(fake_index: Index, seeds_copy: Path) -> Index:
    ingest([seeds_copy], fake_index)
    return fake_index


@pytest.fixture
def fake_settings(settings: Settings) -> Settings:
    # The hashed fake embedding gives lower cosines than MiniLM: thresholds scaled to it.
    return settings.model_copy(update={"min_relevance": 0.1, "support_threshold": 0.4})


def run(index: Index, settings: Settings, llm: FakeLLM, question: str = QUESTION) -> Answer:
    return answer(index, question, settings=settings, backend=llm)


def synthesis(result: Answer) -> str:
    """The model's part of an answer: what comes before the per-paper lines."""
    return result.answer.split("\n- ", 1)[0]


def model_sentences(result: Answer | dict) -> list[dict]:  # type: ignore[type-arg]
    """The sentence records of what the model wrote (the per-paper lines are "quoted")."""
    records = result["sentences"] if isinstance(result, dict) else result.sentences
    return [s for s in records if s["reason"] != "quoted"]


def test_markers_map_to_the_retrieved_paper(seeded: Index, fake_settings: Settings) -> None:
    llm = PromptAwareLLM()
    llm.enqueue(ICGNN_SENTENCE + " [{Ju}].")
    result = run(seeded, fake_settings, llm)
    assert not result.abstained and result.notice is None
    assert synthesis(result).endswith("[1].")
    assert result.citations[0].n == 1
    assert result.citations[0].hit.paper.authors[0] == "Wei Ju"
    assert "noisy labels" in result.citations[0].evidence
    assert "Sources:" in llm.history[0].user and QUESTION in llm.history[0].user


def test_marker_to_unretrieved_paper_is_dropped(seeded: Index, fake_settings: Settings) -> None:
    llm = PromptAwareLLM()
    llm.enqueue(ICGNN_SENTENCE + " [{Ju}][{Nobody}].")
    result = run(seeded, fake_settings, llm)
    assert "[99]" not in result.answer and "[2]" not in synthesis(result)
    assert [s["citations"] for s in model_sentences(result)] == [[1]]
    assert result.citations[0].hit.paper.authors[0] == "Wei Ju"


def test_fabricated_sentence_is_not_shown(seeded: Index, fake_settings: Settings) -> None:
    llm = PromptAwareLLM()
    fabricated = "Sourdough starters ferment rye flour overnight in a warm kitchen"
    llm.enqueue(f"{ICGNN_SENTENCE} [{{Ju}}]. {fabricated} [{{Ju}}].")
    result = run(seeded, fake_settings, llm)
    assert "Sourdough" not in result.answer
    assert "noisy labels" in result.answer
    dropped = [s for s in result.sentences if not s["shown"]]
    assert [s["text"].split()[0] for s in dropped] == ["Sourdough"]


def test_sentence_without_marker_is_attributed_when_supported(
    seeded: Index, fake_settings: Settings
) -> None:
    llm = PromptAwareLLM()
    llm.enqueue(ICGNN_SENTENCE + ".")
    result = run(seeded, fake_settings, llm)
    assert synthesis(result).endswith("[1].")
    assert result.sentences[0]["attributed"] is True
    assert result.citations[0].hit.paper.authors[0] == "Wei Ju"


def test_a_model_sentence_is_made_standalone_like_a_quoted_one(
    seeded: Index, fake_settings: Settings
) -> None:
    llm = PromptAwareLLM()
    llm.enqueue(
        "ICGNN: To address this, in this paper we propose a novel approach called ICGNN that "
        "harnesses the structure information of the graph to effectively alleviate the "
        "challenges posed by noisy labels [{Ju}]."
    )
    result = run(seeded, fake_settings, llm)
    first = synthesis(result)
    assert first.startswith("Ju et al. propose a novel approach called ICGNN"), first
    assert "To address this" not in first and first.endswith("[1].")
    assert model_sentences(result)[0]["reason"] == "supported"


def test_the_synthesis_is_followed_by_one_line_per_other_paper(
    seeded: Index, fake_settings: Settings
) -> None:
    llm = PromptAwareLLM()
    llm.enqueue(ICGNN_SENTENCE + " [{Ju}].")
    # The layout when an answer uses several papers; which papers qualify is the per-paper
    # judgement's (tests with the real model), so here every retrieved paper above a low bar.
    several = fake_settings.model_copy(update={"paper_probability": 0.05})
    result = run(seeded, several, llm)
    lines = result.answer.split("\n")
    assert lines[0] == ICGNN_SENTENCE + " [1]." and len(lines) == len(result.citations) >= 2
    quoted = [s for s in result.sentences if s["reason"] == "quoted"]
    assert [s["citations"] for s in quoted] == [[c.n] for c in result.citations[1:]]
    for line, citation in zip(lines[1:], result.citations[1:], strict=True):
        assert line.startswith("- ") and line.endswith(f"[{citation.n}].")


def test_nothing_supported_falls_back_to_extractive(seeded: Index, fake_settings: Settings) -> None:
    llm = PromptAwareLLM()
    llm.enqueue("Bananas are yellow [{Ju}]. The moon is made of cheese.")
    result = run(seeded, fake_settings, llm)
    assert result.notice == prompts.NO_SUPPORTED_SENTENCE
    assert "Bananas" not in result.answer and "[1]" in result.answer
    assert result.citations[0].hit.paper.authors[0] == "Wei Ju"


def test_backend_error_gives_notice_and_extractive_answer(
    seeded: Index, fake_settings: Settings
) -> None:
    llm = FakeLLM()
    llm.enqueue_error(BackendError("cannot reach http://127.0.0.1:9/v1: is the server running?"))
    result = run(seeded, fake_settings, llm)
    assert result.notice is not None and "cannot reach" in result.notice
    assert result.citations and "[1]" in result.answer


def test_off_topic_question_abstains(seeded: Index, fake_settings: Settings) -> None:
    # The fake vectors come near nothing: every abstention's nearest papers are listed.
    fake_settings = fake_settings.model_copy(update={"nearest_floor": 0.0})
    llm = FakeLLM()  # nothing enqueued: the model must not even be called
    result = run(seeded, fake_settings, llm, "sourdough bread recipe with rye flour")
    assert result.abstained
    first, rest = prompts.ABSTAIN.split(". ", 1)  # and the words no paper uses, between
    unused = "“sourdough”, “bread”, “recipe”, “rye” or “flour”"
    assert result.answer == f"{first}. {prompts.NO_PAPER_USES.format(words=unused)} {rest}"
    # five at most: ten cards of papers that do not answer filled a phone's page (stop 58)
    assert result.citations == () and 0 < len(result.nearest) <= NEAREST_SHOWN == 5
    assert llm.history == []


def test_an_abstention_lists_no_paper_that_comes_near_nothing(
    seeded: Index, fake_settings: Settings
) -> None:
    # "what's the weather like today?" listed five papers as the nearest, and "what did the
    # first one find?" then counted in them (a new user); under the floor none is listed.
    result = run(seeded, fake_settings, FakeLLM(), "sourdough bread recipe with rye flour")
    assert result.abstained and result.citations == () and result.nearest == ()
    unused = "“sourdough”, “bread”, “recipe”, “rye” or “flour”"
    assert result.answer == (
        f"{prompts.NO_PAPER_ON_IT} {prompts.NO_PAPER_USES.format(words=unused)} {prompts.NONE_NEAR}"
    )


def test_streamed_pieces_add_up_to_the_answer(seeded: Index, fake_settings: Settings) -> None:
    llm = PromptAwareLLM()
    llm.enqueue(f"{ICGNN_SENTENCE} [{{Ju}}]. Pseudo-labeling supervises unlabeled nodes [{{Ju}}].")
    events = list(answer_stream(seeded, QUESTION, settings=fake_settings, backend=llm))
    final = events[-1]
    assert isinstance(final, Answer)
    pieces = [e for e in events[:-1] if isinstance(e, str)]
    assert "".join(pieces) == final.answer
    # The model's two sentences come first, each as it is checked.
    assert "".join(pieces[:2]) == synthesis(final) and synthesis(final).count("[1]") == 2


def as_shown(sentence: str, paper: Paper) -> str:
    """`sentence` as a line of `paper` shows it: "we" named as its authors, or under their label
    "our" read as "their"."""
    named = standalone(sentence, *speaker(paper))
    return named.text if named.named else third_person(named.text)


def test_extractive_backend_cites_the_right_paper(seeded: Index, fake_settings: Settings) -> None:
    result = answer(seeded, QUESTION, settings=fake_settings, backend=None)
    assert result.backend == "extractive" and not result.abstained
    assert result.citations[0].hit.paper.authors[0] == "Wei Ju"
    # the evidence sentence is shown standing alone (no dangling opener, "we" named as its
    # authors, or under their label "our" read as "their"), its claim word for word, with its
    # marker before the full stop
    shown = as_shown(result.citations[0].evidence, result.citations[0].hit.paper)
    assert shown.rstrip(".") + " [1]." in result.answer


def test_prompt_puts_the_question_first_after_a_worked_example(
    seeded: Index, fake_settings: Settings
) -> None:
    llm = PromptAwareLLM()
    llm.enqueue(ICGNN_SENTENCE + " [{Ju}].")
    run(seeded, fake_settings, llm)
    prompt = llm.history[0]
    assert prompt.system == prompts.SYSTEM
    assert prompt.examples == ((prompts.EXAMPLE_USER, prompts.EXAMPLE_ASSISTANT),)
    assert prompt.user.startswith(f"Question: {QUESTION}\nSources:\n[1] Ju et al.")
    roles = [m["role"] for m in prompt.messages()]
    assert roles == ["system", "user", "assistant", "user"]


def test_copied_instructions_and_example_are_never_shown(
    seeded: Index, fake_settings: Settings
) -> None:
    llm = PromptAwareLLM()
    llm.enqueue(f"{prompts.SYSTEM} {prompts.EXAMPLE_ASSISTANT} {ICGNN_SENTENCE} [{{Ju}}].")
    result = run(seeded, fake_settings.model_copy(update={"unsupported": "flag"}), llm)
    assert synthesis(result) == ICGNN_SENTENCE + " [1]."
    reasons = [s["reason"] for s in model_sentences(result)]
    assert reasons.count("prompt_leak") >= 3 and reasons[-1] == "supported"
    assert "ChirpNet" not in result.answer


@pytest.mark.parametrize(
    "reply",
    [
        f"[1] Ju et al. — ICGNN: {ICGNN_SENTENCE}.",  # the source line's label, copied
        f"Ju et al. — {ICGNN_SENTENCE} [{{Ju}}].",  # the label with a dash for its colon
        f"ICGNN \u2013 {ICGNN_SENTENCE} [{{Ju}}].",  # an en dash
        # SmolLM2 ended a copied sentence with '."' although the abstract quotes nothing.
        f'{ICGNN_SENTENCE}." [{{Ju}}].',
    ],
)
def test_what_the_model_adds_around_a_source_sentence_is_not_shown(
    seeded: Index, fake_settings: Settings, reply: str
) -> None:
    llm = PromptAwareLLM()
    llm.enqueue(reply)
    result = run(seeded, fake_settings, llm)
    assert synthesis(result) == ICGNN_SENTENCE + " [1]."


def test_each_sentence_reports_support_and_why(seeded: Index, fake_settings: Settings) -> None:
    llm = PromptAwareLLM()
    llm.enqueue(
        f"{ICGNN_SENTENCE} [{{Ju}}]. ICGNN improves accuracy by 47% on noisy labels [{{Ju}}]."
    )
    data = run(seeded, fake_settings, llm).to_dict()
    first, second = model_sentences(data)
    assert first["reason"] == "supported" and first["citations"] == [1] and first["support"] > 0.4
    assert second["reason"] in ("foreign_fact", "unsupported") and not second["shown"]
    assert "47" in second.get("foreign", []) or second["support"] < 0.4
    assert data["standalone_question"] is None
    assert data["timings"]["first_token_s"] <= data["timings"]["first_sentence_s"]


@pytest.mark.parametrize(
    ("template", "fields"),
    [
        (prompts.SOURCE, {"n", "label", "evidence"}),
        (prompts.USER, {"sources", "question"}),
        (prompts.CONDENSE_USER, {"previous", "papers", "question"}),
        (prompts.CONDENSE_PAPER, {"n", "name"}),
        (prompts.SYSTEM, set()),
        (prompts.EXAMPLE_USER, set()),
        (prompts.CONDENSE_SYSTEM, set()),
        (prompts.NONE_BY_PEOPLE, {"who"}),
        (prompts.BY_PEOPLE, {"n", "papers", "who", "each"}),
        (prompts.BY_PEOPLE_SOME, {"n", "papers", "who", "shown"}),
        (prompts.BY_PEOPLE_UNADDRESSED, {"n", "papers", "who", "none", "each"}),
        (prompts.NO_TOPIC, {"collection", "topic"}),
        (prompts.NO_MATCH_TOPIC, {"collection", "topic"}),
        (prompts.FOUND_NONE_LISTED, {"when", "on", "which", "names", "be", "papers"}),
        (prompts.FOUND_NONE_REST, {"topic"}),
        (prompts.NO_EARLIER_ANSWER, {"message"}),
        (prompts.NONE_RANKS_SET, {"words"}),
        (prompts.NONE_RANKS_SET_ONE, {"words"}),
    ],
)
def test_prompt_placeholders(template: str, fields: set[str]) -> None:
    found = set(re.findall(r"{(\w+)}", template))
    assert found == fields
    formatter: Callable[..., str] = template.format
    assert formatter(**{f: "x" for f in fields})


# -- with the real models


def _jsonl(name: str) -> list[dict[str, str]]:
    path = ROOT / "bench" / "data" / name
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
def test_no_abstention_on_the_seed_questions(real_seed_index: Index) -> None:
    settings = real_seed_index.settings
    missed = []
    for q in _jsonl("seed_questions.jsonl"):
        result = answer(real_seed_index, q["question"], settings=settings, backend=None)
        if result.abstained or q["key"] not in [c.hit.paper.citation_key for c in result.citations]:
            missed.append(q["key"])
    assert missed == []


@pytest.mark.slow
def test_abstention_on_off_topic_questions(real_seed_index: Index) -> None:
    settings = real_seed_index.settings
    answered = {q["kind"]: [] for q in _jsonl("offtopic_questions.jsonl")}  # type: dict[str, list[str]]
    listed: dict[str, list[bool]] = {kind: [] for kind in answered}
    for q in _jsonl("offtopic_questions.jsonl"):
        result = answer(real_seed_index, q["question"], settings=settings, backend=None)
        if not result.abstained:
            answered[q["kind"]].append(q["question"])
        else:
            assert result.citations == ()
            listed[q["kind"]].append(bool(result.nearest))
    # Everything far from machine learning abstains; of the near misses, most do.
    assert [q for kind, qs in answered.items() if kind != "near-miss ML" for q in qs] == []
    assert len(answered["near-miss ML"]) <= 3, answered["near-miss ML"]
    # No paper comes near enough to be listed as the nearest to bread or the World Cup; to most
    # near misses ("How does dropout prevent overfitting ...?") some do (rag/answer/nearest.py).
    assert not any(any(flags) for kind, flags in listed.items() if kind != "near-miss ML")
    assert sum(listed["near-miss ML"]) * 2 > len(listed["near-miss ML"])


@pytest.mark.slow
def test_real_smollm2_answer_only_shows_supported_cited_sentences(real_seed_index: Index) -> None:
    from rag.backends.local import LocalBackend

    settings = real_seed_index.settings.model_copy(update={"temperature": 0.0, "max_tokens": 96})
    result = answer(
        real_seed_index,
        "How can node classifiers cope with wrong annotations in graph data?",
        settings=settings,
        backend=LocalBackend(settings),
    )
    assert not result.abstained and result.backend == "local"
    assert result.citations[0].hit.paper.authors[0] == "Wei Ju"
    shown = [s for s in result.sentences if s["shown"]]
    assert shown and all(s["support"] >= settings.support_threshold for s in shown)
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", result.answer)}
    assert numbers == {c.n for c in result.citations}
    assert prompts.SYSTEM[:30] not in result.answer


class _CopiesAFinding(FakeLLM):
    """A small model's habit: it copies a paper's finding as written, with its number, and
    nothing of whose it is ("... of our approach ... [1].")."""

    def generate(self, prompt: Prompt, **kwargs: object) -> Iterator[str]:  # type: ignore[override]
        n = re.search(r"^\[(\d+)\] [^\n]*ICGNN", prompt.user, flags=re.M)
        self.enqueue(
            f"{ICGNN_FINDING} [{n.group(1) if n else 1}]. {ICGNN_FINDING_AGAIN} "
            f"[{n.group(1) if n else 1}]."
        )
        yield from super().generate(prompt, **kwargs)  # type: ignore[arg-type]


ICGNN_FINDING = (
    "Experiments on benchmark datasets show the superiority of our approach over competitive "
    "baselines in noisy label scenarios"
)
ICGNN_FINDING_AGAIN = (
    "Then we leverage the Gaussian mixture model to precisely detect whether the label of a "
    "node is noisy or not"
)


@pytest.mark.slow
def test_a_copied_model_sentence_says_whose_it_is(real_seed_index: Index) -> None:
    result = answer(
        real_seed_index,
        "label noise in graph neural networks",
        settings=real_seed_index.settings,
        backend=_CopiesAFinding(),
    )
    finding = ICGNN_FINDING.replace("our approach", "their approach")  # under their label
    assert result.answer.startswith(f"Ju et al. (ICGNN): {finding} [1]."), result.answer
    # The second sentence on the same paper goes on its line, not under the label again.
    assert result.answer.count("Ju et al. (ICGNN):") == 1, result.answer


class _CopiesOnePromptSentence(FakeLLM):
    """SmolLM2's habit (`LocalBackend.copies_sources`): it copies one of a paper's sentences
    in the prompt, whichever, with its number."""

    copies_sources = True

    def __init__(self, which: int) -> None:
        super().__init__()
        self.which = which
        self.evidence: list[Evidence] = []

    def generate(self, prompt: Prompt, **kwargs: object) -> Iterator[str]:  # type: ignore[override]
        ev = next(e for e in self.evidence if e.hit.paper.authors[0] == "Wei Ju")
        self.enqueue(f"{ev.sentences[self.which].rstrip('.')} [{ev.n}].")
        yield from super().generate(prompt, **kwargs)  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.parametrize("which", [0, 1])
def test_a_copying_model_opens_a_papers_line_with_the_sentence_chosen_first(
    real_seed_index: Index, monkeypatch: pytest.MonkeyPatch, which: int
) -> None:
    # "What predicts failures of ASMC?" was answered "Wang et al. propose ASMC, a parallel
    # particle inference method ...": SmolLM2 copied the second of the paper's two prompt
    # sentences, the context, not the first, which says what predicts the failures.
    llm = _CopiesOnePromptSentence(which)
    chosen = pipeline.select_evidence

    def spy(*args: object, **kwargs: object) -> list[Evidence]:
        llm.evidence = chosen(*args, **kwargs)  # type: ignore[arg-type]
        return llm.evidence

    monkeypatch.setattr(pipeline, "select_evidence", spy)
    question = "What did the experiments show about noisy labels in graph neural networks?"
    result = answer(real_seed_index, question, settings=real_seed_index.settings, backend=llm)
    ev = next(e for e in llm.evidence if e.hit.paper.authors[0] == "Wei Ju")
    first, second = ev.sentences[0], ev.sentences[1]
    assert first != second
    opening = result.sentences[0]
    if which == 0:
        assert opening["reason"] == "supported" and opening["shown"], result.sentences
        assert result.notice is None
    else:
        assert opening["reason"] == "second_choice" and not opening["shown"], result.sentences
        assert result.notice == prompts.MODEL_OFF_QUESTION
    shown = [s for s in result.sentences if s["shown"]]
    assert shown and shown[0]["citations"] == [1]
    assert as_shown(first.rstrip("."), ev.hit.paper) in result.answer
