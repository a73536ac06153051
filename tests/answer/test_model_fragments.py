"""A sentence the model writes that is no sentence is never shown, however well its words are
supported: an aim behind the label the model copies ("Li et al. (CELL): To further mitigate
domain shift ...") or a copy cut mid-clause ("... matches frequentist uncertainty and (ii).").
Both reached the chat page from the local model; the extractive composer never shows them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from rag.answer.discourse import third_person
from rag.answer.pipeline import answer
from rag.backends.base import Prompt
from rag.index.paper_index import Index
from tests.fakes import FakeLLM


class _Copies(FakeLLM):
    """Writes `text` about the paper whose prompt line holds `paper`, with that line's label."""

    def __init__(self, paper: str, text: str) -> None:
        super().__init__()
        self.paper, self.text = paper, text

    def generate(self, prompt: Prompt, **kwargs: object) -> Iterator[str]:  # type: ignore[override]
        line = re.search(rf"^\[(\d+)\] ([^:\n]*{self.paper}[^:\n]*):", prompt.user, flags=re.M)
        n, label = (line.group(1), line.group(2)) if line else ("1", "")
        self.enqueue(f"{label}: {self.text} [{n}].")
        yield from super().generate(prompt, **kwargs)  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "paper", "text"),
    [
        (
            "domain shift",
            "CELL",
            "To further mitigate domain shift and provide additional structural supervision "
            "for cross-domain alignment",
        ),
        (
            "scientific foundation models",
            "Melnychuk",
            "PFNs calibrated with our martingale posterior OSPC produce ATE uncertainty that "
            "(i) asymptotically matches frequentist uncertainty and (ii)",
        ),
    ],
)
def test_a_model_sentence_that_is_no_sentence_is_not_shown(
    real_seed_index: Index, question: str, paper: str, text: str
) -> None:
    result = answer(
        real_seed_index, question, settings=real_seed_index.settings, backend=_Copies(paper, text)
    )
    # as written, or under the paper's label with "our" read as "their"
    forms = {text, third_person(text)}
    written = [s for s in result.sentences if any(f in s["text"] for f in forms)]
    assert written and written[0]["reason"] == "fragment" and not written[0]["shown"]
    # (the extractive answer may quote the whole sentence the fragment was cut from)
    for form in forms:
        assert f"{form} [" not in result.answer and f"{form}." not in result.answer, result.answer
    assert result.citations, result.answer  # the extractive answer stands in
