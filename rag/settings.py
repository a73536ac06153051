"""One `Settings` object: flag > environment (`RAG_*`) > `rag.toml` > default."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError
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
    chroma_token: SecretStr | None = Field(
        None,
        description="Token for a Chroma server that requires one (env RAG_CHROMA_TOKEN), sent as "
        "Chroma's own clients send it.",
    )
    chroma_token_header: Literal["Authorization", "X-Chroma-Token"] = Field(
        "Authorization",
        description="Header the token goes in: Authorization (as 'Bearer <token>') or "
        "X-Chroma-Token (Chroma Cloud), as the server expects.",
    )
    chroma_tenant: str = Field(
        "default_tenant", min_length=1, description="Tenant on the Chroma server."
    )
    chroma_database: str = Field(
        "default_database", min_length=1, description="Database in that tenant."
    )
    collection: str = Field("papers", description="Name of the Chroma collection.")

    # -- ingest
    title_only: bool = Field(
        False,
        description="Keep library entries without an abstract (books, reports, web pages) as "
        "title-only records (env RAG_TITLE_ONLY): found by search and citable by their title "
        "and keywords, never quoted as evidence in an answer. Off: they are counted in one "
        "line per file and left out.",
    )

    # -- embeddings
    embedding_model: str = Field(
        "all-MiniLM-L6-v2",
        description="Bundled model name, or the path of a local sentence-transformers model.",
    )
    embed_batch_size: int = Field(64, ge=1, description="Texts per embedding batch.")
    query_encoder: Literal["onnx", "sentence-transformers"] = Field(
        "onnx",
        description="How questions and sentences are embedded at query time: onnx (ONNX "
        "Runtime, no torch, the same vectors) or sentence-transformers. Ingest always uses "
        "sentence-transformers.",
    )
    passage_vectors: Literal["windows", "late"] | None = Field(
        None,
        description="How ingest makes passage vectors: windows (each sentence window encoded "
        "on its own) or late (the title and abstract encoded once, in passes of 128 word "
        "pieces cut at sentences, each window's token states averaged: 1.5 to 2.8 times the "
        "rate, the same nDCG@10 on SciFact). Unset: as the index was built, windows for a "
        "new one. An index keeps its method; adding papers with the other one is refused.",
    )
    onnx_dir: Path | None = Field(
        None,
        description="Cache folder of the embedding model's ONNX export, keyed by a hash of "
        "the model folder (default $XDG_CACHE_HOME/rag/onnx, i.e. ~/.cache/rag/onnx).",
    )

    # -- retrieval
    retriever: Retriever = Field("hybrid", description="hybrid, dense or bm25.")
    top_k: int = Field(
        10,
        ge=1,
        le=100,
        description="Papers retrieved for an answer, the most it may use; how many it uses "
        "follows the evidence (paper_probability).",
    )
    min_relevance: float = Field(
        0.55,
        ge=0.0,
        le=1.0,
        description="Least probability that the collection has a paper on the question for `ask` "
        "to answer it; the probability combines the best passage's cosine, the best paper's "
        "coverage of the question's rare terms and names, its BM25 score and its lead over the "
        "next paper (rag/answer/abstention.py, fitted and checked on held-out questions by "
        "bench/answers/abstention.py).",
    )

    nearest_floor: float = Field(
        0.25,
        ge=0.0,
        le=1.0,
        description="When `ask` finds no paper on a question, it lists the nearest papers only if "
        "one's best passage reaches this cosine (the bundled embedding's): the papers nearest to "
        "'speculative decoding' are worth a look, those nearest to 'what time is it?' are not "
        "(rag/answer/nearest.py; chosen on held-out near misses and everyday messages by "
        "bench/answers/nearest_floor.py).",
    )
    paper_probability: float = Field(
        0.47,
        ge=0.0,
        le=1.0,
        description="Least probability that a retrieved paper addresses the question for the "
        "answer to use it, the same for every phrasing (rag/answer/paper_choice.py; fitted and "
        "chosen on the fitting part of bench/data/paper_questions.jsonl by "
        "bench/answers/paper_choice.py).",
    )
    pick_probability: float = Field(
        0.2,
        ge=0.0,
        le=1.0,
        description="A follow-up that chooses among the previous answer's papers ('Which of "
        "them is about X?') picks one only when its probability of addressing the new words, "
        "judged beside the collection's papers on them, reaches this (it must also reach "
        "paper_probability among the previous papers alone); chosen on the fitting sessions of "
        "bench/data/set_followups.jsonl by bench/answers/set_followups.py --scan.",
    )
    continue_probability: float = Field(
        0.8,
        ge=0.0,
        le=1.0,
        description="A message with no pronoun and no paper's name ('main limitation?') is asked "
        "of the last answer's papers when the probability that it follows up on them, read from "
        "its own search (rag/answer/continuation.py), reaches this; chosen on the fitting "
        "sessions of bench/data/generic_followups.jsonl by bench/answers/generic_followups.py.",
    )
    answer_probability: float = Field(
        0.7,
        ge=0.0,
        le=1.0,
        description="A question below min_relevance is still answered when one paper's "
        "probability reaches this (a terse query naming a paper's topic); chosen on the same "
        "fitting part so that as many unanswerable questions abstain as before.",
    )

    # -- answers
    # Extractive by default: the bundled model's sentences passed the checks for 8 of the 40
    # seed questions (the other 32 showed the extractive answer with a notice) at 15x the time
    # to the first sentence (bench/results/answers_default.md); it stays one choice away.
    backend: BackendName = Field("extractive", description="extractive, local or openai.")
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
        "a cited sentence needs to be shown; calibrated by bench/answers/calibrate.py.",
    )
    stance: Literal["model", "llm", "off"] = Field(
        "off",
        description="Stance judge for citations: the shipped model (a paper judged to "
        "contradict a sentence is never cited for it), llm (the openai backend judges), or off "
        "(topic and support score only).",
    )
    min_question_relevance: float = Field(
        0.11,
        description="Least question-relevance score (cosine to the question + weight x share of "
        "its terms) a shown sentence needs; calibrated by bench/answers/calibrate_composition.py.",
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
