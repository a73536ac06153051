"""The one small interface every answer backend implements, and the prompt it takes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Prompt:
    """A chat prompt: the system instructions, worked examples, and the user turn.

    `examples` are (user, assistant) pairs sent as earlier turns of the chat, before `user`.
    """

    system: str
    user: str
    examples: tuple[tuple[str, str], ...] = ()

    def messages(self) -> list[dict[str, str]]:
        turns = [{"role": "system", "content": self.system}]
        for asked, answered in self.examples:
            turns.append({"role": "user", "content": asked})
            turns.append({"role": "assistant", "content": answered})
        turns.append({"role": "user", "content": self.user})
        return turns


class Backend(Protocol):
    """Something that turns a prompt into text, piece by piece."""

    name: str

    def generate(
        self,
        prompt: Prompt,
        *,
        stream: bool = True,
        max_tokens: int = 256,
        temperature: float = 0.1,
    ) -> Iterator[str]:
        """Yield the answer text in pieces (one piece when `stream` is false).

        Raises:
            BackendError: the model could not be reached, loaded or timed out.
        """
        ...
