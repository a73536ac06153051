"""How to reach Chroma: an embedded folder, or a server with its token, tenant and database.

The token is sent the way Chroma's own clients send it (`TokenAuthClientProvider`):
`Authorization: Bearer <token>` by default, or `X-Chroma-Token: <token>` (Chroma Cloud, and
servers configured with `chroma_auth_token_transport_header`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from rag.errors import ConfigError

if TYPE_CHECKING:
    from rag.settings import Settings

DEFAULT_TENANT = "default_tenant"  # chromadb.config's names, kept here to avoid importing it
DEFAULT_DATABASE = "default_database"
TOKEN_HEADERS = ("Authorization", "X-Chroma-Token")


@dataclass(frozen=True)
class ChromaServer:
    """A Chroma server and what it takes to use one collection there."""

    url: str
    token: str | None = None
    token_header: str = "Authorization"
    tenant: str = DEFAULT_TENANT
    database: str = DEFAULT_DATABASE

    @classmethod
    def from_settings(cls, settings: Settings) -> ChromaServer | None:
        """Return the server the settings name, or None for the embedded store.

        Raises:
            ConfigError: a token, tenant or database is set without a server URL.
        """
        token = settings.chroma_token.get_secret_value() if settings.chroma_token else None
        if not settings.chroma_url:
            extra = [
                name
                for name, value, default in (
                    ("chroma_token", token, None),
                    ("chroma_tenant", settings.chroma_tenant, DEFAULT_TENANT),
                    ("chroma_database", settings.chroma_database, DEFAULT_DATABASE),
                )
                if value != default
            ]
            if extra:
                raise ConfigError(
                    f"{', '.join(extra)} apply to a Chroma server only: set chroma_url "
                    "(--chroma-url or RAG_CHROMA_URL) too, or unset them."
                )
            return None
        return cls(
            url=settings.chroma_url,
            token=token,
            token_header=settings.chroma_token_header,
            tenant=settings.chroma_tenant,
            database=settings.chroma_database,
        )

    @property
    def where(self) -> str:
        """Where the collections live, for messages (never the token)."""
        return f"{self.url} (tenant {self.tenant!r}, database {self.database!r})"

    def connect(self) -> Any:
        """Return a `chromadb.HttpClient` for this server, tenant and database.

        Raises:
            ConfigError: the URL is malformed, the server is unreachable, refuses the token,
                or has no such tenant or database.
        """
        url = urlparse(self.url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ConfigError(f"Chroma URL {self.url!r} is not of the form http://host:port.")
        import chromadb
        from chromadb.errors import ChromaAuthError, ChromaError, NotFoundError

        try:
            return chromadb.HttpClient(
                host=url.hostname,
                port=url.port or (443 if url.scheme == "https" else 8000),
                ssl=url.scheme == "https",
                settings=self._chroma_settings(),
                tenant=self.tenant,
                database=self.database,
            )
        except ChromaAuthError:
            how = f"{self.token_header} header" if self.token else "no token"
            raise ConfigError(
                f"The Chroma server at {self.url} refused the request ({how}): set "
                "RAG_CHROMA_TOKEN to its token (and chroma_token_header to the header it "
                "expects, Authorization or X-Chroma-Token)."
            ) from None
        except NotFoundError as exc:
            raise ConfigError(
                f"Chroma at {self.where}: {exc}; create it on the server "
                "(chromadb.AdminClient) or fix chroma_tenant / chroma_database."
            ) from None
        except (ChromaError, ValueError) as exc:
            raise ConfigError(f"Cannot use the Chroma server at {self.where}: {exc}") from None

    def _chroma_settings(self) -> Any:
        from chromadb.config import Settings as ChromaSettings

        if not self.token:
            return ChromaSettings(anonymized_telemetry=False)
        return ChromaSettings(
            anonymized_telemetry=False,
            chroma_client_auth_provider="chromadb.auth.token_authn.TokenAuthClientProvider",
            chroma_client_auth_credentials=self.token,
            chroma_auth_token_transport_header=self.token_header,
        )


def embedded_client(index_dir: Path) -> Any:
    """Return a `chromadb.PersistentClient` on the index folder (created when missing)."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    index_dir.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(
        path=str(index_dir), settings=ChromaSettings(anonymized_telemetry=False)
    )
