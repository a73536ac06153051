"""What a question wants from an abstract, learned from labelled questions, not a pattern each.

A question wants what the papers found ("does X beat Y?"), what a thing is or how it works
("what do they propose to ...?"), or why it was done ("what limits ...?"). Patterns alone
(`rag.ingest.wanted`) read 0.84 of questions written blind right and missed most phrasings
nobody here had typed ("What limits affine maximizer auctions ...?" was read as asking for a
finding). Here those patterns are features beside the question's own words, word pairs and
opening words, and a multinomial logistic regression fitted on labelled questions weighs them all
(`bench/answers/question_want.py`, held-out figures in `bench/results/question_want.md`).

Only the mechanics live here: `rag.ingest.wanted.wanted` passes the patterns that matched.
The weights (`model/question_want.json`) hold one row of three scores per feature; a feature
not there weighs nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from types import MappingProxyType

WEIGHTS = Path(__file__).with_name("model") / "question_want.json"
# The classes, in the order of each feature's three weights.
KINDS = ("finding", "definition", "motivation")
_WORD = re.compile(r"[a-z]+")


def question_features(question: str, tags: Iterable[str] = ()) -> set[str]:
    """Name what is measured of `question`: its words ("w:limit"), word pairs ("b:what_limits"),
    first word and first two words ("o:what", "o2:what_limits"), and `tags` given by the caller
    (the patterns that matched, "re:motivation"), with a constant ("bias")."""
    words = words_of(question)
    found = {"bias", *tags}
    found |= {f"w:{w}" for w in words}
    found |= {f"b:{a}_{b}" for a, b in pairwise(words)}
    if words:
        found.add(f"o:{words[0]}")
    if len(words) > 1:
        found.add(f"o2:{words[0]}_{words[1]}")
    return found


def words_of(question: str) -> list[str]:
    """The words of `question` as the features read them: lower case, "what's" as "what is"."""
    return _WORD.findall(question.lower().replace("'s ", " is "))


@lru_cache(maxsize=2)
def want_weights(path: Path = WEIGHTS) -> Mapping[str, tuple[float, ...]]:
    """The fitted weights by feature name, read once per process."""
    rows = json.loads(path.read_text(encoding="utf-8"))["weights"]
    return MappingProxyType({name: tuple(row) for name, row in rows.items()})


def classify(
    features: Iterable[str], weights: Mapping[str, tuple[float, ...]] | None = None
) -> str:
    """Return the kind (one of `KINDS`) whose summed weights over `features` are highest."""
    table = want_weights() if weights is None else weights
    totals = [0.0] * len(KINDS)
    for name in features:
        for i, value in enumerate(table.get(name, ())):
            totals[i] += value
    return KINDS[max(range(len(KINDS)), key=totals.__getitem__)]
