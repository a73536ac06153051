"""Papers a question names by the method names their abstracts introduce.

"ConPress vs LDPVR", "How do TRM and TreePO differ?", "Certified Circuits versus ExPLAIND":
a question that names two papers or more is about those papers. A sentence encoder reads such
a question mostly as its first name, so the per-paper judgement used to leave the others out
(bench/results/paper_choice.md). Names are those the answers show for papers without a title
("Ju et al. — ICGNN"), matched as written, case included: "CELL" names a paper, "cell" does not.
A name two papers share names neither, and of names that overlap the longest is read. One name
alone is left to the search, which finds that paper and others on its topic when the question
asks for them ("papers like ConPress"), unless no paper would answer it and the rest holds a
word no paper holds ("does ASMC support API fees?": `asked_of_one_named`).
"""

from __future__ import annotations

import re

from rag.answer.abstention import words_no_paper_holds
from rag.answer.record_questions import fields_asked_of_named
from rag.answer.rewrite import Condensed
from rag.index.catalog import per_catalog
from rag.index.paper_index import Index
from rag.index.retrieve import Filters
from rag.ingest.naming import defined_names, method_name
from rag.records import Paper

_TOKEN = re.compile(r"[\w-]+")  # "TRM's" is TRM, "ZS-SVD" one token
Names = dict[str, list[tuple[tuple[str, ...], Paper]]]
# A name an abstract defines names its paper when the abstract writes it this often, the
# definition included: a name the paper goes on to use, not one it mentions in passing.
_USES = 3


def method_of(paper: Paper) -> str | None:
    """The method name in a derived label ("Ju et al. — ICGNN" gives "ICGNN"), if any."""
    if not paper.label_derived or " — " not in paper.label:
        return None
    return paper.label.split(" — ", 1)[1].strip() or None


def _own_names(papers: dict[str, Paper]) -> dict[str, str]:
    """The name of each paper whose label shows none, when its abstract gives one: the method
    it introduces (`method_name`: a titled paper's label is its title), else the name it
    defines in parentheses and goes on using ("program-of-layers (PoLar)" then "PoLar
    improves accuracy", `defined_names`), most used first, which no other abstract writes
    ("GRPO", defined by one paper and used by five, names none) and which is no plural
    ("PINNs" are a kind of model, not theirs)."""
    unnamed = {pid: p for pid, p in papers.items() if p.abstract and not method_of(p)}
    found: dict[str, str] = {}
    candidates: dict[str, list[str]] = {}
    for pid, paper in unnamed.items():
        if (name := method_name(paper.abstract)) is not None:
            found[pid] = name
        else:
            used = [n for n in defined_names(paper.abstract) if not re.search(r"[A-Z]s$", n)]
            counts = {
                n: len(re.findall(rf"(?<![\w-]){re.escape(n)}(?![\w-])", paper.abstract))
                for n in used
            }
            candidates[pid] = sorted(
                (n for n in used if counts[n] >= _USES), key=lambda n: -counts[n]
            )
    wanted = {n for names in candidates.values() for n in names}
    writers = dict.fromkeys(wanted, 0)
    for paper in papers.values():
        for token in wanted & set(_TOKEN.findall(paper.abstract or "")):
            writers[token] += 1
    for pid, names in candidates.items():
        if own := [n for n in names if writers[n] == 1]:
            found[pid] = own[0]
    return found


@per_catalog
def _table(papers: dict[str, Paper]) -> Names:
    """Each method name held by one paper alone, as tokens, under its first token: the one
    its derived label shows, else the one its abstract gives (`_own_names`)."""
    holders: dict[tuple[str, ...], list[Paper]] = {}
    own = _own_names(papers)
    for paper in papers.values():
        name = method_of(paper) or own.get(paper.id)
        if name and (tokens := tuple(_TOKEN.findall(name))):
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


def record_of_named(
    index: Index, question: str, filters: Filters | None = None
) -> tuple[Condensed, tuple[str, ...]] | None:
    """A request for the records of the papers it names and nothing else ("bibtex for ZS-SVD",
    "RIS for ICGNN please", "reference for Certified Circuits", "ICGNN authors"): of those
    papers, with the fields it asks for (`fields_asked_of_named`), whose record lines (and
    entries) answer it. Searched as typed, "bibtex for IDFT" was told no paper used "bibtex"
    and answered with IDFT's finding, "reference for Certified Circuits" with its finding (new
    users, stop 66). None when it names no paper or asks something besides the record ("who
    wrote ICGNN and is it fast?")."""
    papers, rest = named_and_rest(index, question, filters)
    fields = fields_asked_of_named(question, rest) if papers else ()
    if not fields:
        return None
    return Condensed(question, question, "papers", papers), fields


def asked_of_one_named(
    index: Index, question: str, filters: Filters | None = None
) -> Condensed | None:
    """`question` asked of the one paper it names when the rest of it holds a topic word no
    paper holds and asks for no other papers, for a question no paper would answer otherwise
    (`papers_used`): "does ASMC support API fees?" was told the collection had no paper on it
    and that none came near, ASMC among them (a new user, stop 65). Not "papers like ConPress on
    quantum chemistry" nor "besides TreePO, which papers study protein folding?": those ask the
    collection. A follow-up naming a paper is asked of it beside the papers it points at
    (`resolution.naming_another`)."""
    papers, rest = named_and_rest(index, question, filters)
    if len(papers) != 1 or _OTHER_PAPERS.search(rest) or not words_no_paper_holds(index, rest):
        return None
    return Condensed(question, question, "papers", papers, asked=rest or None)


# A question that asks for other papers than the one it names.
_OTHER_PAPERS = re.compile(
    r"\b(?:papers?|studies|articles|methods|approaches|others?|besides|apart\s+from|"
    r"except|other\s+than|like|similar|alternatives?)\b",
    re.IGNORECASE,
)
