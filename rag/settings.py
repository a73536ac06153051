"""One `Settings` object: flag > environment (`RAG_*`) > `rag.toml` > default."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, ValidationError
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from rag.errors import ConfigError

Retriever = Literal["hybrid", "dense", "bm25"]
BackendName = Literal["local", "openai", "extractive"]


class Settings(BaseSettings):
    """Every knob of the assistant, each with a description (`rag config` prints them)."""

    model_config = SettingsConfigDict(
        env_prefix="RAG_",
        extra="forbid",
        toml_file="rag.toml",
        validate_default=True,
    )

    # -- where the index lives
    index_dir: Path = Field(Path("index_store"), description="Folder of the embedded index.")
    chroma_url: str | None = Field(
        None, description="URL of a Chroma server to use instead of the embedded store."
    )
    collection: str = Field("papers", description="Name of the Chroma collection.")

    # -- embeddings
    embedding_model: str = Field(
        "all-MiniLM-L6-v2",
        description="Bundled model name, or the path of a local sentence-transformers model.",
    )
    embed_batch_size: int = Field(64, ge=1, description="Texts per embedding batch.")

    # -- retrieval
    retriever: Retriever = Field("hybrid", description="hybrid, dense or bm25.")
    top_k: int = Field(5, ge=1, le=100, description="Papers to retrieve for an answer.")
    min_relevance: float = Field(
        0.55,
        ge=0.0,
        le=1.0,
        description="Least probability that the collection has a paper on the question for `ask` "
        "to answer it; the probability combines the best passage's cosine, the best paper's "
        "coverage of the question's rare terms and names, its BM25 score and its lead over the "
        "next paper (rag/abstention.py, fitted and checked on held-out questions by "
        "bench/abstention.py).",
    )

    relative_relevance: float = Field(
        0.75,
        ge=0.0,
        le=1.0,
        description="Papers used in an answer reach at least this share of the best relevance.",
    )

    # -- answers
    backend: BackendName = Field("local", description="local, openai or extractive.")
    max_tokens: int = Field(256, ge=16, description="Most tokens an answer may have.")
    temperature: float = Field(0.1, ge=0.0, le=2.0, description="Sampling temperature.")
    evidence_sentences: int = Field(
        2, ge=1, le=10, description="Sentences per paper put into the prompt."
    )
    unsupported: Literal["drop", "flag"] = Field(
        "drop", description="What to do with an answer sentence its citations do not support."
    )
    support_threshold: float = Field(
        0.7,
        ge=0.0,
        le=1.0,
        description="Least support score (semantic x coverage, 0 for a foreign number or name) "
        "a cited sentence needs to be shown; calibrated by bench/calibrate.py.",
    )
    follow_up: Literal["rule", "llm"] = Field(
        "rule",
        description="How a follow-up question is made standalone: rule (deterministic) or llm "
        "(the answer backend rewrites it; a guard falls back to the rule).",
    )
    local_model_path: Path | None = Field(
        None, description="GGUF file for the local backend (default: bundled SmolLM2-135M)."
    )
    local_threads: int = Field(2, ge=1, description="CPU threads for the local backend.")
    openai_base_url: str = Field(
        "https://api.openai.com/v1",
        validation_alias=AliasChoices("RAG_OPENAI_BASE_URL", "OPENAI_BASE_URL"),
        description="Base URL of an OpenAI-compatible endpoint.",
    )
    openai_model: str = Field("gpt-4o-mini", description="Model name at that endpoint.")
    openai_api_key: str | None = Field(
        None,
        validation_alias=AliasChoices("RAG_OPENAI_API_KEY", "OPENAI_API_KEY"),
        description="API key (not needed by local servers).",
    )
    request_timeout: float = Field(60.0, gt=0, description="Seconds before a backend times out.")

    # -- the UI
    host: str = Field("127.0.0.1", description="Address the UI binds to.")
    port: int = Field(7860, ge=1, le=65535, description="Port the UI listens on.")
    auth: str | None = Field(None, description="user:password; required off loopback.")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls))


def load_settings(**overrides: Any) -> Settings:
    """Return the settings, with `overrides` (flags) winning; None values are ignored.

    Raises:
        ConfigError: a value or a key in the environment or `rag.toml` is invalid.
    """
    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings(**given)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'settings'}: {err['msg']}"
            for err in exc.errors()
        )
        raise ConfigError(f"Invalid configuration: {problems}") from None
