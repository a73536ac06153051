"""Drive a conversation as the chat page does, for the tests of follow-ups and sessions."""

from __future__ import annotations

from typing import Any

from rag import api
from rag.answer.rendering import Answer
from rag.index.paper_index import Index
from rag.settings import Settings
from rag.ui import app as ui


def first_authors(result: Answer) -> list[str]:
    return [c.hit.paper.authors[0] for c in result.citations]


def chat(index: Index, questions: list[str], settings: Settings | None = None) -> list[Answer]:
    """Ask `questions` in one chat, as the page does (with the answers so far); return each
    final Answer."""
    history: list[dict[str, Any]] = []
    answers: list[Answer] = []
    for question in questions:
        steps = list(
            ui.chat(
                question,
                history,
                index=index,
                settings=settings or index.settings,
                backend="extractive" if settings is None else None,
                on_answer=answers.append,
                earlier=list(answers),
            )
        )
        history = steps[-1][0]
    return answers


def session(index: Index, questions: list[str]) -> list[Answer]:
    """Ask `questions` in turn through the API, each with the (question, Answer) history
    before it; return each Answer."""
    history: list[tuple[str, Answer]] = []
    for question in questions:
        history.append((question, api.ask(question, index=index, backend=None, history=history)))
    return [answer for _, answer in history]
