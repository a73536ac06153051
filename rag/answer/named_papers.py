"""Papers a question names by the method names their abstracts introduce.

"ConPress vs LDPVR", "How do TRM and TreePO differ?", "Certified Circuits versus ExPLAIND":
a question that names two papers or more is about those papers. A sentence encoder reads such
a question mostly as its first name, so the per-paper judgement used to leave the others out
(bench/results/paper_choice.md). Names are those the answers show for papers without a title
("Ju et al. — ICGNN"), matched as written, case included: "CELL" names a paper, "cell" does not.
A name two papers share names neither, and of names that overlap the longest is read. One name
alone is left to the search, which finds that paper and others on its topic when the question
asks for them ("papers like ConPress").
"""

from __future__ import annotations

import re

from rag.answer.condense import Condensed
from rag.index.catalog import per_catalog
from rag.index.paper_index import Index
from rag.index.retrieve import Filters
from rag.records import Paper

_TOKEN = re.compile(r"[\w-]+")  # "TRM's" is TRM, "ZS-SVD" one token
Names = dict[str, list[tuple[tuple[str, ...], Paper]]]


def method_of(paper: Paper) -> str | None:
    """The method name in a derived label ("Ju et al. — ICGNN" gives "ICGNN"), if any."""
    if not paper.label_derived or " — " not in paper.label:
        return None
    return paper.label.split(" — ", 1)[1].strip() or None


@per_catalog
def _table(papers: dict[str, Paper]) -> Names:
    """Each method name held by one paper alone, as tokens, under its first token."""
    holders: dict[tuple[str, ...], list[Paper]] = {}
    for paper in papers.values():
        if (name := method_of(paper)) and (tokens := tuple(_TOKEN.findall(name))):
            holders.setdefault(tokens, []).append(paper)
    table: Names = {}
    for tokens, held_by in holders.items():
        if len(held_by) == 1:
            table.setdefault(tokens[0], []).append((tokens, held_by[0]))
    return table


def _named_in(
    index: Index, text: str, filters: Filters | None = None
) -> tuple[dict[str, Paper], list[tuple[int, int]]]:
    """The papers `text` names by their method names, in the order named, and where each name
    stands (the longest of overlapping names; papers with an abstract that pass `filters`)."""
    matches = list(_TOKEN.finditer(text))
    tokens = [m.group() for m in matches]
    table = _table(index.papers)
    papers: dict[str, Paper] = {}
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(tokens):
        names = [n for n in table.get(tokens[i], ()) if tuple(tokens[i : i + len(n[0])]) == n[0]]
        if not names:
            i += 1
            continue
        name, paper = max(names, key=lambda n: len(n[0]))  # "Graph Mamba", not "Graph"
        if not paper.title_only and (not filters or filters.accepts(paper)):
            papers[paper.id] = paper
            spans.append((matches[i].start(), matches[i + len(name) - 1].end()))
        i += len(name)
    return papers, spans


def papers_named(index: Index, text: str) -> tuple[Paper, ...]:
    """The papers `text` names by their method names (as `named_papers` reads names), one or
    more, in the order named."""
    return tuple(_named_in(index, text)[0].values())


def named_and_rest(
    index: Index, question: str, filters: Filters | None = None
) -> tuple[tuple[Paper, ...], str]:
    """Return the papers `question` names (that have an abstract and pass `filters`), in the
    order named, and the question without their names."""
    papers, spans = _named_in(index, question, filters)
    rest = question
    for start, end in reversed(spans):
        rest = rest[:start] + rest[end:]
    return tuple(papers.values()), " ".join(rest.split())


def named_papers(
    index: Index, question: str, filters: Filters | None = None
) -> tuple[tuple[Paper, ...], str] | None:
    """Return the papers `question` names, when two or more, and the question without their
    names (None: it names fewer than two that have an abstract and pass `filters`)."""
    papers, rest = named_and_rest(index, question, filters)
    return (papers, rest) if len(papers) >= 2 else None


def asked_of_named(index: Index, question: str, filters: Filters | None = None) -> Condensed | None:
    """`question` asked of the two or more papers it names, each of which gets its line."""
    named = named_papers(index, question, filters)
    if named is None:
        return None
    papers, rest = named
    return Condensed(question, question, "papers", papers, asked=rest or None)
