"""Does an answer say when a follow-up asks its paper something the abstract does not address?

    .venv/bin/python bench/answers/unaddressed_followups.py --index COPY --tag TAG

bench/data/unaddressed_followups.jsonl: 60 two-turn sessions (written blind by a helper who read
only the seed files): a question on one paper, then a follow-up on one aspect ("any limitations
mentioned?", "does it work for medical questions?"), labelled with whether the abstract
addresses it (30 yes, 17 of them in other words than the follow-up's; 30 no, 12 of them sharing a
word with it). Ids divisible by 3 are held out. Each session is asked with `rag.api.ask`
(extractive, the first answer as history) and scored: when the abstract does not address it,
the answer says so (`prompts.NOT_ADDRESSED_ONE`, or no paper at all uses its words); when it
does, the answer cites the paper without saying so. Kept per session, for a rule to be fitted
on the fitting part: the best MiniLM cosine of the paper's sentences to the follow-up and their
largest share of its terms.
Appends a table to bench/results/unaddressed_followups.md and writes
bench/results/unaddressed_followups_TAG.json.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

from bench.answers.labelled_runs import follow_ups_asked, session_bench  # noqa: E402
from bench.answers.paper_choice import read  # noqa: E402
from rag import api, prompts  # noqa: E402
from rag.answer.evidence import paper_sentences  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.ingest.wanted import question_terms, term_share  # noqa: E402
from rag.records import Paper  # noqa: E402
from rag.settings import Settings  # noqa: E402

# The answer's note that its paper does not address what was asked, or does not state it
# (a dataset, a number, whether the code is out).
NOT_ADDRESSED = re.compile(
    "|".join(
        re.escape(note).replace(re.escape("{who}"), ".+").replace(re.escape("{what}"), ".+")
        for note in (
            prompts.NOT_ADDRESSED,
            prompts.NOT_ADDRESSED_ONE,
            prompts.NOT_STATED,
            prompts.NOT_STATED_ONE,
        )
    )
)


def features(index: Index, follow_up: str, paper: Paper) -> dict[str, float]:
    """The best cosine of the paper's sentences to the follow-up, and their largest share of
    its terms (the paper's own name left out)."""
    sentences = paper_sentences(paper)
    vectors = index.sentence_embedder.embed([follow_up, *sentences])
    cosines = vectors[1:] @ vectors[0]
    terms = question_terms(follow_up)
    return {
        "best_cosine": round(float(np.max(cosines)), 4),
        "best_share": round(max(term_share(terms, s) for s in sentences), 4),
    }


def run(index_dir: Path) -> list[dict[str, Any]]:
    index = api.open_index(settings=Settings(index_dir=index_dir))
    rows = []
    for s, first, second in follow_ups_asked(index, read("unaddressed_followups.jsonl")):
        cited = [c.hit.paper.authors[0] for c in second.citations]
        # "No paper's title or abstract uses 'hallucination'" says so as well, citing nothing.
        says = bool(NOT_ADDRESSED.search(second.answer)) or second.abstained
        paper = next(p for p in index.papers.values() if p.authors[0] == s["paper"])
        rows.append(
            {
                "id": s["id"],
                "split": s["split"],
                "addressed": s["addressed"],
                "shares_words": s["shares_words"],
                "first_cites_paper": s["paper"]
                in [c.hit.paper.authors[0] for c in first.citations],
                "cites_paper": s["paper"] in cited,
                "says_not_addressed": says,
                "right": says if not s["addressed"] else s["paper"] in cited and not says,
                **features(index, s["second"], paper),
                "standalone": second.standalone,
                "answer": second.answer[:300],
            }
        )
    return rows


def table(rows: list[dict[str, Any]], tag: str) -> list[str]:
    lines = [
        f"### {tag}",
        "",
        "| split | sessions | right | note when not addressed | note when addressed | "
        "cites the paper |",
        "|---|---|---|---|---|---|",
    ]
    for split in ("fit", "heldout"):
        part = [r for r in rows if r["split"] == split]
        no = [r for r in part if not r["addressed"]]
        yes = [r for r in part if r["addressed"]]
        lines.append(
            f"| {split} | {len(part)} | {sum(r['right'] for r in part)} | "
            f"{sum(r['says_not_addressed'] for r in no)}/{len(no)} | "
            f"{sum(r['says_not_addressed'] for r in yes)}/{len(yes)} | "
            f"{sum(r['cites_paper'] for r in part)}/{len(part)} |"
        )
    return [*lines, ""]


def main() -> None:
    rows = session_bench(
        "unaddressed_followups", "Follow-ups the abstract does not address", __doc__, run, table
    )
    for r in rows:
        if not r["right"]:
            print(r["id"], r["split"], "addressed" if r["addressed"] else "NOT", r["answer"][:140])


if __name__ == "__main__":
    main()
