"""Does "it" after a question stand for what that question was about: its topic, or the paper
it asked for?

    .venv/bin/python bench/answers/it_after_questions.py --index COPY --tag TAG

bench/data/it_after_questions.jsonl: 54 two-turn sessions written blind by a helper who read
only the seed files. The first turn is a whole question, not a few bare words (those are
bench/answers/topic_followups.py's): either about a topic ("what do these papers tell us about
grokking", "is reward hacking discussed anywhere?"), then a follow-up whose pronoun is that topic
("why does it happen?", "how do they try to avoid it?"), labelled `it_means: topic`; or asking
for a paper or method ("which paper gets reasoning models to produce shorter chains of
thought?"), then one whose pronoun is that paper ("how much does it cut token usage"),
`it_means: paper`. Each is labelled with the words the pronoun stands for (`referent`) and the
papers whose abstract answers the follow-up (`relevant`). Ids divisible by 3 are held out; but
the rule was written after reading every first question of that file, held-out ones too, so
bench/data/it_after_questions_fresh.jsonl (36 sessions written afterwards by another helper,
blind, in forms chosen to differ: "walk me through ...", "I need background on X for my
thesis", "point me to the paper that ...") is the part nobody here read before the rule was
fixed: `fresh`. bench/data/it_after_requests.jsonl (40, `requests`), written blind later still,
asks for a paper or about a topic in look-alike words ("any paper on X?" / "any work on X?",
"what method do people use for X?" / "what do methods for X usually do?").

Each session is asked with `rag.api.ask` (extractive, the first answer as history). Scored on
the second turn: whether the question searched reads the pronoun as labelled (a topic session's
searched question holds every word of the topic; a paper session's names no topic of the first
question in the pronoun's place, and its answer cites the paper), and recall and precision of
the cited papers against `relevant`. Appends a table to bench/results/it_after_questions.md and
writes bench/results/it_after_questions_TAG.json.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.labelled_runs import (  # noqa: E402
    cited_recall_precision,
    follow_ups_asked,
    session_bench,
)
from bench.answers.paper_choice import read  # noqa: E402
from rag import api  # noqa: E402
from rag.answer.history import paper_name  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.spelling import corrected  # noqa: E402
from rag.settings import Settings  # noqa: E402
from rag.text import content_stems  # noqa: E402


def reads_as_labelled(
    index: Index, session: dict[str, Any], searched: str, cited: list[str]
) -> bool:
    """Whether the searched follow-up reads its pronoun as the session's label says: a topic's
    words are in it (as `rag ask` reads them: "transfomers" is searched as "transformers"); for
    a paper, the answer cites it first and the search brought no word from the first message
    but the paper's names (with one paper cited, the topic read in its place would still cite
    it)."""
    if session["it_means"] == "topic":
        topic = corrected(index, session["referent"])
        return set(content_stems(topic)) <= set(content_stems(corrected(index, searched)))
    if not cited or cited[0] != session["referent"]:
        return False
    paper = next(p for p in index.papers.values() if p.authors[0] == session["referent"])
    names = " ".join([paper_name(paper), paper.label or "", *paper.authors])
    brought = set(content_stems(searched)) - set(content_stems(session["second"]))
    return not brought - set(content_stems(names))


def run(index_dir: Path) -> list[dict[str, Any]]:
    index = api.open_index(settings=Settings(index_dir=index_dir))
    rows = []
    sessions = read("it_after_questions.jsonl")
    sessions += [{**s, "split": "fresh"} for s in read("it_after_questions_fresh.jsonl")]
    sessions += [{**s, "split": "requests"} for s in read("it_after_requests.jsonl")]
    for s, first, second in follow_ups_asked(index, sessions):
        cited = [c.hit.paper.authors[0] for c in second.citations]
        relevant = set(s["relevant"])
        searched = second.standalone or s["second"]
        rows.append(
            {
                "id": s["id"],
                "split": s["split"],
                "it_means": s["it_means"],
                "first_cited": [c.hit.paper.authors[0] for c in first.citations],
                "searched": searched,
                "read_right": reads_as_labelled(index, s, searched, cited),
                "cited": sorted(set(cited)),
                "relevant": sorted(relevant),
                "hits": len(set(cited) & relevant),
                "abstained": second.abstained or not cited,
                "answer": second.answer[:300],
            }
        )
    return rows


def table(rows: list[dict[str, Any]], tag: str) -> list[str]:
    lines = [
        f"### {tag}",
        "",
        "| part | sessions | pronoun read as labelled | recall | precision | no paper cited |",
        "|---|---|---|---|---|---|",
    ]
    for split in ("fit", "heldout", "fresh", "requests"):
        for kind in ("topic", "paper"):
            part = [r for r in rows if r["split"] == split and r["it_means"] == kind]
            recall, precision = cited_recall_precision(part)
            lines.append(
                f"| {split}: {kind} | {len(part)} | {sum(r['read_right'] for r in part)} | "
                f"{recall} | {precision} | {sum(r['abstained'] for r in part)} |"
            )
    return [*lines, ""]


def main() -> None:
    session_bench("it_after_questions", "'It' after a question", __doc__, run, table)


if __name__ == "__main__":
    main()
