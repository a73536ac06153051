"""Measure a bar for "thanks, that's helpful!" after an answer (not shipped: see the results).

    .venv/bin/python bench/answers/chat_asides.py --index DIR

A message with a word of chat that asks nothing (`topicless._chat_aside`) is small talk
("thanks, that's helpful!", "ok got it, thank you") or a new topic typed after the chat word
("thanks, now graph neural networks", "cool, KV cache compression"). The first judgement (the
message's MiniLM vector, `PRONOUN_CHAT_BAR`) misses some of the small talk: "thanks, that's
helpful" read as chat at 0.77, "thanks, that's helpful!" at 0.59, and the second was searched
and quoted the one paper that holds "helpful". The searched judgement (`overview_probability`:
the vector's logit, the best passage's cosine, the answerability, ...) sees that such a message
finds no paper close. Every message of bench/data/chat_asides.jsonl (written before the tool was
asked; the `heldout` part written after the fitting part was scored, and nothing chosen on it)
is scored; the bar is the lowest on a 0.01 grid above every fitting topic message's probability.
Then each is asked after a first answer ("Any papers on graph neural networks?") through
`rag.api.ask`, as the chat page asks it: small talk should quote no paper, a topic should.
Writes bench/results/chat_asides.md. The 'asked' columns are what the shipped code does; the
bar is a candidate that held out read 4 more thanks as chat and 2 new topics as chat too, so
it was not shipped (bench/results/chat_asides.md).
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
from rag import api  # noqa: E402
from rag.answer import topicless  # noqa: E402
from rag.answer.abstention import decide, question_terms  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.index.retrieve import search  # noqa: E402
from rag.index.spelling import corrected  # noqa: E402
from rag.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"
FIRST = "Any papers on graph neural networks?"


def searched_probability(index: Index, message: str) -> float:
    query = corrected(index, message)
    hits = search(index, query, k=index.settings.top_k, retriever="hybrid", rescore=True)
    decision = decide(index, query, hits, index.settings.min_relevance)
    return topicless.overview_probability(index, message, decision, query) or 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="a seed index")
    args = parser.parse_args()
    index = Index(Settings(index_dir=args.index))
    settings = index.settings.model_copy(update={"backend": "extractive"})
    rows = [r for r in read("chat_asides.jsonl") if topicless._chat_aside(r["message"])]
    first = api.ask(FIRST, settings=settings, index=index)
    history = [{"role": "user", "content": FIRST}, {"role": "assistant", "content": first.answer}]
    searched_bar = float(topicless.weights()["searched"]["bar"])
    scored = []
    for r in rows:
        message = r["message"]
        first_judgement = topicless.small_talk(
            index, message, question_terms(index, corrected(index, message))
        )
        p = searched_probability(index, message)
        answer = api.ask(message, settings=settings, index=index, history=history)
        scored.append((r, first_judgement, p, not answer.citations))
    highest = max(p for r, _, p, _ in scored if r["split"] == "fit" and not r["small_talk"])
    bar = next(b / 100 for b in range(101) if b / 100 > highest)

    def count(split: str, chat: bool, at: float | None) -> str:
        part = [s for s in scored if s[0]["split"] == split and s[0]["small_talk"] == chat]
        read = [quiet if at is None else first or p >= at for _, first, p, quiet in part]
        return f"{sum(read)}/{len(part)}"

    lines = [
        "# A word of chat that asks nothing: a bar on the searched judgement (not shipped)",
        "",
        "Command: `.venv/bin/python bench/answers/chat_asides.py --index DIR`. The messages of "
        "bench/data/chat_asides.jsonl with a word of chat that ask nothing; whether the first "
        "judgement reads each as chat (`PRONOUN_CHAT_BAR`) and the searched judgement's "
        f"probability. Highest fitting topic message: {highest:.3f}; chosen bar: {bar:.2f} "
        "(not shipped). Read as chat: by the first judgement, or at the searched "
        f"judgement's own bar ({searched_bar}, before) or the chosen one. 'Asked': "
        f'`rag.api.ask` after "{FIRST}" quoted no paper.',
        "",
        "| part | small talk read as chat: before | at the chosen bar | asked |"
        " topics read as chat: before | at the chosen bar | asked |",
        "|---|---|---|---|---|---|---|",
        *(
            f"| {sp} | {count(sp, True, searched_bar)} | {count(sp, True, bar)} | "
            f"{count(sp, True, None)} | {count(sp, False, searched_bar)} | "
            f"{count(sp, False, bar)} | {count(sp, False, None)} |"
            for sp in ("fit", "heldout")
        ),
        "",
        "| split | small talk? | first judgement | searched probability | asked: no paper "
        "| message |",
        "|---|---|---|---|---|---|",
        *(
            f"| {r['split']} | {'yes' if r['small_talk'] else 'no'} | "
            f"{'chat' if first else '-'} | {p:.3f} | {'yes' if quiet else 'no'} | "
            f"{r['message']} |"
            for r, first, p, quiet in sorted(scored, key=lambda s: (s[0]["split"], -s[2]))
        ),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "chat_asides.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
