"""The structured results of the MCP tools (`rag.mcp.server`): typed, JSON-schema'd shapes.

Each is built from the library's own records, so the MCP face formats and adds nothing.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from rag.records import Hit, IngestReport, Paper


class PaperRecord(BaseModel):
    """One paper's metadata as the source gave it; `label` is derived when `title` is null."""

    key: str = Field(description="Citation key: the one the source gave, else derived.")
    id: str = Field(description="Content id (hash of authors, title and abstract).")
    title: str | None
    label: str = Field(description="Display name; derived from authors and method if no title.")
    label_derived: bool
    authors: list[str]
    authors_truncated: bool = Field(description="The source cut the author list short.")
    year: int | None
    area: str | None
    doi: str | None
    url: str | None
    external_id: str | None = Field(description="arXiv id, PMID or BEIR id, when known.")
    source: str = Field(description="File and line the record was read from.")
    abstract: str

    @classmethod
    def of(cls, paper: Paper) -> PaperRecord:
        return cls(
            key=paper.citation_key,
            id=paper.id,
            title=paper.title,
            label=paper.title or paper.label,
            label_derived=paper.label_derived,
            authors=list(paper.authors),
            authors_truncated=paper.authors_truncated,
            year=paper.year,
            area=paper.area,
            doi=paper.doi,
            url=paper.url,
            external_id=paper.external_id,
            source=paper.source,
            abstract=paper.abstract,
        )


class PaperHit(BaseModel):
    """A paper found by a search, best first, with the passage that matched."""

    rank: int
    key: str
    title: str | None
    label: str
    authors: list[str]
    year: int | None
    area: str | None
    doi: str | None
    score: float = Field(description="Fused search score (or similarity for similar_papers).")
    relevance: float = Field(description="Cosine similarity of the best passage.")
    snippet: str

    @classmethod
    def of(cls, hit: Hit) -> PaperHit:
        p = hit.paper
        return cls(
            rank=hit.rank,
            key=p.citation_key,
            title=p.title,
            label=p.title or p.label,
            authors=list(p.authors),
            year=p.year,
            area=p.area,
            doi=p.doi,
            score=round(hit.score, 4),
            relevance=round(hit.relevance, 4),
            snippet=hit.snippet,
        )


class SearchResult(BaseModel):
    papers: list[PaperHit]


class CitedPaper(BaseModel):
    """A paper an answer cites as `[n]`, with the abstract sentence that supports it."""

    n: int
    key: str
    label: str
    authors: list[str]
    year: int | None
    doi: str | None
    relevance: float
    evidence: str = Field(description="The sentence of the abstract the answer rests on.")


class AskResult(BaseModel):
    answer: str = Field(description="Checked answer text with [n] markers.")
    abstained: bool = Field(description="True when the collection has no paper on this.")
    citations: list[CitedPaper]
    nearest: list[PaperHit] = Field(description="When abstaining: the nearest papers.")
    backend: str
    notice: str | None

    @classmethod
    def of(cls, answer: Any) -> AskResult:
        citations = [
            CitedPaper(
                n=c.n,
                key=c.hit.paper.citation_key,
                label=c.hit.paper.title or c.hit.paper.label,
                authors=list(c.hit.paper.authors),
                year=c.hit.paper.year,
                doi=c.hit.paper.doi,
                relevance=round(c.hit.relevance, 4),
                evidence=c.evidence,
            )
            for c in answer.citations
        ]
        return cls(
            answer=answer.answer,
            abstained=answer.abstained,
            citations=citations,
            nearest=[PaperHit.of(h) for h in answer.nearest] if answer.abstained else [],
            backend=answer.backend,
            notice=answer.notice,
        )


class Support(BaseModel):
    """A paper that supports a claim, with its best-matching sentence."""

    rank: int
    key: str
    label: str
    authors: list[str]
    year: int | None
    score: float
    sentence: str


def _support(s: Any) -> Support:
    return Support(
        rank=s.rank,
        key=s.paper.citation_key,
        label=s.paper.title or s.paper.label,
        authors=list(s.paper.authors),
        year=s.paper.year,
        score=round(s.score, 4),
        sentence=s.sentence,
    )


class ClaimResult(BaseModel):
    claim: str
    min_score: float = Field(description="Least support score a paper needs to be listed.")
    stance_checked: bool = Field(
        description="Whether a stance judge read the papers. False (the default set-up): "
        "`supports` are the papers closest to the claim's topic, not checked to agree with it; "
        "one may say the opposite."
    )
    supports: list[Support] = Field(description="Empty when no paper supports the claim.")
    nearest: Support | None = Field(description="The best candidate, even below min_score.")

    @classmethod
    def of(cls, result: Any) -> ClaimResult:
        return cls(
            claim=result.claim,
            min_score=result.min_score,
            stance_checked=result.stance_checked,
            supports=[_support(s) for s in result.supports],
            nearest=_support(result.nearest) if result.nearest else None,
        )


class DraftSentence(BaseModel):
    text: str
    keys: list[str] = Field(description="Citation keys inserted after this sentence.")
    already_cited: bool


class DraftResult(BaseModel):
    text: str = Field(description="The draft with \\cite{key} or [@key] inserted.")
    style: str
    sentences: list[DraftSentence]
    keys: list[str] = Field(description="Every cited key, in order of first citation.")
    bibtex: str = Field(description="BibTeX entries of the cited papers.")
    stance_checked: bool = Field(
        description="Whether a stance judge read the papers. False (the default set-up): each "
        "citation is the paper closest to its sentence's topic, not checked to agree with it."
    )

    @classmethod
    def of(cls, cited: Any, bibtex: str) -> DraftResult:
        sentences = [
            DraftSentence(
                text=s.text,
                keys=[c.paper.citation_key for c in s.supports],
                already_cited=s.already_cited,
            )
            for s in cited.sentences
        ]
        keys = [p.citation_key for p in cited.papers]
        return cls(
            text=cited.text,
            style=cited.style,
            sentences=sentences,
            keys=keys,
            bibtex=bibtex,
            stance_checked=cited.stance_checked,
        )


class PaperResult(BaseModel):
    paper: PaperRecord
    bibtex: str


class ExportResult(BaseModel):
    format: str
    keys: list[str]
    text: str = Field(description="The reference list, ready to save as a file.")


class StatsResult(BaseModel):
    papers: int
    chunks: int
    areas: int
    with_title: int = Field(description="Papers whose source gives a title.")
    years: list[int] = Field(description="Earliest and latest year, when any paper has one.")
    index: str = Field(description="Where the index is.")
    writable: bool = Field(description="Whether ingest_files and remove_papers are offered.")


class IngestResult(BaseModel):
    added: int
    updated: int
    unchanged: int
    removed: int
    files: int
    errors: list[str] = Field(description="Skipped files and records, each with file and line.")
    key_clashes: list[str]
    key_changes: list[str]
    notes: list[str] = Field(
        default_factory=list,
        description="One line per file about what is not an error: entries without an abstract "
        "(not indexed, or kept as title-only records), entries without a citation key.",
    )

    @classmethod
    def of(cls, report: IngestReport) -> IngestResult:
        return cls(
            added=report.added,
            updated=report.updated,
            unchanged=report.unchanged,
            removed=report.removed,
            files=report.files,
            errors=list(report.errors),
            key_clashes=list(report.key_clashes),
            key_changes=list(report.key_changes),
            notes=list(report.notes),
        )


class RemoveResult(BaseModel):
    removed: list[str] = Field(description="Keys of the papers taken out of the index.")
