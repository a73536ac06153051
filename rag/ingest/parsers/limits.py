"""Caps on one record, past which it is surely not a paper's metadata and abstract.

Every format's papers pass through `check` (in `rag.ingest.parsers.iter_path`), so no format can
let a full text, a mangled author list or an abstract pasted into the title into the index.
"""

from __future__ import annotations

from rag.records import Paper

# Abstracts run to a few thousand characters; 20,000 leaves room for long ones.
MAX_ABSTRACT_CHARS = 20_000
# The largest collaboration papers (ATLAS, CMS) list about 3,000 authors.
MAX_AUTHORS = 5_000
MAX_TITLE_CHARS = 2_000


def check(paper: Paper) -> str | None:
    """Return why a paper breaks a cap, or None when it is within all of them.

    Args:
        paper: the parsed paper.

    Returns:
        A reason a user can act on, naming the size and the limit.
    """
    if len(paper.abstract) > MAX_ABSTRACT_CHARS:
        return abstract_too_long(len(paper.abstract))
    if len(paper.authors) > MAX_AUTHORS:
        return (
            f"{len(paper.authors):,} authors, more than {MAX_AUTHORS:,}: "
            "check how the author list is separated"
        )
    if paper.title is not None and len(paper.title) > MAX_TITLE_CHARS:
        return (
            f"title is {len(paper.title):,} characters, more than {MAX_TITLE_CHARS:,}: "
            "is the abstract in the title field?"
        )
    return None


def abstract_too_long(chars: int) -> str:
    """Return the abstract cap's reason for a text of `chars` characters (not kept whole)."""
    return (
        f"abstract is {chars:,} characters, more than {MAX_ABSTRACT_CHARS:,}: "
        "is this the full text? Give the abstract only"
    )
