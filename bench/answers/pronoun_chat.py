"""Choose `topicless.PRONOUN_CHAT_BAR`: when "love it" after an answer is small talk.

    .venv/bin/python bench/answers/pronoun_chat.py --index DIR

"got it, thanks", "appreciate it" or "that's it for today" after an answer hold a pronoun, so
the rewrite rule asked them of the last answer's papers ("appreciate ICGNN") and quoted a paper.
The topicless judgement (`rag/answer/topicless.py`, a logistic regression over the message's
MiniLM vector) reads them as chat; it also gives some follow-ups that point back by a pronoun
a fair probability ("who are they", "explain it like I'm new to this"). Every labelled message
that could be such small talk (`topicless.may_be_small_talk`: it points back by a pronoun alone,
asks nothing and names nothing a paper holds) is scored: the chat and
collection messages of bench/data/subjectless_followups.jsonl against the follow-ups of that
file, bench/data/set_followups.jsonl and bench/data/generic_followups.jsonl. The bar is the
lowest on a 0.05 grid above every fitting follow-up's probability (none of them taken for chat);
held-out rows (each file's own split) judge it. Writes bench/results/pronoun_chat.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.paper_choice import read  # noqa: E402
from rag.answer import topicless  # noqa: E402
from rag.answer.abstention import question_terms  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.spelling import corrected  # noqa: E402
from rag.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def messages(index: Index) -> list[tuple[str, bool, str]]:
    """(split, small talk or about the collection?, message) for every message that could be
    small talk that points back by a pronoun."""
    rows = [
        (r["split"], r["label"] != "previous", r["second"])
        for r in read("subjectless_followups.jsonl")
    ]
    for s in read("set_followups.jsonl"):
        rows += [(s["split"], False, t["q"]) for t in s["turns"][1:]]
    rows += [
        (r["split"], False, r["second"]) for r in read("generic_followups.jsonl") if r["depends"]
    ]
    return [
        r
        for r in rows
        if topicless.may_be_small_talk(index, r[2], question_terms(index, corrected(index, r[2])))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a seed index")
    args = parser.parse_args()
    index = Index(Settings(index_dir=args.index))
    scored = [
        (sp, chat, m, topicless.probability(index, m) or 0.0) for sp, chat, m in messages(index)
    ]
    highest = max(p for sp, chat, _, p in scored if sp == "fit" and not chat)
    bar = next(b / 20 for b in range(21) if b / 20 > highest)

    def count(split: str, chat: bool) -> str:
        part = [p for sp, c, _, p in scored if sp == split and c == chat]
        return f"{sum(p >= bar for p in part)}/{len(part)}"

    lines = [
        "# Small talk that holds a pronoun (`topicless.PRONOUN_CHAT_BAR`)",
        "",
        "Command: `.venv/bin/python bench/answers/pronoun_chat.py --index DIR`. Messages that "
        "could be small talk that points back by a pronoun; the topicless probability of each. "
        "Highest fitting "
        f"follow-up: {highest:.3f}; chosen bar: {bar:.2f} (shipped: "
        f"{topicless.PRONOUN_CHAT_BAR}).",
        "",
        "| part | small talk or collection, read as such | follow-ups read as small talk |",
        "|---|---|---|",
        f"| fit | {count('fit', True)} | {count('fit', False)} |",
        f"| held out | {count('heldout', True)} | {count('heldout', False)} |",
        "",
        "| split | small talk? | probability | message |",
        "|---|---|---|---|",
        *(
            f"| {sp} | {'yes' if chat else 'no'} | {p:.3f} | {m} |"
            for sp, chat, m, p in sorted(scored, key=lambda r: -r[3])
            if chat or p >= 0.3
        ),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "pronoun_chat.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
