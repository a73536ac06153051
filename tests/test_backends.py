"""The answer backends: the OpenAI-compatible one against a real local HTTP server, and the
local one against the bundled SmolLM2 (slow)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.backends import local
from rag.backends.base import Prompt
from rag.backends.local import LocalBackend
from rag.backends.openai_compat import OpenAIBackend
from rag.backends.registry import get_backend
from rag.errors import BackendError, ConfigError
from rag.index.paper_index import Index
from rag.settings import Settings
from tests.fakes import FakeLLM
from tests.openai_server import FakeOpenAIServer

KEY = "sk-test-0123456789abcdef"
PROMPT = Prompt(system="Answer from the evidence only.", user="Evidence: ...\nQuestion: why?")


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(reply="Attention is all you need [vaswani2017].") as server:
        yield server


def api_settings(base_url: str, *, key: str | None = KEY, timeout: float = 10.0) -> Settings:
    return Settings(
        backend="openai",
        openai_base_url=base_url,
        openai_model="test-model",
        openai_api_key=key,
        request_timeout=timeout,
    )


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- the OpenAI-compatible backend


def test_streaming_yields_the_reply_in_pieces(openai_server: FakeOpenAIServer) -> None:
    backend = get_backend("openai", api_settings(openai_server.base_url))
    pieces = list(backend.generate(PROMPT, stream=True))
    assert len(pieces) > 1
    assert "".join(pieces) == openai_server.reply


def test_non_streaming_yields_the_whole_reply(openai_server: FakeOpenAIServer) -> None:
    backend = OpenAIBackend(api_settings(openai_server.base_url + "/"))  # trailing slash
    assert list(backend.generate(PROMPT, stream=False)) == [openai_server.reply]
    assert openai_server.requests[0].path == "/v1/chat/completions"


@pytest.mark.parametrize("stream", [True, False])
def test_request_carries_model_messages_options_and_key(
    openai_server: FakeOpenAIServer, stream: bool
) -> None:
    backend = OpenAIBackend(api_settings(openai_server.base_url))
    "".join(backend.generate(PROMPT, stream=stream, max_tokens=77, temperature=0.3))
    (request,) = openai_server.requests
    assert request.method == "POST"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body == {
        "model": "test-model",
        "messages": [
            {"role": "system", "content": PROMPT.system},
            {"role": "user", "content": PROMPT.user},
        ],
        "max_tokens": 77,
        "temperature": 0.3,
        "stream": stream,
    }


def test_worked_examples_are_sent_as_earlier_chat_turns(openai_server: FakeOpenAIServer) -> None:
    prompt = Prompt("Rules.", "Question: q?", (("Question: example?", "Example answer [1]."),))
    backend = OpenAIBackend(api_settings(openai_server.base_url))
    "".join(backend.generate(prompt))
    assert openai_server.requests[0].body["messages"] == [
        {"role": "system", "content": "Rules."},
        {"role": "user", "content": "Question: example?"},
        {"role": "assistant", "content": "Example answer [1]."},
        {"role": "user", "content": "Question: q?"},
    ]


def test_local_server_needs_no_key(openai_server: FakeOpenAIServer) -> None:
    backend = OpenAIBackend(api_settings(openai_server.base_url, key=None))
    assert "".join(backend.generate(PROMPT)) == openai_server.reply
    assert "authorization" not in openai_server.requests[0].headers


def test_openai_without_key_says_how_to_set_one() -> None:
    backend = OpenAIBackend(api_settings("https://api.openai.com/v1", key=None))
    with pytest.raises(BackendError, match="set OPENAI_API_KEY or RAG_OPENAI_API_KEY"):
        list(backend.generate(PROMPT))


@pytest.mark.parametrize(
    ("status", "message", "advice"),
    [
        (401, f"Incorrect API key provided: {KEY}.", "check OPENAI_API_KEY"),
        (404, "The model `test-model` does not exist.", "RAG_OPENAI_MODEL"),
        (429, "Rate limit reached for requests.", "retry"),
        (500, "The server had an error while processing your request.", "retry later"),
    ],
)
@pytest.mark.parametrize("stream", [True, False])
def test_http_errors_carry_status_and_server_message_but_not_the_key(
    openai_server: FakeOpenAIServer, status: int, message: str, advice: str, stream: bool
) -> None:
    openai_server.error_status = status
    openai_server.error_message = message
    backend = OpenAIBackend(api_settings(openai_server.base_url))
    with pytest.raises(BackendError) as caught:
        list(backend.generate(PROMPT, stream=stream))
    text = str(caught.value)
    assert f"HTTP {status}" in text
    assert message.replace(KEY, "***").rstrip(".") in text
    assert advice in text
    assert KEY not in text
    assert "\n" not in text


def test_unknown_model_names_the_model(openai_server: FakeOpenAIServer) -> None:
    openai_server.model = "llama3"
    backend = OpenAIBackend(api_settings(openai_server.base_url))
    with pytest.raises(BackendError, match=r"HTTP 404 .*`test-model` does not exist"):
        list(backend.generate(PROMPT))


def test_closed_port_says_cannot_reach() -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    backend = OpenAIBackend(api_settings(url))
    with pytest.raises(BackendError, match=r"cannot reach .*is the server running"):
        list(backend.generate(PROMPT))


@pytest.mark.parametrize("stream", [True, False])
def test_slow_server_times_out_quickly(openai_server: FakeOpenAIServer, stream: bool) -> None:
    openai_server.delay = 10
    backend = OpenAIBackend(api_settings(openai_server.base_url, timeout=0.5))
    started = time.monotonic()
    with pytest.raises(BackendError, match=r"no answer from .* within 0\.5 s"):
        list(backend.generate(PROMPT, stream=stream))
    assert time.monotonic() - started < 2


def test_base_url_without_v1_gets_advice(openai_server: FakeOpenAIServer) -> None:
    backend = OpenAIBackend(api_settings(f"http://127.0.0.1:{openai_server.port}"))  # no /v1
    with pytest.raises(BackendError, match=r"HTTP 404 .*RAG_OPENAI_BASE_URL"):
        list(backend.generate(PROMPT))


def test_unknown_backend_name_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"Unknown backend 'nope'.*local.*openai"):
        get_backend("nope", Settings())


# -- the fake used by the other tests


def test_fake_llm_streams_word_pieces_and_records_prompts() -> None:
    llm = FakeLLM()
    llm.enqueue("One two  three.")
    pieces = list(llm.generate(PROMPT, max_tokens=32))
    assert pieces == ["One ", "two  ", "three."]
    assert llm.history == [PROMPT]
    assert llm.calls[0].max_tokens == 32
    with pytest.raises(AssertionError, match="no answer enqueued"):
        list(llm.generate(PROMPT))


# -- the local backend


def test_missing_local_model_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "models" / "nope.gguf"
    backend = get_backend("local", Settings(local_model_path=missing, local_threads=1))
    with pytest.raises(BackendError, match=r"nope\.gguf.*RAG_LOCAL_MODEL_PATH") as caught:
        list(backend.generate(PROMPT))
    assert str(missing) in str(caught.value)


def test_corrupt_local_model_is_a_backend_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf file")
    backend = LocalBackend(Settings(local_model_path=bad, local_threads=1))
    with pytest.raises(BackendError, match=r"Could not load the local model .*bad\.gguf"):
        list(backend.generate(PROMPT))


@pytest.mark.slow
def test_bundled_smollm2_answers_and_is_loaded_once() -> None:
    settings = Settings(local_threads=2, temperature=0.0)
    prompt = Prompt(system="You are a helpful assistant.", user="What is the capital of France?")

    first = "".join(LocalBackend(settings).generate(prompt, max_tokens=16, temperature=0.0))
    models = local.loaded_models()
    second = list(get_backend("local", settings).generate(prompt, stream=False, max_tokens=16))

    assert first.strip()
    assert second[0].strip()
    assert len(second) == 1
    key = (str(local.bundled_model_path().resolve()), 2)
    after = local.loaded_models()
    assert after.keys() == models.keys()
    assert after[key] is models[key]


@pytest.mark.slow
def test_bundled_smollm2_serves_two_threads_at_once() -> None:
    settings = Settings(local_threads=2)
    prompt = Prompt(system="You are a helpful assistant.", user="Name a colour.")
    answers: list[str] = []

    def ask() -> None:
        answers.append("".join(LocalBackend(settings).generate(prompt, max_tokens=8)))

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(answers) == 2
    assert all(answer.strip() for answer in answers)


# -- end to end: a checked answer streamed over HTTP


def test_answer_over_http_shows_only_checked_sentences(
    openai_server: FakeOpenAIServer, fake_index: Index, seeds_copy: Path
) -> None:
    from rag.answer.pipeline import answer
    from rag.ingest.pipeline import ingest

    ingest([seeds_copy], fake_index)
    sentence = (
        "ICGNN harnesses the structure information of the graph to effectively alleviate the "
        "challenges posed by noisy labels"
    )
    openai_server.reply = f"{sentence} [1]. Bananas cure noisy graphs in 99% of cases [1]."
    settings = api_settings(openai_server.base_url).model_copy(update={"min_relevance": 0.1})
    backend = get_backend("openai", settings)
    result = answer(
        fake_index, "Which papers deal with noisy labels on graphs?", settings=settings,
        backend=backend,
    )  # fmt: skip
    assert result.backend == "openai" and result.notice is None
    # The model's checked sentence, then one quoted line for each other paper the answer uses.
    first, *others = result.answer.split("\n")
    assert first == sentence + " [1]." and "Bananas" not in result.answer
    assert all(line.startswith("- ") for line in others)
    assert result.citations[0].hit.paper.authors[0] == "Wei Ju"
    assert openai_server.requests[0].body["stream"] is True

    openai_server.error_status = 500
    result = answer(
        fake_index, "Which papers deal with noisy labels on graphs?", settings=settings,
        backend=backend,
    )  # fmt: skip
    assert result.notice is not None and "HTTP 500" in result.notice
    assert "[1]" in result.answer and result.citations


@pytest.mark.slow
def test_an_answer_asked_with_the_default_settings_quotes_the_papers(
    real_seed_index: Index,
) -> None:
    # With the bundled model as the default, 32 of the 40 seed questions showed the quoted
    # answer under "The model's answer was not supported by the papers it cited" after 0.8 s
    # (bench/results/answers_default.md): quoting is the default, the model one choice away.
    from rag import api

    settings = Settings(index_dir=real_seed_index.dir)
    answer = api.ask(
        "Which papers deal with noisy labels on graphs?", settings=settings, index=real_seed_index
    )
    assert answer.backend == "extractive"
    assert answer.notice is None
    assert answer.citations and answer.citations[0].hit.paper.authors[0] == "Wei Ju"
