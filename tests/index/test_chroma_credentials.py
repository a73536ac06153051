"""A Chroma server with a tenant, a database and a token, against real Chroma servers.

Tenant and database: the Rust `chroma run` of chromadb 1.5.9 (what the README deploys). Token:
`chroma run` 1.5.9 has no server-side authentication (it accepts any or no token), so the token
is tested against Chroma's own Python server (`chromadb.app`, FastAPI) with Chroma's
`TokenAuthenticationServerProvider`, which rejects a request without the right token (403).
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

import rag
from rag.cli import cli
from rag.errors import ConfigError
from rag.index.paper_index import Index
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from tests.chroma_server import free_port, serving
from tests.fake_embedding import FakeEmbedding

CHROMA = Path(sys.executable).parent / "chroma"
TOKEN = "s3cret-token"  # a test value, not a credential


class MiniLMShaped(FakeEmbedding):
    """A fake with the bundled model's name and size, so the CLI accepts its index."""

    name = "all-MiniLM-L6-v2"
    dim = 384


@pytest.fixture
def chroma_run(tmp_path: Path) -> Iterator[str]:
    """The Rust server `chroma run`, as deployed."""
    if not CHROMA.exists() and not shutil.which("chroma"):
        pytest.skip("the `chroma` command of chromadb is not installed")
    port = free_port()
    command = [str(CHROMA), "run", "--path", str(tmp_path / "srv"), "--host", "127.0.0.1"]
    with serving([*command, "--port", str(port)], port) as url:
        yield url


@contextmanager
def _token_server(tmp_path: Path, header: str) -> Iterator[str]:
    if importlib.util.find_spec("opentelemetry.instrumentation.fastapi") is None:
        pytest.skip("Chroma's Python server needs opentelemetry-instrumentation-fastapi (dev)")
    port = free_port()
    env = {
        "IS_PERSISTENT": "TRUE",
        "PERSIST_DIRECTORY": str(tmp_path / "authsrv"),
        "ANONYMIZED_TELEMETRY": "False",
        "CHROMA_SERVER_AUTHN_PROVIDER": (
            "chromadb.auth.token_authn.TokenAuthenticationServerProvider"
        ),
        "CHROMA_SERVER_AUTHN_CREDENTIALS": TOKEN,
        "CHROMA_AUTH_TOKEN_TRANSPORT_HEADER": header,
    }
    command = [sys.executable, "-m", "uvicorn", "chromadb.app:app", "--host", "127.0.0.1"]
    with serving([*command, "--port", str(port)], port, env) as url:
        yield url


def _admin(url: str):  # type: ignore[no-untyped-def]
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    host, port = url.removeprefix("http://").split(":")
    return chromadb.AdminClient(
        ChromaSettings(
            anonymized_telemetry=False,
            chroma_api_impl="chromadb.api.fastapi.FastAPI",
            chroma_server_host=host,
            chroma_server_http_port=int(port),
        )
    )


def test_tenant_and_database_on_chroma_run(
    chroma_run: str, seeds_copy: Path, tmp_path: Path
) -> None:
    admin = _admin(chroma_run)
    admin.create_tenant("lab")
    admin.create_database("reviews", tenant="lab")
    lab = Settings(
        index_dir=tmp_path / "lab",
        chroma_url=chroma_run,
        chroma_tenant="lab",
        chroma_database="reviews",
    )
    served = Index(lab, FakeEmbedding(), create=True)
    assert ingest([seeds_copy], served).added == 40

    # The papers live in lab/reviews only: the default database of the same server is empty.
    default = Index(
        Settings(index_dir=tmp_path / "default", chroma_url=chroma_run),
        FakeEmbedding(),
        create=True,
    )
    assert default.store.count() == 0 and served.store.count() == 40
    embedded = Index(Settings(index_dir=tmp_path / "embedded"), FakeEmbedding(), create=True)
    ingest([seeds_copy], embedded)
    for query in ("noisy labels on graphs", "auction mechanism learning"):
        a = rag.search(query, index=embedded, k=5)
        b = rag.search(query, index=Index(lab, FakeEmbedding()), k=5)
        assert [h.paper.id for h in a] == [h.paper.id for h in b]


def test_a_missing_tenant_or_database_is_one_line(
    chroma_run: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _admin(chroma_run).create_tenant("lab")
    missing = {
        "RAG_CHROMA_TENANT": ("nope", "Tenant [nope] not found"),
        "RAG_CHROMA_DATABASE": ("nope", "Database [nope] not found"),
    }
    for variable, (value, said) in missing.items():
        with monkeypatch.context() as env:
            env.setenv(variable, value)
            if variable == "RAG_CHROMA_DATABASE":
                env.setenv("RAG_CHROMA_TENANT", "lab")
            result = CliRunner().invoke(
                cli, ["list", "--chroma-url", chroma_run, "--index", str(tmp_path)]
            )
        assert result.exit_code == 1, result.output
        message = result.output.strip()
        assert said in message and "chroma_tenant / chroma_database" in message
        assert "\n" not in message and "Traceback" not in message


@pytest.mark.parametrize("header", ["Authorization", "X-Chroma-Token"])
def test_the_token_is_sent_as_chromas_clients_send_it(
    header: str, seeds_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _token_server(tmp_path, header) as url:
        # The server enforces the token: a request without it is refused.
        collections = f"{url}/api/v2/tenants/default_tenant/databases/default_database/collections"
        assert httpx.get(collections).status_code == 403

        settings = Settings(
            index_dir=tmp_path / "client",
            chroma_url=url,
            chroma_token=TOKEN,
            chroma_token_header=header,
        )
        assert ingest([seeds_copy], Index(settings, MiniLMShaped(), create=True)).added == 40
        hits = rag.search("noisy labels on graphs", index=Index(settings, MiniLMShaped()), k=3)
        assert len(hits) == 3

        # From the command line the token comes from the environment, never a flag.
        args = ["list", "--chroma-url", url, "--index", str(tmp_path / "cli")]
        monkeypatch.setenv("RAG_CHROMA_TOKEN", TOKEN)
        monkeypatch.setenv("RAG_CHROMA_TOKEN_HEADER", header)
        listing = CliRunner().invoke(cli, args)
        assert listing.exit_code == 0 and "40 papers" in listing.output, listing.output

        other = "X-Chroma-Token" if header == "Authorization" else "Authorization"
        for token, sent_in in ((None, header), ("wrong-token", header), (TOKEN, other)):
            if token:
                monkeypatch.setenv("RAG_CHROMA_TOKEN", token)
            else:
                monkeypatch.delenv("RAG_CHROMA_TOKEN")
            monkeypatch.setenv("RAG_CHROMA_TOKEN_HEADER", sent_in)
            refused = CliRunner().invoke(cli, args)
            assert refused.exit_code == 1
            assert f"The Chroma server at {url} refused the request" in refused.output
            assert "RAG_CHROMA_TOKEN" in refused.output and TOKEN not in refused.output


def test_server_settings_without_a_server_are_an_error(tmp_path: Path) -> None:
    settings = Settings(index_dir=tmp_path / "idx", chroma_token=TOKEN, chroma_tenant="lab")
    with pytest.raises(ConfigError, match="chroma_token, chroma_tenant apply to a Chroma server"):
        Index(settings, FakeEmbedding(), create=True)
    assert TOKEN not in repr(settings) and TOKEN not in settings.model_dump_json()
