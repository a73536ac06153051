"""The stance judge a `stance` setting names: the shipped model, an LLM, or none."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.errors import ConfigError
from rag.stance.judge import StanceJudge, load_stance_model

if TYPE_CHECKING:
    from rag.settings import Settings


def judge_for(setting: str, settings: Settings | None = None) -> StanceJudge | None:
    """Return the stance judge a `stance` setting names: "model", "llm" or "off".

    Raises:
        ConfigError: another name, or "llm" without the settings of an `openai` backend.
    """
    if setting == "off":
        return None
    if setting == "model":
        return load_stance_model()
    if setting == "llm" and settings is not None:
        from rag.backends.registry import get_backend
        from rag.stance.llm_judge import LLMStanceJudge

        return LLMStanceJudge(get_backend("openai", settings))
    if setting == "llm":
        raise ConfigError("The llm stance judge needs the settings of an openai backend.")
    raise ConfigError(f"Unknown stance judge {setting!r}: use model, llm or off.")
