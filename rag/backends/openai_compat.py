"""The OpenAI-compatible backend: any `/chat/completions` endpoint, spoken with plain httpx.

Works with OpenAI itself and with local servers that mimic it (vLLM, Ollama's `/v1`,
LM Studio, llama.cpp's `llama-server`). Streaming uses server-sent events. Every failure
becomes a one-line `BackendError` that says what to do; the API key never appears in one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from rag.backends.base import Prompt
from rag.errors import BackendError

if TYPE_CHECKING:
    from rag.settings import Settings

logger = logging.getLogger(__name__)

OPENAI_HOST = "api.openai.com"
_MAX_SERVER_MESSAGE = 300  # characters of a server's error message kept in ours


def _display_url(url: str) -> str:
    """Return `url` without any user:password part, for messages."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _server_message(response: httpx.Response) -> str:
    """Return the error message a server put in its body (OpenAI style or plain text)."""
    try:
        body = response.json()
    except ValueError:
        text = response.text.strip()
        return " ".join(text.split())[:_MAX_SERVER_MESSAGE]
    message: Any = body
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message", error) if isinstance(error, dict) else error
    text = message if isinstance(message, str) else json.dumps(message)
    return " ".join(text.split())[:_MAX_SERVER_MESSAGE]


def is_configured(settings: Settings) -> bool:
    """Whether the endpoint can be called as configured: a key is set, or the base URL is not
    OpenAI's (a local server needs none; a hosted one's own error says when it does)."""
    return bool(settings.openai_api_key) or not _is_openai(settings.openai_base_url)


def _is_openai(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host == OPENAI_HOST or host.endswith("." + OPENAI_HOST)


class OpenAIBackend:
    """Answer with a model behind an OpenAI-compatible chat-completions endpoint."""

    name = "openai"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.url = settings.openai_base_url.rstrip("/") + "/chat/completions"
        self.model = settings.openai_model
        self._key = settings.openai_api_key or None

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
            BackendError: no key for api.openai.com, the server is unreachable or too slow,
                it answered with an HTTP error, or its answer could not be read.
        """
        self._check_key()
        body = {
            "model": self.model,
            "messages": prompt.messages(),
            "max_tokens": max_tokens,
            "temperature": temperature,
            "stream": stream,
        }
        headers = {"Accept": "text/event-stream" if stream else "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        logger.debug("POST %s model=%s stream=%s", _display_url(self.url), self.model, stream)
        try:
            with (
                httpx.Client(timeout=self.settings.request_timeout) as client,
                client.stream("POST", self.url, json=body, headers=headers) as response,
            ):
                if response.status_code >= 400:
                    response.read()
                    raise self._http_error(response)
                if stream:
                    yield from self._read_events(response)
                else:
                    response.read()
                    yield self._read_completion(response)
        except httpx.ConnectTimeout as exc:
            raise self._error(
                f"cannot reach {self._where()} within {self._timeout()}: is the server running?"
            ) from exc
        except httpx.TimeoutException as exc:
            raise self._error(
                f"no answer from {self._where()} within {self._timeout()}: the server or "
                "model is too slow; raise RAG_REQUEST_TIMEOUT or try a smaller model"
            ) from exc
        except httpx.ConnectError as exc:
            raise self._error(
                f"cannot reach {self._where()}: is the server running? ({exc})"
            ) from exc
        except httpx.HTTPError as exc:
            raise self._error(
                f"request to {self._where()} failed: {exc} (check RAG_OPENAI_BASE_URL)"
            ) from exc

    # -- checks and errors

    def _check_key(self) -> None:
        if not self._key and _is_openai(self.url):
            raise BackendError(
                f"No API key for {self._where()}: set OPENAI_API_KEY or RAG_OPENAI_API_KEY, "
                "or point RAG_OPENAI_BASE_URL at a local server."
            )

    def _where(self) -> str:
        return _display_url(self.url)

    def _timeout(self) -> str:
        return f"{self.settings.request_timeout:g} s"

    def _error(self, message: str) -> BackendError:
        """Return a BackendError with the key blanked out, wherever a server echoed it."""
        if self._key:
            message = message.replace(self._key, "***")
        return BackendError(message)

    def _http_error(self, response: httpx.Response) -> BackendError:
        status = response.status_code
        said = (_server_message(response) or response.reason_phrase).rstrip(". ")
        where = f"HTTP {status} from {self._where()}: {said}"
        if status in (401, 403):
            todo = "check OPENAI_API_KEY or RAG_OPENAI_API_KEY"
        elif status == 404:
            todo = (
                "check RAG_OPENAI_BASE_URL (it usually ends in /v1) and that the server "
                f"serves the model {self.model!r} (RAG_OPENAI_MODEL)"
            )
        elif status == 429:
            todo = "rate limit or quota reached: wait and retry, or check your plan"
        elif status >= 500:
            todo = "the server failed: retry later or check its logs"
        else:
            todo = "the server rejected the request: check RAG_OPENAI_MODEL and max_tokens"
        return self._error(f"{where}; {todo}.")

    # -- reading answers

    def _malformed(self, detail: str) -> BackendError:
        return self._error(
            f"malformed response from {self._where()}: {detail}; is it an OpenAI-compatible "
            "/chat/completions endpoint (RAG_OPENAI_BASE_URL usually ends in /v1)?"
        )

    def _read_completion(self, response: httpx.Response) -> str:
        try:
            data = response.json()
        except ValueError:
            raise self._malformed("the body is not JSON") from None
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise self._malformed("no choices[0].message.content") from None
        if content is not None and not isinstance(content, str):
            raise self._malformed("choices[0].message.content is not text")
        return content or ""

    def _read_events(self, response: httpx.Response) -> Iterator[str]:
        """Yield the content deltas of a server-sent-event stream until `[DONE]`."""
        for line in response.iter_lines():
            if not line.startswith("data:"):
                continue  # blank separators, `: keep-alive` comments, `event:` fields
            payload = line[len("data:") :].strip()
            if payload == "[DONE]":
                return
            try:
                event = json.loads(payload)
            except ValueError:
                raise self._malformed(f"an event is not JSON: {payload[:80]!r}") from None
            if isinstance(event, dict) and "error" in event:
                said = event["error"]
                said = said.get("message", said) if isinstance(said, dict) else said
                raise self._error(f"{self._where()} failed mid-answer: {said}")
            try:
                choices = event["choices"]
                piece = choices[0].get("delta", {}).get("content") if choices else None
            except (KeyError, IndexError, TypeError, AttributeError):
                raise self._malformed("an event has no choices[0].delta") from None
            if piece is not None and not isinstance(piece, str):
                raise self._malformed("choices[0].delta.content is not text")
            if piece:
                yield piece
