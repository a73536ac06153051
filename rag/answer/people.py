"""The people a question names, read from the collection's own author lists.

"Which papers has Wei Ju co-authored?", "what do Ju et al. find?", "MAI & Loubes on fairness":
a question that names an author is about that author's papers, whatever words surround the
name. Names are matched against the authors the collection holds (case and accents folded), not
against a list of phrasings:

- an author's full name, two words or more, as the index spells it ("Wei Ju", "Jean-Michel
  Loubes");
- the label the answers themselves show for a paper: "Ju et al.", "MAI & Loubes" (or "MAI and
  Loubes").

A lone surname is not read as a person: "Sun", "Long" or "Wang" alone could be a word or many
people. `People.rest` is the question without the names, for judging what it asks of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rag.answer.abstention import decide, question_terms
from rag.answer.condense import Condensed
from rag.answer.continuation import among, continues
from rag.answer.topicless import asks_no_paper
from rag.index.paper_index import Index
from rag.index.retrieve import search
from rag.index.spelling import corrected
from rag.ingest.naming import author_phrase
from rag.records import Paper
from rag.settings import Settings
from rag.text import fold

_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class People:
    """The authors a question names, their papers (index order), and the question without them."""

    names: tuple[str, ...]
    papers: tuple[Paper, ...]
    rest: str


def _words(text: str) -> list[tuple[str, int, int]]:
    """Folded words of `text` with their character spans."""
    return [(fold(m.group()), m.start(), m.end()) for m in _WORD.finditer(text)]


def _phrases(paper: Paper) -> Iterable[tuple[str, tuple[str, ...]]]:
    """(name as shown, its folded words) for each way a question may name the paper's people."""
    for author in paper.authors:
        words = tuple(w for w, _, _ in _words(author))
        if len(words) >= 2:
            yield author, words
    label = author_phrase(paper.authors, paper.authors_truncated)
    if " et al." in label or " & " in label:  # a lone surname is not a name here
        words = tuple(w for w, _, _ in _words(label))
        yield label, words
        if " & " in label:
            yield label, tuple(w for w, _, _ in _words(label.replace(" & ", " and ")))


Table = dict[str, list[tuple[tuple[str, ...], str, Paper]]]
# The phrase table of the catalogs last read, held with the catalog dict itself: an ingest or a
# refresh reads a new dict, so its table is built again.
_TABLES: list[tuple[dict[str, Paper], Table]] = []


def _table(papers: dict[str, Paper]) -> Table:
    """Each name phrase of `papers` under its first word, for a scan of a question's words."""
    for held, table in _TABLES:
        if held is papers:
            return table
    table = {}
    for paper in papers.values():
        for shown, phrase in _phrases(paper):
            table.setdefault(phrase[0], []).append((phrase, shown, paper))
    _TABLES[:] = [*_TABLES[-3:], (papers, table)]
    return table


def named_people(index: Index, question: str) -> People | None:
    """Return the collection's authors `question` names and their papers (None: it names none)."""
    words = _words(question)
    if len(words) < 2:
        return None
    folded = [w for w, _, _ in words]
    table = _table(index.papers)
    names: dict[str, None] = {}
    papers: dict[str, Paper] = {}
    spans: list[tuple[int, int]] = []
    for i, word in enumerate(folded):
        for phrase, shown, paper in table.get(word, ()):
            n = len(phrase)
            if tuple(folded[i : i + n]) == phrase:
                names[shown] = None
                papers[paper.id] = paper
                spans.append((words[i][1], words[i + n - 1][2]))
    if not papers:
        return None
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):  # "Wei Ju et al." holds two names that overlap
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    rest = question
    for start, end in reversed(merged):
        tail = re.match(r"(?:\s*\.)?(?:['\u2019]s\b)?", rest[end:])  # "et al." / "Ju's"
        rest = rest[:start] + rest[end + (tail.end() if tail else 0) :]
    return People(tuple(names), tuple(papers.values()), " ".join(rest.split()))


def asked_of_people(index: Index, question: str, settings: Settings) -> Condensed | None:
    """`question` as asked of the papers of the people it names (None: it names nobody).

    The words left once the names are gone decide what it asks, by the judgements a follow-up
    on an answer's papers gets, with the named people's papers in place of the answer's:

    - no topic ("which papers has Wei Ju written?", "what do Ju et al. find?"; the topicless
      judgement, rag/answer/topicless.py): each of their papers gets its line;
    - something of their papers ("main limitation of Ju et al.?", "Yifan Wang on label noise";
      the follow-up judgement, rag/answer/continuation.py): asked of those of their papers the
      per-paper judgement picks among them (method "people-asked");
    - anything else ("Did Loubes study graph neural networks?"): a choice among their papers
      on those words (`Condensed.pick`), which may find none of theirs.
    """
    people = named_people(index, question)
    if people is None:
        return None
    rest = corrected(index, people.rest)
    terms = question_terms(index, rest)
    if not terms or asks_no_paper(index, rest):
        return Condensed(question, question, "people", people.papers)
    hits = search(index, rest, k=settings.top_k, retriever=settings.retriever, rescore=True)
    decision = decide(index, rest, hits, settings.min_relevance)
    theirs = list(people.papers)
    if continues(index, rest, theirs, hits, terms, decision, settings.continue_probability):
        least, bar = settings.min_relevance, settings.paper_probability
        chosen = among(index, rest, theirs, hits, terms, least, bar)
        return Condensed(question, question, "people-asked", tuple(chosen or theirs))
    return Condensed(question, question, "people", people.papers, pick=rest)
