"""Deterministic stand-ins for the slow or remote parts, shared by the tests."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from rag.backends.base import Prompt

# --- LLM fakes


@dataclass(frozen=True)
class FakeCall:
    """The options one `FakeLLM.generate` call received (its prompt is in `history`)."""

    stream: bool
    max_tokens: int
    temperature: float


class FakeLLM:
    """A `Backend` that answers with queued texts and remembers what it was asked.

    llm = FakeLLM()
    llm.enqueue("Transformers use attention [vaswani2017].")
    answer = "".join(llm.generate(prompt))
    assert "question" in llm.history[0].user
    """

    name = "fake"

    def __init__(self) -> None:
        self.history: list[Prompt] = []
        self.calls: list[FakeCall] = []
        self._queue: deque[str | Exception] = deque()

    def enqueue(self, text: str) -> None:
        """Queue the answer to the next `generate` call."""
        self._queue.append(text)

    def enqueue_error(self, error: Exception) -> None:
        """Make the next `generate` call raise `error` (e.g. a `BackendError`)."""
        self._queue.append(error)

    def generate(
        self,
        prompt: Prompt,
        *,
        stream: bool = True,
        max_tokens: int = 256,
        temperature: float = 0.1,
    ) -> Iterator[str]:
        """Yield the next queued answer, word by word when `stream` is true.

        Raises:
            AssertionError: nothing was enqueued for this call.
        """
        self.history.append(prompt)
        self.calls.append(FakeCall(stream=stream, max_tokens=max_tokens, temperature=temperature))
        if not self._queue:
            raise AssertionError("FakeLLM: no answer enqueued")
        answer = self._queue.popleft()
        if isinstance(answer, Exception):
            raise answer
        if not stream:
            yield answer
            return
        # Split after whitespace so that "".join(pieces) == answer exactly.
        yield from (piece for piece in re.split(r"(?<=\s)(?=\S)", answer) if piece)
