"""Which of the model's sentences an answer shows, and the model's synthesis streamed through them.

With a model (`--backend local` or `openai`) the answer opens with one or two sentences of its
synthesis above the per-paper lines. Each sentence the model completes is checked against the
evidence it cites (`rag/answer/citations.py`), then shown only if it is a sentence, about the
question, states what was asked, does not point back at a sentence it lacks, and, for a model
that copies prompt lines, copies the line the sentence choice put first (`SentenceGate`). What
is not shown is recorded with its reason (`Renderer.reject`).
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field

from rag.answer.citations import CheckedSentence, CitationChecker
from rag.answer.compose import Kind, states_what_is_asked
from rag.answer.discourse import points_back
from rag.answer.evidence import Evidence
from rag.answer.relevance import RelevanceCheck
from rag.answer.rendering import (
    Renderer,
    complete_sentences,
    fallback_notice,
    label_prefix,
    labelled,
    made_standalone,
    rests_on_first_choice,
)
from rag.backends.base import Backend, Prompt
from rag.errors import BackendError
from rag.ingest.wanted import is_fragment
from rag.settings import Settings

# The local model's job is a short synthesis: once this many of its sentences are shown, the
# rest of its output is not read (the per-paper lines follow).
SYNTHESIS_SENTENCES = 2


@dataclass
class SentenceGate:
    """The checks a model's sentence passes to be shown in the answer to `question`.

    `own_method`: the sources whose own method a limitation question is asked of; `copies`: the
    model copies prompt lines (`LocalBackend.copies_sources`), so it must copy the right one;
    `timings` (with `t0`, when the answer began) gets the first shown sentence's time.
    """

    question: str
    kind: Kind
    evidence: list[Evidence]
    render: Renderer
    checker: CitationChecker
    relevance: RelevanceCheck
    own_method: frozenset[int] = frozenset()
    copies: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    t0: float = 0.0

    def __post_init__(self) -> None:
        self._labels = label_prefix(self.evidence)

    def check(self, sentence: str) -> CheckedSentence:
        """The citation check of a model's `sentence`. Tiny models copy the source line's
        "Label:" prefix; the claim is what follows it."""
        return self.checker.check(self._labels.sub("", sentence, count=1))

    def show(self, checked: CheckedSentence, bullet: bool = False) -> Iterator[str]:
        """Yield `checked` as shown, or nothing when it fails a check (recorded as rejected)."""
        render, checker = self.render, self.checker
        checked = made_standalone(checked, render.by_source, checker)
        if checked.supported and is_fragment(checked.text, self.question):
            # The model's "Li et al. (CELL): To further mitigate domain shift." (checked without
            # its label) or "... matches X and (ii).": no sentence, whatever its words' support.
            render.reject(checked, "fragment")
            return
        if checked.supported and not self.relevance.relevant(checked.text):
            # Supported by its paper, but not about what was asked: not shown.
            render.reject(checked, "off_question")
            return
        own = any(n in self.own_method for n in checked.sources)
        if checked.supported and not states_what_is_asked(self.kind, checked.text, own=own):
            # Asked where the code is, which dataset or how much: a sentence that does not say
            # is no answer, and the composer's note says when no abstract does.
            render.reject(checked, "not_stated")
            return
        if checked.supported and points_back(checked.text) and not render.follows(checked):
            # "These approaches assume X [1]" copied without the sentence naming the approaches
            # reads as the paper's claim, often the one it argues against: the paper's line
            # (shown with that sentence) comes from the composer instead.
            render.reject(checked, "points_back")
            return
        if checked.supported and not render.follows(checked):
            if self.copies and not rests_on_first_choice(checked, render.by_source):
                # "What predicts failures of ASMC?" got "Wang et al. propose ASMC, a parallel
                # particle inference method ...": SmolLM2 copied the paper's second sentence
                # in the prompt, given as context, where its first (the fitted sentence
                # choice's) says what predicts the failures. A paper's line opens with what
                # the choice puts first; the second may follow it.
                render.reject(checked, "second_choice")
                return
            checked = labelled(checked, render.by_source)  # a second sentence goes on its line
        piece = render.add(checked, bullet)
        if piece is not None:
            self.timings.setdefault("first_sentence_s", time.perf_counter() - self.t0)
            yield piece


def model_synthesis(
    backend: Backend,
    prompt: Prompt,
    gate: SentenceGate,
    settings: Settings,
) -> Generator[str, None, str | None]:
    """Stream the model's answer to `prompt`, yielding each sentence `gate` shows, up to
    `SYNTHESIS_SENTENCES`; return the notice to add (the backend failed, or none of its
    sentences held), or None. The first token's time goes into `gate.timings`."""
    render, timings, t0 = gate.render, gate.timings, gate.t0
    buffer = ""
    notice = None
    failed = False
    tokens = backend.generate(
        prompt, stream=True, max_tokens=settings.max_tokens, temperature=settings.temperature
    )
    try:
        for token in tokens:
            timings.setdefault("first_token_s", time.perf_counter() - t0)
            buffer += token
            done, buffer = complete_sentences(buffer, final=False)
            for sentence in done:
                yield from gate.show(gate.check(sentence))
            if render.supported >= SYNTHESIS_SENTENCES:
                buffer = ""
                break
        done, _ = complete_sentences(buffer, final=True)
        for sentence in done:
            if render.supported < SYNTHESIS_SENTENCES:
                yield from gate.show(gate.check(sentence))
    except BackendError as exc:
        failed = True
        notice = f"{exc} Showing an extractive answer instead."
    finally:
        close = getattr(tokens, "close", None)
        if close is not None:
            close()  # frees the local model's lock when we stop early
    if render.supported == 0 and not failed:
        notice = fallback_notice(render.sentences)
    return notice
