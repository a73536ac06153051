"""The chat so far as turns, and the papers each answer cited, in its order."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rag import prompts
from rag.answer.abstention import word_count, word_spans
from rag.answer.citations import strip_markers
from rag.answer.references import (
    ASKS_FOR_ONE,
    OTHERS_REF,
    PICKS,
    asks_of_a_pair,
    depends_on_history,
)
from rag.ingest.naming import method_name
from rag.ingest.wanted import question_tags
from rag.records import Paper
from rag.text import split_sentences

_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")  # "- ", "* ", "2. " before a list line


@dataclass(frozen=True)
class Turn:
    """One earlier exchange: the question, the answer text, and the papers it cited.

    The paper cited as `[n]` in `answer` is `cited[n - 1]`; `cited` is empty when only the
    text is known (chat messages), and the papers are then looked up by their sentences.
    `typed` is the question as the user typed it, when `question` is what was searched.
    """

    question: str
    answer: str = ""
    cited: tuple[Paper, ...] = ()
    typed: str = ""
    # An abstention's nearest papers, in the order it listed them: what "the second one" or
    # "them" points at after it, though they are no answer (`found_none`).
    nearest: tuple[Paper, ...] = ()

    @property
    def found_none(self) -> bool:
        """Whether the answer found no paper on its question: an abstention. Not an answer that
        said it quotes only the nearest papers (`prompts.NEAREST_ONLY`, `NEAREST_WEAK`): that
        hedge is often wrong of a paper on the question ("ways to shorten CoT traces?" hedged
        on ConPress), and a follow-up would then be told ConPress is "not a paper on it"."""
        return self.answer.lstrip().startswith(_ABSTAINED)

    @property
    def unread(self) -> bool:
        """Whether the question was not read as one for the papers: the bundled models read
        English only, it only pointed at earlier papers when there were none, or it was
        everyday talk no paper comes near. It found no paper and has no words a follow-up could
        take up ("how many does it skip?" after "whats 18 times 27" is PoLar's, not "18 times
        27")."""
        text = self.answer.lstrip()
        return text.startswith((_UNREAD, _EVERYDAY)) or prompts.NONE_EARLIER in self.answer


Resolver = Callable[[str], "Paper | None"]

# How an answer that found no paper on its question opens (`Turn.found_none`), read from its
# text, so that a chat's rendered messages say it as the Answer does.
_ABSTAINED = prompts.NO_PAPER_ON_IT.rstrip(".")
_UNREAD = prompts.ENGLISH_ONLY.split(",")[0]
_EVERYDAY = prompts.EVERYDAY.split(",")[0]


# The page's marks around an answer: a badge before a turn ("English only", "No paper on
# this"), the notice beside it ("This answer is drawn from English abstracts ...") and the line
# giving what was searched; not what the answer said.
_TURN_LABEL = re.compile(r'<span class="(?:turn-label|turn-notice|searched)[^"]*">[^<]*</span>\s*')


def _plain(content: Any) -> str:
    """Return the text of a chat message's content (Gradio gives a string or parts)."""
    if isinstance(content, list):
        content = " ".join(
            str(p.get("text", "")) if isinstance(p, Mapping) else str(p) for p in content
        )
    text = str(content or "")
    text = text.split("\n\n*", 1)[0]  # a notice appended in italics after the answer
    text = _TURN_LABEL.sub("", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"\\(.)", r"\1", text)  # Markdown escapes
    text = html.unescape(text)
    # Lines stay apart: a "which papers" answer is one "- " line per paper.
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def to_turns(history: Sequence[Any] | None) -> list[Turn]:
    """Return the earlier exchanges from any history form we accept.

    Args:
        history: `Turn`s; (question, Answer) pairs; or chat messages
            ({"role": "user"|"assistant", "content": ...}) as the UI keeps them.

    Returns:
        The turns, oldest first.
    """
    turns: list[Turn] = []
    pending: str | None = None
    for item in history or []:
        if isinstance(item, Turn):
            turns.append(item)
        elif isinstance(item, Mapping):
            role, text = item.get("role"), _plain(item.get("content"))
            if role == "user":
                if pending is not None:
                    turns.append(Turn(pending))
                pending = text
            elif role == "assistant" and pending is not None:
                turns.append(Turn(pending, text))
                pending = None
        elif isinstance(item, Sequence) and not isinstance(item, str) and len(item) == 2:
            question, answer = item
            citations = getattr(answer, "citations", ())
            text = getattr(answer, "answer", answer if isinstance(answer, str) else "")
            ordered = sorted(citations, key=lambda c: c.n)
            # `cited[n-1]` must be paper [n]; numbering is 1..k by construction.
            asked = getattr(answer, "standalone", None) or str(question)
            cited = tuple(c.hit.paper for c in ordered)
            turn = Turn(asked, str(text), cited, str(question))
            # An abstention's nearest papers, not those of "none of the papers listed earlier"
            # or "no other paper", which were listed as a choice's or the others' leftovers.
            if getattr(answer, "abstained", False) and turn.found_none:
                turn = replace(turn, nearest=tuple(h.paper for h in answer.nearest))
            turns.append(turn)
    if pending is not None:
        turns.append(Turn(pending))
    # A question that was not searched (in Chinese; "the second one" with nothing before it) is
    # no referent: "how do they measure it?" after one in Chinese was searched as "how do they
    # measure 哪些论文… (ExPLAIND)?" (a new user).
    return [t for t in turns if not t.unread]


def paper_name(paper: Paper) -> str:
    """Return a short name for a paper: its method name, title or label."""
    return method_name(paper.abstract) or paper.title or paper.label or paper.citation_key


def paper_cited(turn: Turn, n: int, resolve: Resolver | None) -> Paper | None:
    """Return the paper cited as [n] in `turn`'s answer (an abstention's: listed nth)."""
    if 1 <= n <= len(turn.cited):
        return turn.cited[n - 1]
    if 1 <= n <= len(turn.nearest):
        return turn.nearest[n - 1]
    if turn.cited or resolve is None:
        return None
    sentences = (
        s for line in turn.answer.splitlines() for s in split_sentences(_LIST_ITEM.sub("", line))
    )
    for sentence in sentences:
        text, numbers = strip_markers(sentence)
        if n in numbers and text:
            return resolve(text)
    return None


# The replies to a message that named no topic ("got it, thanks", "what's in here?").
_NO_TOPIC_REPLIES = tuple(
    reply.split("{")[0]
    for reply in (
        prompts.NO_TOPIC,
        prompts.NO_MATCH_TOPIC,
        prompts.NO_TOPIC_AGAIN,
        prompts.NO_TOPIC_EMPTY,
        prompts.THANKED,
        prompts.THANKED_AGAIN,
    )
)


# Nor is the reply to a question the bundled models could not read (one in Chinese).
_NOT_ANSWERS = (*_NO_TOPIC_REPLIES, prompts.ENGLISH_ONLY)


def last_answer(turns: Sequence[Turn]) -> Turn | None:
    """Return the last answered turn that is not the reply to a message naming no topic, nor
    in a language the models cannot read (else the last answered one): after "got it,
    thanks", "it" still means the papers shown before. An answer that said the collection has
    no paper on a question is the last answer."""
    answered = [t for t in turns if t.answer]
    on_topic = [t for t in answered if not t.answer.lstrip().startswith(_NOT_ANSWERS)]
    last = on_topic or answered
    return last[-1] if last else None


def cited_numbers(turn: Turn) -> list[int]:
    if turn.cited or turn.nearest:
        return list(range(1, len(turn.cited or turn.nearest) + 1))
    return sorted({int(n) for n in re.findall(r"\[(\d+)\]", turn.answer)})


Spans = Callable[[str], list[tuple[int, int]]]  # where a question's topic words stand


def topic_of(turn: Turn, spans: Spans = word_spans) -> str | None:
    """What a later "it" stands for when `turn` asked about a topic rather than for a paper
    (None: it asked for one paper or method, or names nothing).

    A few bare words ("privacy", "graph neural networks") are the topic as typed. Else its
    span from the first to the last word that says what it asks about (`spans`: "what do
    these papers tell us about grokking" -> "grokking", "is there work on compressing LLMs with
    SVD?" -> "compressing LLMs with SVD"); but a question asking for one paper or method
    ("which paper compresses reasoning?", "is there a method that spots backdoored clients?")
    found that paper, and "it" is the paper."""
    typed = (turn.typed or turn.question).strip()
    tags = question_tags(typed)
    every = word_spans(typed)
    bare = "q:statement" in tags and "q:short" in tags
    if bare and every and len(every) == word_count(typed):
        return typed[every[0][0] : every[-1][1]]  # all on the topic ("federated lerning")
    if ASKS_FOR_ONE.search(typed):
        return None
    words = spans(typed)
    return typed[words[0][0] : words[-1][1]] if words else None


def list_as_long(turns: Sequence[Turn], place: int) -> Turn | None:
    """The latest turn whose answer cited at least `place` papers (None: none did)."""
    return next((t for t in reversed(turns) if len(cited_numbers(t)) >= place), None)


def last_answer_papers(
    history: Sequence[Any] | None, resolve: Resolver | None, question: str = ""
) -> list[Paper]:
    """Return the papers the last answer in `history` cited, in its order (none: empty); a
    reply to a message naming no topic is not that answer (`last_answer`). When `question`
    asks of a pair (`asks_of_a_pair`) and that answer cited one paper, the paper an earlier
    answer cited comes first ("Both use symbolic methods - how do they differ?"). An
    abstention cited none: a message that does not point at the papers it listed ("main
    limitation?", "authors?", "results?") is not asked of them."""
    turns = answers_only(to_turns(history))
    last = last_answer(turns)
    papers = papers_of(last, resolve)
    if len(papers) == 1 and last is not None and asks_of_a_pair(question):
        return with_earlier(turns, last, papers, resolve)
    return papers


def unique(papers: Iterable[Paper | None]) -> list[Paper]:
    """Return the papers that are there, each once, in order."""
    return list({p.id: p for p in papers if p is not None}.values())


def with_earlier(
    turns: Sequence[Turn], last: Turn, papers: list[Paper], resolve: Resolver | None
) -> list[Paper]:
    """`papers` (one, of `last`) and the first paper an earlier answer showed that is not it:
    what a plural asked of a pair ("the two papers", "how do they compare?") refers to. Not
    the nearest papers an abstention listed: "which of them is the most recent?" after an answer
    citing CURE was asked of TreePO too, the nearest paper to "hiking trails" two turns before
    (a new user)."""
    upto = list(turns[: turns.index(last)]) if last in turns else []
    for turn in reversed(upto):
        if turn.found_none:
            continue
        earlier = [p for p in papers_of(turn, resolve) if p.id != papers[0].id]
        if earlier:
            return [earlier[0], *papers]
    return papers


def answers_only(turns: Sequence[Turn]) -> list[Turn]:
    """`turns` without the nearest papers abstentions listed: what a message reads that does
    not point at them by a pronoun, a place or a choice."""
    return [replace(t, nearest=()) if t.nearest else t for t in turns]


def papers_of(turn: Turn | None, resolve: Resolver | None) -> list[Paper]:
    """The papers `turn`'s answer cited, in its order (an abstention's: those it listed)."""
    if turn is None:
        return []
    return unique(paper_cited(turn, n, resolve) for n in cited_numbers(turn))


def the_set(turns: Sequence[Turn], resolve: Resolver | None) -> list[Paper]:
    """Return the papers that a choice ("which of them") or "the others" ranges over, in the
    order they were cited (see `set_turn`; an ordinal counts in `shown_list`)."""
    return papers_of(set_turn(turns), resolve)


def set_of(turns: Sequence[Turn], papers: list[Paper], resolve: Resolver | None) -> list[Paper]:
    """The set (`set_turn`) the conversation is on, when `papers` (the last answer's) is one
    paper and the set several; else `papers`: what "them" in a request for records means after
    one paper ("give me a BibTeX for them" after "what did the second one find?", "export
    these" after one paper offered from outside the set)."""
    in_set = papers_of(set_turn(turns), resolve)
    return in_set if len(papers) == 1 and len(in_set) > 1 else papers


def shown_list(turns: Sequence[Turn]) -> Turn | None:
    """The answer whose numbered papers an ordinal counts ("the second one", "the first two"):
    the latest that listed several, as the reader sees them; else the set (`set_turn`).

    Not the set a choice ranges over: after "which of them are about reasoning?" listed three
    of eight papers, "the second one" was the second of those three to a new user, and the
    second of the eight to the rewrite."""
    return list_as_long(turns, 2) or set_turn(turns)


# A paper's name as an answer shows it: "Wang et al. (IDFT): ...", "- Ju et al. (ICGNN) find".
_SHOWN_NAME = re.compile(r"\bet al\.(?:'s)?\s*\(([^()]{2,60})\)")


def names_one_shown(before: Turn, question: str) -> bool:
    """Whether `question` names, as written, one of several papers the answer of `before` showed
    (by the method name its abstract introduces or its name in the answer's text)."""
    if len(cited_numbers(before)) < 2:
        return False
    names = {method_name(p.abstract) for p in before.cited if p.abstract}
    names |= set(_SHOWN_NAME.findall(before.answer))
    return any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", question) for n in names if n)


def _within(turn: Turn, listed: Turn) -> bool:
    """Whether `turn`'s answer cites none but papers `listed` showed (by its papers where they
    are known; else it cites one at most)."""
    if turn.cited and listed.cited:
        return {p.id for p in turn.cited} <= {p.id for p in listed.cited}
    return len(cited_numbers(turn)) <= 1


def set_turn(turns: Sequence[Turn]) -> Turn | None:
    """Return the turn whose papers a choice or "the others" range over (an ordinal counts in
    the list on screen, `shown_list`).

    That is the latest answer to a question of its own, or to "the others" when it cited more
    than one paper: answers that chose among those papers since ("Which one is on graphs?")
    narrow nothing for the next choice. With no such answer citing a paper, the last answer.
    A question that names one of the set's papers and is answered from the set alone ("what
    does IDFT do?" after the federated-learning list) is asked of the set, not one of its own:
    "any other papers on this?" was asked of IDFT's question alone. One answered with papers
    besides ("papers that extend IDFT to graphs?") starts a set of its own.
    """
    listed: Turn | None = None
    for turn in turns:  # in order: each turn is read against the set before it
        typed = turn.typed or turn.question
        own = not depends_on_history(typed) and not (
            listed is not None and names_one_shown(listed, typed) and _within(turn, listed)
        )
        rest = bool(OTHERS_REF.search(typed)) and not PICKS.search(typed)
        cited = len(cited_numbers(turn)) if turn.answer else 0
        if (own and cited) or (rest and cited > 1):
            listed = turn
    if listed is not None:
        return listed
    return next((t for t in reversed(turns) if t.answer), None)
