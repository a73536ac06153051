"""Which papers an abstention lists as the nearest to a question no paper is on.

A near miss ("speculative decoding") is worth the papers that come nearest (on decoding), so
that a reader can rephrase or look for themselves; an everyday message ("what's the weather
like today?", "what time is it?") comes near no paper, and listing five anyway is noise, and
worse: "what did the first one find?" then counted in that list, not in the answer before it (a
new user's trial, stop 64). The papers are listed when the best passage's cosine among them
reaches `Settings.nearest_floor`, chosen on labelled near misses and everyday messages by
`bench/answers/nearest_floor.py` (held-out table: bench/results/nearest_floor.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rag.records import Hit

# The papers listed, most probable first: ten cards of papers none of which answers made a
# phone's page 3,500 px tall (a new user's trial, stop 58).
NEAREST_SHOWN = 5


def near_enough(hits: Sequence[Hit], floor: float) -> bool:
    """Whether any of `hits` comes near enough to its question to be listed as the nearest: its
    best passage's cosine reaches `floor` (`Settings.nearest_floor`)."""
    return max((h.relevance for h in hits), default=0.0) >= floor


def nearest_listed(hits: Sequence[Hit], chance: Mapping[str, float], bar: float) -> tuple[Hit, ...]:
    """The nearest papers to list, numbered from 1: first those the per-paper judgement rates at
    `bar` or above, most probable first ("DPO vs PPO?": the paper on DPO, which BM25 finds and the
    sentence vectors do not), then the rest, most relevant first (below the bar, an off-topic
    question's probabilities follow the fused rank more than the words)."""
    ordered = sorted(hits, key=lambda h: (-max(chance.get(h.paper.id, 0.0), bar), -h.relevance))
    return tuple(
        Hit(h.paper, i, h.score, h.snippet, h.relevance)
        for i, h in enumerate(ordered[:NEAREST_SHOWN], 1)
    )
