"""Papers a question names by the method names their abstracts introduce.

"ConPress vs LDPVR", "How do TRM and TreePO differ?", "Certified Circuits versus ExPLAIND":
a question that names two papers or more is about those papers. A sentence encoder reads such
a question mostly as its first name, so the per-paper judgement used to leave the others out
(bench/results/paper_choice.md). Names are those the answers show for papers without a title
("Ju et al. — ICGNN"), matched as written, case included: "CELL" names a paper, "cell" does not.
One name alone is left to the search, which finds that paper and others on its topic when the
question asks for them ("papers like ConPress").
"""

from __future__ import annotations

import re

from rag.answer.condense import Condensed
from rag.index.paper_index import Index
from rag.records import Paper

_TOKEN = re.compile(r"[\w'\u2019-]+")
Table = dict[str, list[tuple[tuple[str, ...], Paper]]]
_TABLES: list[tuple[dict[str, Paper], Table]] = []


def method_of(paper: Paper) -> str | None:
    """The method name in a derived label ("Ju et al. — ICGNN" gives "ICGNN"), if any."""
    if not paper.label_derived or " — " not in paper.label:
        return None
    return paper.label.split(" — ", 1)[1].rstrip("*").strip() or None


def _table(papers: dict[str, Paper]) -> Table:
    """Each method name of `papers`, as tokens, under its first token."""
    for held, known in _TABLES:
        if held is papers:
            return known
    table: Table = {}
    for paper in papers.values():
        if name := method_of(paper):
            tokens = tuple(_TOKEN.findall(name))
            if tokens:
                table.setdefault(tokens[0], []).append((tokens, paper))
    _TABLES[:] = [*_TABLES[-3:], (papers, table)]
    return table


def named_papers(index: Index, question: str) -> tuple[tuple[Paper, ...], str] | None:
    """Return the papers `question` names, when two or more, and the question without their
    names (None: it names fewer than two)."""
    matches = list(_TOKEN.finditer(question))
    tokens = [m.group() for m in matches]
    table = _table(index.papers)
    papers: dict[str, Paper] = {}
    spans: list[tuple[int, int]] = []
    for i, token in enumerate(tokens):
        for name, paper in table.get(token, ()):
            if tuple(tokens[i : i + len(name)]) == name:
                papers[paper.id] = paper
                spans.append((matches[i].start(), matches[i + len(name) - 1].end()))
    if len(papers) < 2:
        return None
    rest = question
    for start, end in sorted(set(spans), reverse=True):
        rest = rest[:start] + rest[end:]
    return tuple(papers.values()), " ".join(rest.split())


def asked_of_named(index: Index, question: str) -> Condensed | None:
    """`question` asked of the two or more papers it names, each of which gets its line."""
    named = named_papers(index, question)
    return None if named is None else Condensed(question, question, "papers", named[0])
