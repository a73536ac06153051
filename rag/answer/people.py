"""The people a question names, read from the collection's own author lists.

"Which papers has Wei Ju co-authored?", "what do Ju et al. find?", "MAI & Loubes on fairness":
a question that names an author is about that author's papers, whatever words surround the
name. Names are matched against the authors the collection holds (case and accents folded), not
against a list of phrasings:

- an author's full name, two words or more, as the index spells it ("Wei Ju", "Jean-Michel
  Loubes");
- the label the answers themselves show for a paper: "Ju et al.", "MAI & Loubes" (or "MAI and
  Loubes").

- a surname the label shows ("the Shen paper", "what does Yüksel show?"), typed with a capital,
  when no paper's text holds it as a word (then it names someone, not a topic: "Long" in "Long
  context windows" is a word of the papers, "Parkinson" in a biomedical collection too), and,
  at the question's start where every word has a capital, when it is no English word either.
  Several papers may share it ("Li et al."): the question's other words choose among them. A
  surname only one author has names them on their other papers too ("papers by Yüksel": his
  own and D'Angelo et al.'s), or, shown by no label, where the words say it is an author's
  ("papers by Narashiman"; not "the Lorenz system").

Nor is a name typed in lowercase whose words are all English words ("will long context
windows help?" with a Will Long among the authors), nor one joined by a hyphen to the next word
("Can Li-ion batteries ..."). Of two names that overlap ("Wei Ju et al."), the longer is read.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rag import prompts
from rag.answer.abstention import decide, question_terms
from rag.answer.continuation import among, continues
from rag.answer.named_papers import named_and_rest
from rag.answer.rewrite import Condensed
from rag.answer.topicless import asks_no_paper
from rag.index.catalog import per_catalog
from rag.index.paper_index import Index
from rag.index.retrieve import Filters, search
from rag.index.spelling import corrected, english_word
from rag.ingest.naming import author_phrase
from rag.records import Paper
from rag.settings import Settings
from rag.text import STOPWORDS, fold

_WORD = re.compile(r"[^\W\d_]+")
# A name used as a noun's modifier ("the Shen paper", "this Ju et al. work") refers to a paper
# as the name alone does: the noun and its article go with the name.
_PAPER_NOUN = re.compile(r"\s+(?:paper|papers|work|study|studies|article|preprint)\b", re.I)
_ARTICLE = re.compile(r"\b(?:the|this|that|these|those)\s+$", re.I)
# Words that say how a person relates to the papers, not what the papers are about: "Which
# papers has Wei Ju co-authored?" names no topic (stems as `question_terms` gives them).
_AUTHORSHIP = frozenset("co author coauthor authored write written wrote publish".split())  # noqa: SIM905


@dataclass(frozen=True)
class People:
    """The authors a question names, their papers (index order), and the question without them."""

    names: tuple[str, ...]
    papers: tuple[Paper, ...]
    rest: str


# A lone surname as a paper's name: "the Yüksel paper", "this Ju et al. work" (not "what did
# Yüksel study?").
_ONE_PAPER = re.compile(r"\s+(?:paper|work|study|article|preprint)\b(?!s)", re.I)
# "papers by Narashiman", "Narashiman's papers": a lone surname as the author of something.
_BY = re.compile(r"\bby\s+$", re.I)
_POSSESSIVE = re.compile(r"['\u2019]s\b")
Phrase = tuple[tuple[str, ...], str, Paper]  # folded words, the name as shown, its paper


def _words(text: str) -> list[tuple[str, int, int]]:
    """Folded words of `text` with their character spans."""
    return [(fold(m.group()), m.start(), m.end()) for m in _WORD.finditer(text)]


def _phrases(paper: Paper) -> Iterable[tuple[str, tuple[str, ...]]]:
    """(name as shown, its folded words) for each way a question may name the paper's people."""
    for author in paper.authors:
        words = tuple(_WORD.findall(fold(author)))  # folded first: "Yu\u0308ksel" is one word
        if len(words) >= 2:
            yield author, words
    # The first three authors give the same label as all of them, at a fraction of the cost.
    label = author_phrase(paper.authors[:3], paper.authors_truncated)
    if " et al." in label or " & " in label:
        yield label, tuple(_WORD.findall(fold(label)))
        if " & " in label:
            yield label, tuple(_WORD.findall(fold(label.replace(" & ", " and "))))
    for surname in label.removesuffix(" et al.").split(" & "):  # "the Shen paper"
        words = tuple(_WORD.findall(fold(surname)))
        if len(words) == 1:
            yield label, words


@per_catalog
def _table(papers: dict[str, Paper]) -> dict[str, list[Phrase]]:
    """Each name phrase of `papers` under its first word, for a scan of a question's words."""
    table: dict[str, list[Phrase]] = {}
    for paper in papers.values():
        for shown, phrase in _phrases(paper):
            table.setdefault(phrase[0], []).append((phrase, shown, paper))
    for surname, (author, ids) in _coauthored(papers).items():
        # "papers by Yüksel": a surname no other author of the collection has names that
        # author on the papers whose label does not show it too ("D'Angelo et al." has Oğuz
        # Yüksel second; `_as_coauthor`); "Li", many people's, still names the labels' Li alone.
        table.setdefault(surname, []).extend(((surname,), author, papers[i]) for i in ids)
    return table


def _as_coauthor(
    question: str,
    start: int,
    end: int,
    surname: str,
    table: dict[str, list[Phrase]],
    coauthored: frozenset[str],
) -> bool:
    """Whether a lone surname names its author on a paper whose label does not show it (one of
    `coauthored`; the table has such a paper only for a surname no other author has).

    Where a label shows it ("Yüksel"), it is a name of the collection's already, and the person
    is meant, on all of their papers ("What does Yüksel show?": "The collection holds 1 paper
    by Yüksel" was false, D'Angelo et al. has him second), unless the question names one paper
    by it ("the Yüksel paper"). Where none does, the words around it must say it is an author
    ("papers by Narashiman", "Narashiman's work"): a co-author's surname is often a word of a
    field, an acronym or a concept's name ("RAN slicing", "the Lorenz system", "Fischer
    information": a reviewer, stop 67)."""
    if _ARTICLE.search(question[:start]) and _ONE_PAPER.match(question, end):
        return False
    labelled = any(len(ph) == 1 and p.id not in coauthored for ph, _, p in table[surname])
    return labelled or bool(_BY.search(question[:start])) or bool(_POSSESSIVE.match(question, end))


@per_catalog
def _coauthored(papers: dict[str, Paper]) -> dict[str, tuple[str, frozenset[str]]]:
    """Each surname (an author's last word, folded) that only one author's full name ends with,
    mapped to that name as spelt first and the papers of theirs whose label ("D'Angelo et al.")
    does not show it."""
    people: dict[str, dict[tuple[str, ...], str]] = {}
    theirs: dict[str, set[str]] = {}
    for paper in papers.values():
        label = set(_WORD.findall(fold(author_phrase(paper.authors[:3], paper.authors_truncated))))
        for author in paper.authors:
            words = tuple(_WORD.findall(fold(author)))
            if len(words) >= 2:
                people.setdefault(words[-1], {}).setdefault(words, author)
                if words[-1] not in label:
                    theirs.setdefault(words[-1], set()).add(paper.id)
    return {
        surname: (next(iter(names.values())), frozenset(theirs[surname]))
        for surname, names in people.items()
        if len(names) == 1 and surname in theirs
    }


@per_catalog
def _held_words(papers: dict[str, Paper]) -> dict[str, bool]:
    """Memo of `_held_by_papers` for the catalog last given."""
    return {}


def _held_by_papers(index: Index) -> Callable[[str], bool]:
    """Whether a folded word is a word of the papers' titles or abstracts (not of their author
    lists, which the lexical index also holds): read for a lone surname only, then kept."""
    papers = index.papers
    memo = _held_words(papers)

    def held(word: str) -> bool:
        if word not in memo:
            pattern = re.compile(rf"\b{re.escape(word)}\b", re.IGNORECASE)
            memo[word] = any(
                pattern.search(p.abstract) or pattern.search(p.title or "") for p in papers.values()
            )
        return memo[word]

    return held


def _typed_as_name(
    question: str, start: int, end: int, phrase: tuple[str, ...], held: Callable[[str], bool]
) -> bool:
    """Whether the words at `start:end` read as a name where they stand (see the docstring)."""
    if re.match(r"-\w", question[end:]):
        return False
    typed = question[start:end]
    if len(phrase) == 1:  # a lone surname
        opens = not question[:start].strip(" \t\"'(")
        return (
            typed[:1].isupper()
            and not held(phrase[0])
            and phrase[0] not in STOPWORDS
            and not (opens and english_word(phrase[0]))
        )
    return typed != typed.lower() or not all(english_word(w) for w in phrase)


def named_people(index: Index, question: str) -> People | None:
    """Return the collection's authors `question` names and their papers (None: it names none)."""
    question = unicodedata.normalize("NFC", question)
    words = _words(question)
    folded = [w for w, _, _ in words]
    table = _table(index.papers)
    coauthored = _coauthored(index.papers)
    held = _held_by_papers(index)
    found: list[tuple[int, int, int, str, Paper]] = []  # start, end, words, name, paper
    for i, word in enumerate(folded):
        for phrase, shown, paper in table.get(word, ()):
            n = len(phrase)
            if tuple(folded[i : i + n]) != phrase:
                continue
            start, end = words[i][1], words[i + n - 1][2]
            _, ids = coauthored.get(word, ("", frozenset()))
            if _typed_as_name(question, start, end, phrase, held) and (
                n > 1 or paper.id not in ids or _as_coauthor(question, start, end, word, table, ids)
            ):
                found.append((start, end, n, shown, paper))
    # Of overlapping names, the longer: "Wei Ju et al." is Ju et al., not every paper of Wei Ju.
    spans = {(f[0], f[1], f[2]) for f in found}  # a few, though "Wang et al." finds many papers
    longest = {
        s for s in spans if not any(t[2] > s[2] and t[0] < s[1] and s[0] < t[1] for t in spans)
    }
    kept = [f for f in found if (f[0], f[1], f[2]) in longest]
    if not kept:
        return None
    names = tuple(dict.fromkeys(f[3] for f in kept))
    # "Yüksel" (a label) beside "Oğuz Yüksel" (his other papers'): the person's full name
    names = tuple(n for n in names if not any(fold(m).endswith(f" {fold(n)}") for m in names))
    papers = tuple({f[4].id: f[4] for f in kept}.values())
    merged: list[tuple[int, int]] = []
    for start, end in sorted((f[0], f[1]) for f in found):  # "Wei Ju et al.": both go
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    rest = question
    for start, end in reversed(merged):
        if rest[start:end].endswith("al") and rest[end : end + 1] == ".":  # "Ju et al."
            end += 1
        elif possessive := re.match(r"['\u2019]s\b", rest[end:]):  # "Wei Ju's"
            end += possessive.end()
        if noun := _PAPER_NOUN.match(rest, end):  # "the Shen paper": the name, as a reference
            end = noun.end()
            if article := _ARTICLE.search(rest[:start]):
                start = article.start()
        rest = rest[:start] + rest[end:]
    return People(names, papers, " ".join(rest.split()))


def _topic_terms(terms: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """The search terms but those saying who wrote what ("co-authored")."""
    return [t for t in terms if t[0] not in _AUTHORSHIP]


def asked_of_people(
    index: Index, question: str, settings: Settings, filters: Filters | None = None
) -> Condensed | None:
    """`question` as asked of the papers of the people it names (None: it names nobody, or
    none of their papers has an abstract or passes `filters`).

    The words left once the names are gone decide what it asks, by the judgements a follow-up
    on an answer's papers gets, with the named people's papers in place of the answer's:

    - no topic ("which papers has Wei Ju written?", "what do Ju et al. find?"; the topicless
      judgement, rag/answer/topicless.py): each of their papers gets its line (method
      "people");
    - something of their papers ("main limitation of Ju et al.?", "Yifan Wang on label noise";
      the follow-up judgement, rag/answer/continuation.py): asked of those of their papers the
      per-paper judgement picks among them (method "people-asked");
    - anything else ("Did Loubes study graph neural networks?"): a choice among their papers
      on those words (`Condensed.pick`), which may find none of theirs;
    - with a paper named by its method too ("CELL vs MAI & Loubes"): asked of both, each with
      its line (method "papers").
    """
    people = named_people(index, question)
    if people is None:
        return None
    named, named_rest = named_and_rest(index, people.rest, filters)
    if others := [p for p in named if p.id not in {t.id for t in people.papers}]:
        # "how do CELL and MAI & Loubes differ on fairness?": judged with "CELL" in its words,
        # their paper was left out for not holding it, and the answer said no paper of theirs
        # was about it. Their papers are those asked of the question without the method names
        # ("Deng et al. and TreePO on GRPO": the Deng et al. paper on GRPO).
        _, without = named_and_rest(index, question, filters)
        if theirs := asked_of_people(index, without, settings, filters):
            asked = named_rest or None
            return Condensed(question, question, "papers", (*theirs.papers, *others), asked=asked)
    papers = tuple(
        p for p in people.papers if not p.title_only and (not filters or filters.accepts(p))
    )
    if not papers:
        return None
    who = " or ".join(people.names)
    rest = corrected(index, people.rest)
    terms = question_terms(index, rest)
    if not _topic_terms(terms) or asks_no_paper(index, rest):
        return Condensed(question, question, "people", papers, asked=rest or None, who=who)
    hits = search(
        index, rest, k=settings.top_k, retriever=settings.retriever, filters=filters, rescore=True
    )
    decision = decide(index, rest, hits, settings.min_relevance)
    if continues(index, rest, list(papers), hits, terms, decision, settings.continue_probability):
        least, bar = settings.min_relevance, settings.paper_probability
        chosen = among(index, rest, list(papers), hits, terms, least, bar)
        return Condensed(
            question,
            question,
            "people-asked",
            tuple(chosen or papers),
            asked=rest,
            who=who,
            among=len(papers),
        )
    return Condensed(question, question, "people", papers, pick=rest, who=who)


def others_of_theirs(condensed: Condensed, shown: int) -> str | None:
    """The line above an answer from `shown` of the papers of the people a question names, when
    they have more ("how many benchmarks did Deng et al. evaluate on?" with two Deng et al.
    papers): that the others exist (None when the answer uses them all)."""
    if condensed.method != "people-asked" or not 0 < shown < condensed.among:
        return None
    which = "the one on this question" if shown == 1 else "those on this question"
    return prompts.BY_PEOPLE_CHOSEN.format(n=condensed.among, who=condensed.who, which=which)


def their_papers(condensed: Condensed, shown: int, unaddressed: bool, filtered: bool) -> str:
    """The line above the papers of the people a question names: how many, by whom (of those
    that pass the user's filters, when `filtered`)."""
    n = len(condensed.papers)
    template = (
        prompts.BY_PEOPLE_UNADDRESSED
        if unaddressed
        else prompts.BY_PEOPLE_SOME
        if shown < n
        else prompts.BY_PEOPLE
    )
    papers, each, none = ("paper", "it", "not") if n == 1 else ("papers", "each", "none of them")
    who = condensed.who + (" matching the filters" if filtered else "")
    who = who if unaddressed else who.rstrip(".")  # "by Ju et al." ends the sentence
    return template.format(n=n, papers=papers, who=who, each=each, shown=shown, none=none)
