"""The backends by name: a plain table, each module imported only when its backend is asked for."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from rag.errors import ConfigError

if TYPE_CHECKING:
    from rag.backends.base import Backend
    from rag.settings import Settings

# name -> (module, factory). The modules import heavy libraries only on first use, but even
# their light import is left until a backend of theirs is wanted.
BACKENDS: dict[str, tuple[str, str]] = {
    "local": ("rag.backends.local", "LocalBackend"),
    "openai": ("rag.backends.openai_compat", "OpenAIBackend"),
}


def get_backend(name: str, settings: Settings) -> Backend:
    """Return a new backend by name.

    Raises:
        ConfigError: no backend has that name.
    """
    try:
        module, factory = BACKENDS[name]
    except KeyError:
        known = ", ".join(sorted([*BACKENDS, "extractive"]))
        raise ConfigError(f"Unknown backend {name!r}: choose one of {known}.") from None
    backend: Backend = getattr(importlib.import_module(module), factory)(settings)
    return backend
