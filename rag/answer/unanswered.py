"""What a follow-up's answer says first when an earlier answer found no paper on its question.

An abstention lists the nearest papers, none of them close enough to answer. (An answer that
says it quotes only the nearest, `prompts.NEAREST_ONLY`, is not one: that hedge is often wrong
of a paper on the question, and the follow-up would repeat it as fact.) A follow-up that points
at those papers ("what about the second one?", "compare the first two", "which of them ...") is
answered from them (rag/answer/history.py reads an abstention's list as its papers), but its
first line says that they are only the nearest to a question the collection has no paper on, so
that a paper's own finding is never read as an answer on that topic (`listed_note`). A follow-up
asking about that topic again ("does it handle long sentences?") is answered only when the
collection has a paper on the rest of it, after a line that says so (`rest_note`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rag import prompts
from rag.answer.history import Resolver, Spans, Turn, last_answer, papers_of, to_turns, topic_of
from rag.answer.references import depends_on_history, place_word
from rag.ingest.naming import speaker
from rag.records import Paper


def listed_note(
    history: Sequence[Any] | None, papers: Sequence[Paper], resolve: Resolver, spans: Spans
) -> str | None:
    """The line that says `papers` (those an answer is drawn from) are only the nearest papers
    an answer that found none on its question listed: "The last answer found no paper on
    machine translation; the second paper it listed, D'Angelo et al., is only the nearest, not
    a paper on it." None when the conversation showed them last as an answer.

    Each paper is placed by the latest turn that showed it, as an answer to a question of its
    own or as the nearest: a paper an answer on another question cited since is that answer's,
    while a follow-up on it ("what are its limitations?") leaves it the nearest it was.
    """
    turns = to_turns(history)
    if not papers or not any(t.found_none for t in turns):
        return None
    shown: dict[str, tuple[Turn, int]] = {}  # paper id -> the latest turn showing it, its place
    for turn in reversed(turns):
        if depends_on_history(turn.typed or turn.question) and not turn.found_none:
            continue
        for place, paper in enumerate(papers_of(turn, resolve), 1):
            shown.setdefault(paper.id, (turn, place))
    found = [shown[p.id] for p in papers if p.id in shown and shown[p.id][0].found_none]
    if not found:
        return None
    turn = found[-1][0]  # papers from two such answers: the latest one's are named
    places = sorted({place for t, place in found if t is turn})
    listed = papers_of(turn, resolve)
    one = len(places) == 1
    if one or len(places) < len(listed):
        words = [place_word(n) for n in places]
        named = [speaker(listed[n - 1])[0] for n in places]
        which = f"the {and_joined(words)} paper{'' if one else 's'}"
        names = f", {and_joined([n for n in named if n])}," if any(named) else ""
    else:
        which, names = "the papers", ""
    return prompts.FOUND_NONE_LISTED.format(
        when="The last" if turn is last_answer(turns) else "An earlier",
        on=_on(turn, spans),
        which=which,
        names=names,
        be="is" if one else "are",
        papers="a paper" if one else "papers",
    )


def rest_note(topic: str) -> str:
    """The line before an answer to a follow-up on a topic an earlier answer found no paper on,
    which the collection answers on the follow-up's other words."""
    return prompts.FOUND_NONE_REST.format(topic=topic)


def _on(turn: Turn, spans: Spans) -> str:
    """What `turn` found no paper on: "on machine translation", or "for “Which paper ...?”"
    when its question asked for a paper rather than about a topic."""
    topic = topic_of(turn, spans)
    return f"on {topic}" if topic else f"for “{(turn.typed or turn.question).strip()}”"


def and_joined(words: Sequence[str]) -> str:
    """“a”; “a and b”; “a, b and c”."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
