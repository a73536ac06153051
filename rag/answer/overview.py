"""What the collection holds, for a question that names no topic ("hello", "summarize the
collection", "what can you do?").

Such a question has no term left once the asking and chat words are set aside
(`rag.answer.abstention.question_terms`), so there is nothing to search for, and "the collection
has no paper on this" would be false. The answer says so and describes the collection instead:
how many papers, the research areas most of them are in, and a question to start from.
"""

from __future__ import annotations

from collections import Counter

from rag import prompts
from rag.index.paper_index import Index

AREAS_SHOWN = 3


def no_topic(index: Index, searched: bool = False) -> str:
    """Return the answer to a question with no topic: the collection in a few words.

    With `searched`, the message had words to search for and no paper matched them: it is
    not told that it names no topic (`prompts.NO_MATCH_TOPIC`).
    """
    papers = list(index.papers.values())
    if not papers:
        return prompts.NO_TOPIC_EMPTY
    areas = Counter(p.area for p in papers if p.area)
    count = f"{len(papers)} paper{'s' if len(papers) != 1 else ''}"
    topic = "the method you work on"
    if areas:
        top = ", ".join(f"{area} ({n})" for area, n in areas.most_common(AREAS_SHOWN))
        count += f"; the most common research areas are {top}"
        topic = areas.most_common(1)[0][0].split("·")[-1].strip().lower()
    template = prompts.NO_MATCH_TOPIC if searched else prompts.NO_TOPIC
    return template.format(collection=count, topic=topic)
