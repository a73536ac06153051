"""The chat handler: one question in, the chat history and source cards out as it streams.

Nothing here retrieves or answers: `chat` calls `rag.api.ask_stream` and renders what it
yields with `rag.ui.render`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from rag import api
from rag.answer.rendering import Answer
from rag.errors import RagError
from rag.index.retrieve import Filters
from rag.ui.layout import ALL_AREAS
from rag.ui.render import (
    _md_escape,
    first_kept,
    render_answer,
    render_error,
    render_panel,
    render_pending,
    render_turn,
    unlink_outside,
)

if TYPE_CHECKING:
    from rag.index.paper_index import Index
    from rag.settings import Settings

History = list[dict[str, Any]]


def _filters(area: str | None, author: str | None) -> Filters | None:
    filters = Filters(
        area=None if not area or area == ALL_AREAS else area,
        author=(author or "").strip() or None,
    )
    return filters or None


def with_abstentions(history: History, earlier: Sequence[Answer]) -> list[Any]:
    """`history`, the page's messages, with each exchange whose answer abstained given as its
    (question, `Answer`) pair: the nearest papers it listed are cards, not text, and "the
    second one" after it is the second of them (`rag.ask` reads them from the pair). As it
    is when the answers and the replies that are no error do not pair up."""
    replies = [
        i
        for i, m in enumerate(history)
        if m.get("role") == "assistant" and "turn-error" not in str(m.get("content"))
    ]
    if len(replies) != len(earlier) or not any(a.abstained and a.nearest for a in earlier):
        return list(history)
    paired: list[Any] = list(history)
    for i, answer in zip(replies, earlier, strict=True):
        if answer.abstained and answer.nearest and i and history[i - 1].get("role") == "user":
            paired[i - 1], paired[i] = None, (answer.question, answer)
    return [m for m in paired if m is not None]


def chat(
    message: str,
    history: History | None,
    area: str | None = ALL_AREAS,
    author: str | None = "",
    top_k: float | None = None,
    retriever: str | None = None,
    backend: str | None = None,
    *,
    index: Index,
    settings: Settings,
    on_answer: Callable[[Answer], None] | None = None,
    earlier: Sequence[Answer] = (),
) -> Iterator[tuple[History, str]]:
    """Answer `message`, yielding the chat history and the source cards as the answer streams.

    Args:
        message: the question typed by the user.
        history: the chat so far (messages format); it is returned with the new turn added.
        area: research area filter ("All" or empty: none).
        author: author filter (substring, case-insensitive; empty: none).
        top_k: number of papers to use (default settings.top_k).
        retriever: hybrid, dense or bm25 (default from settings).
        backend: local, openai or extractive (default from settings).
        index: the open index.
        settings: thresholds and backend configuration.
        on_answer: called with the final `Answer` (the app keeps them for the exports).
        earlier: the answers of the chat so far, oldest first (those `on_answer` was given):
            the source panel keeps their cards, so their `[n]` links stay live.

    Yields:
        (history, cards_html): first the question with a one-line progress message, which the
        first checked sentence replaces; the assistant message then grows piece by piece; the
        final message is marked by its kind (`render_turn`) and its cards come with it, shown
        over the earlier answers'. A `RagError` becomes its one-line message in the chat,
        marked as an error.
    """
    question = (message or "").strip()
    turn = len(earlier)  # this answer's number, in its links and its cards' ids
    if not question:
        kept = range(first_kept(turn), turn)
        yield [unlink_outside(m, kept) for m in history or []], render_panel(earlier)
        return
    # The answers whose cards the panel does not hold lose their links.
    history = [unlink_outside(m, range(first_kept(turn + 1), turn)) for m in history or []]
    history.append({"role": "user", "content": _md_escape(question)})
    # One value while the answer is made: Gradio sends only what changed in a streamed
    # output, so the cards are not sent again with each piece of the answer.
    waiting = render_panel(earlier, waiting=True)
    yield [*history, {"role": "assistant", "content": render_pending()}], waiting
    text, final = "", None
    try:
        for event in api.ask_stream(
            question,
            settings=settings,
            index=index,
            backend=backend or "default",
            filters=_filters(area, author),
            top_k=int(top_k) if top_k else None,
            retriever=retriever or None,
            # earlier turns: a follow-up is made standalone
            history=with_abstentions(history[:-1], earlier),
        ):
            if isinstance(event, Answer):
                final = event
                continue
            text += event
            reply = {"role": "assistant", "content": render_answer(text, turn=turn)}
            yield [*history, reply], waiting
    except RagError as exc:
        yield [*history, {"role": "assistant", "content": render_error(exc)}], waiting
        return
    if final is None:  # not in ask_stream's contract; keep what was streamed
        return
    if on_answer is not None:
        on_answer(final)
    reply = {"role": "assistant", "content": render_turn(final, turn=turn)}
    yield [*history, reply], render_panel([*earlier, final])
