"""The Ask tab's conversation export (Markdown): what the chat said, and what it showed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag import api
from rag.ui import tabs as ui_tabs
from tests.faces.test_ui import OFF_TOPIC

if TYPE_CHECKING:
    from rag.index.paper_index import Index
    from rag.settings import Settings


def test_exported_abstention_lists_the_nearest_papers_it_announces(
    seed_index: Index, settings: Settings
) -> None:
    settings = settings.model_copy(update={"nearest_floor": 0.0})  # fake vectors come near nothing
    answer = api.ask(OFF_TOPIC, index=seed_index, settings=settings, backend="extractive")
    assert answer.abstained and answer.nearest
    assert "listed below" in answer.answer

    md = ui_tabs.conversation_markdown([answer])
    # "listed below" is followed by the list the chat shows as cards.
    below = md.split("listed below", 1)[1]
    assert "Nearest papers" in below
    for hit in answer.nearest:
        assert f"[@{hit.paper.citation_key}]" in below, hit.paper.citation_key
