"""What the collection holds, for a question that names no topic ("hello", "summarize the
collection", "what can you do?").

Such a question has no term left once the asking and chat words are set aside
(`rag.answer.abstention.question_terms`), so there is nothing to search for, and "the collection
has no paper on this" would be false. The answer says so and describes the collection instead:
how many papers, how they spread over research areas (the largest top-level areas, the largest
one's own areas, how many have none), and a question to start from.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from rag import prompts
from rag.answer.vector_model import fitted_weights, vector_logit
from rag.index.paper_index import Index
from rag.text import CONTENT_WORD

GROUPS_SHOWN = 6  # top-level areas named ("Deep Learning", "Theory", ...)
AREAS_SHOWN = 3  # the largest top-level area's own areas named ("Large Language Models", ...)
# Fitted by bench/answers/collection_or_chat.py --write (bench/results/collection_or_chat.md).
WEIGHTS = Path(__file__).with_name("model") / "collection_or_chat.json"


def no_topic(
    index: Index, searched: bool = False, said: Sequence[str] = (), message: str = ""
) -> str:
    """Return the answer to a question with no topic: the collection in a few words.

    With `searched`, the message had words to search for and no paper matched them: it is
    not told that it names no topic (`prompts.NO_MATCH_TOPIC`). When one of the earlier answers
    of the conversation (`said`) described the collection already, a chat `message` ("thanks!")
    gets a short line saying what to ask instead of the same description again; one that asks
    for the collection ("what topics does the collection cover?", `asks_for_the_collection`)
    gets the description.
    """
    papers = list(index.papers.values())
    if not papers:
        return prompts.NO_TOPIC_EMPTY
    areas = Counter(p.area for p in papers if p.area)
    number = _papers(len(papers))
    collection, topic = number, "the method you work on"
    if areas:
        collection += f": {spread(areas, len(papers))}"
        topic = areas.most_common(1)[0][0].split("·")[-1].strip().lower()
    thanked = thanks(message)
    if said:
        # "thanks, can you list all papers?" asks for the collection after thanking (a new
        # user, stop 63, got only "You're welcome"); "thanks for the papers!" does not.
        request = request_after_thanks(message) if thanked else message
        asks = bool(request) and asks_for_the_collection(index, request)
        if thanked and not asks:  # "thanks!" after answers: no overview (stop 58)
            return prompts.THANKED_AGAIN.format(count=number)
        if any(collection in answer for answer in said) and not asks:
            return prompts.NO_TOPIC_AGAIN.format(count=number)
    template = (
        prompts.THANKED if thanked else prompts.NO_MATCH_TOPIC if searched else prompts.NO_TOPIC
    )
    return template.format(collection=collection, topic=topic)


def everyday_reply(index: Index) -> str:
    """Return the reply to everyday talk (`prompts.EVERYDAY`, rag/answer/everyday.py)."""
    return prompts.EVERYDAY.format(count=_papers(len(index.papers)))


def _papers(count: int) -> str:
    """The count of papers as a reply writes it: "40 papers", "1 paper"."""
    return f"{count} paper{'s' if count != 1 else ''}"


# Words that thank, a closed class: "thanks!", "ok, ty", "cheers", "I appreciate it".
_THANKS = frozenset("thanks thank thx ty tysm cheers appreciate appreciated grateful".split())  # noqa: SIM905


def thanks(message: str) -> bool:
    """Whether `message` (one that names no topic) thanks: it is answered "You're welcome"."""
    return bool(_THANKS & {w.lower() for w in CONTENT_WORD.findall(message)})


# A message's opening thanks (a word of `_THANKS`), up to the end of its clause: "thanks, ",
# "ok thank you! ".
_THANKS_CLAUSE = re.compile(
    rf"^\W*(?:\w+\W+){{0,2}}?(?:{'|'.join(sorted(_THANKS))})\b[^,.;:!?]*[,.;:!?]+\s*",
    re.IGNORECASE,
)


def request_after_thanks(message: str) -> str:
    """The question a thanking message goes on to ask ("thanks, can you list all papers?" ->
    "can you list all papers?"), or "" ("thanks for the papers!", "thanks, that's all")."""
    opening = _THANKS_CLAUSE.match(message)
    rest = message[opening.end() :].strip() if opening else ""
    return rest if rest.endswith("?") else ""


def asks_for_the_collection(index: Index, message: str) -> bool:
    """Whether a message naming no topic asks what the collection holds ("list every paper you
    have"), not chat ("ty", "cool"): a logistic regression over its MiniLM vector (False
    without a message, or when the weights cannot read this index's vectors)."""
    if not message.strip():
        return False
    fitted = fitted_weights(WEIGHTS)
    logit = vector_logit(index, message, fitted["coef"], fitted["intercept"])
    return logit is not None and logit > 0


def spread(areas: Counter[str], papers: int) -> str:
    """Return how `papers` spread over their research `areas` ("Deep Learning · Theory"):
    "Deep Learning 23 (Large Language Models 10, ..., 7 more areas), Theory 2, ...; 2 have no
    research area"."""
    groups: dict[str, Counter[str]] = {}
    for area, n in areas.items():
        head, _, rest = (part.strip() for part in area.partition("·"))
        if not head:  # " · Theory": the area is what follows
            head, rest = rest, ""
        groups.setdefault(head or "Other", Counter())[rest] += n
    ranked = sorted(groups.items(), key=lambda g: (-g[1].total(), g[0]))
    shown = []
    for i, (head, within) in enumerate(ranked[:GROUPS_SHOWN]):
        named = sorted(((a, n) for a, n in within.items() if a), key=lambda a: (-a[1], a[0]))
        detail = [f"{a} {n}" for a, n in named[:AREAS_SHOWN]]
        if len(named) > AREAS_SHOWN:
            detail.append(_more(len(named) - AREAS_SHOWN))
        inner = f" ({', '.join(detail)})" if i == 0 and len(named) > 1 else ""
        shown.append(f"{head} {within.total()}{inner}")
    if len(ranked) > GROUPS_SHOWN:
        shown.append(_more(len(ranked) - GROUPS_SHOWN))
    text = ", ".join(shown)
    none = papers - areas.total()
    if none:
        text += f"; {none} {'has' if none == 1 else 'have'} no research area"
    return text


def _more(n: int) -> str:
    return f"{n} more area{'s' if n != 1 else ''}"
