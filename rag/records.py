"""Typed records that flow through the pipeline: papers, search hits, answers."""

from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import asdict, dataclass, field, replace
from typing import Any


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split()).casefold()


def paper_id(authors: list[str] | tuple[str, ...], abstract: str, title: str | None = None) -> str:
    """Return the content id of a paper: a hash of normalized authors, title and abstract.

    The file a paper came from is not part of it, so a moved file is not a new paper and
    re-ingesting the same text is a no-op.
    """
    key = "\x1f".join([_norm("; ".join(authors)), _norm(title or ""), _norm(abstract)])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Paper:
    """One paper: metadata as the source gave it, never invented.

    `abstract` is the clean text (LaTeX and Markdown markup removed) used for display and
    search; it is "" for a title-only record (`title_only`), kept from an entry without an
    abstract. `label` is a derived display name when there is no title (`label_derived`).
    """

    id: str
    authors: tuple[str, ...]
    abstract: str
    area: str | None = None
    title: str | None = None
    year: int | None = None
    doi: str | None = None
    url: str | None = None
    authors_truncated: bool = False
    external_id: str | None = None
    source: str = ""
    citation_key: str = ""
    label: str = ""
    label_derived: bool = False
    # The role of each sentence of the abstract, its headings removed (background, objective,
    # method, result, conclusion: `rag.ingest.roles`), set at ingest; () in older indexes.
    sentence_roles: tuple[str, ...] = ()

    @classmethod
    def create(
        cls,
        *,
        authors: list[str] | tuple[str, ...],
        abstract: str,
        **fields: Any,
    ) -> Paper:
        """Build a paper whose id is derived from its content."""
        pid = paper_id(authors, abstract, fields.get("title"))
        return cls(id=pid, authors=tuple(authors), abstract=abstract, **fields)

    @property
    def title_only(self) -> bool:
        """Whether the source gave no abstract: searchable and citable by title, never evidence."""
        return not self.abstract

    @property
    def title_key(self) -> str | None:
        """The id this paper has as a title-only record (None without a title).

        A title-only record and the same entry read later with its abstract share it, so the
        one with the abstract replaces the other instead of sitting beside it.
        """
        return paper_id(self.authors, "", self.title) if self.title else None

    @property
    def source_file(self) -> str:
        """The file part of `source` (`path:line`)."""
        path, _, line = self.source.rpartition(":")
        return path if line.isdigit() else self.source

    def with_(self, **changes: Any) -> Paper:
        """Return a copy with some fields changed."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict (authors as a list)."""
        data = asdict(self)
        data["authors"] = list(self.authors)
        data["title_only"] = self.title_only
        data["sentence_roles"] = list(self.sentence_roles)
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Paper:
        data = dict(data)
        data["authors"] = tuple(data.get("authors") or ())
        data["sentence_roles"] = tuple(data.get("sentence_roles") or ())
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def from_json(cls, text: str) -> Paper:
        return cls.from_dict(json.loads(text))


@dataclass(frozen=True)
class ParseNotice:
    """What a user should know about a file that was still read whole (not an error).

    Said once per file, however many entries it concerns ("3 entries have no citation key").
    """

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class Hit:
    """A paper found by a search, with its rank, fused score and best-matching snippet."""

    paper: Paper
    rank: int
    score: float
    snippet: str
    relevance: float = 0.0  # cosine similarity of the best chunk: what abstention looks at

    def to_dict(self) -> dict[str, Any]:
        """Return the `search --json` shape: paper fields plus rank, score, snippet."""
        data = self.paper.to_dict()
        data.update(
            rank=self.rank,
            score=round(self.score, 6),
            relevance=round(self.relevance, 6),
            snippet=self.snippet,
        )
        return data


@dataclass(frozen=True)
class IngestReport:
    """What an ingest did: counts, and the errors of the files or records it skipped."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    upgraded: int = 0  # title-only records removed: the same paper is in with its abstract
    files: int = 0
    errors: tuple[str, ...] = field(default_factory=tuple)
    # Citation keys from the files that were taken: each message names both papers and the
    # key this one got instead. Not an error: every paper still went in.
    key_clashes: tuple[str, ...] = field(default_factory=tuple)
    # Stored papers whose source now gives another key (renamed in the reference manager).
    key_changes: tuple[str, ...] = field(default_factory=tuple)
    # One line per file about its entries without an abstract (and other notes that are not
    # errors, such as entries without a citation key); the entries themselves, one a line.
    notes: tuple[str, ...] = field(default_factory=tuple)
    no_abstract: tuple[str, ...] = field(default_factory=tuple)

    @property
    def partial(self) -> bool:
        return bool(self.errors)
