"""The one small interface every answer backend implements, and the registry of them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from rag.errors import ConfigError

if TYPE_CHECKING:
    from rag.settings import Settings


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


BackendFactory = Callable[["Settings"], Backend]
_REGISTRY: dict[str, BackendFactory] = {}


def register(name: str) -> Callable[[BackendFactory], BackendFactory]:
    """Register a backend factory under `name` (decorator)."""

    def deco(factory: BackendFactory) -> BackendFactory:
        _REGISTRY[name] = factory
        return factory

    return deco


def get_backend(name: str, settings: Settings) -> Backend:
    """Return a new backend by name.

    Raises:
        ConfigError: no backend has that name.
    """
    # Importing the modules registers them; heavy imports inside stay lazy until first use.
    from rag.backends import local, openai_compat  # noqa: F401

    try:
        factory = _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted([*_REGISTRY, "extractive"]))
        raise ConfigError(f"Unknown backend {name!r}: choose one of {known}.") from None
    return factory(settings)
