"""Stance judged by an LLM at an OpenAI-compatible endpoint (`stance = "llm"`).

The same contract as the shipped model (`rag.stance.judge.StanceJudge`): one call per paper, with
the claim and the paper's closest sentences numbered; the reply names one label and the sentence it
rests on. A reply that names no label, or a sentence that is not there, counts as neither: an
unreadable judgement never makes a paper support or contradict a claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag import prompts
from rag.backends.base import Backend, Prompt
from rag.stance.judge import Stance

_REPLY = re.compile(r"\b(SUPPORTS|CONTRADICTS|NEITHER)\b\W*(\d+)?", re.IGNORECASE)


class LLMStanceJudge:
    """Judges stance with an answer backend (in practice the `openai` one)."""

    def __init__(self, backend: Backend, max_tokens: int = 16) -> None:
        self.backend = backend
        self.max_tokens = max_tokens

    def judge(self, claim: str, papers: Sequence[Sequence[str]]) -> list[Stance]:
        """Return one Stance per paper (each given as its sentences), one LLM call each."""
        return [self._one(claim, list(sentences)) for sentences in papers]

    def _one(self, claim: str, sentences: list[str]) -> Stance:
        if not sentences:
            return Stance("neither", 0.0, 0.0, "", -1)
        numbered = "\n".join(
            prompts.STANCE_SENTENCE.format(n=i, sentence=s) for i, s in enumerate(sentences, 1)
        )
        prompt = Prompt(
            prompts.STANCE_SYSTEM, prompts.STANCE_USER.format(claim=claim, sentences=numbered)
        )
        reply = "".join(
            self.backend.generate(prompt, stream=False, max_tokens=self.max_tokens, temperature=0)
        )
        return parse_reply(reply, sentences)


def parse_reply(reply: str, sentences: list[str]) -> Stance:
    """Return the Stance a reply such as "CONTRADICTS 2" gives (neither when unreadable)."""
    match = _REPLY.search(reply)
    if match is None:
        return Stance("neither", 0.0, 0.0, sentences[0], 0)
    label = match.group(1).lower()
    n = int(match.group(2)) if match.group(2) else 0
    if label == "neither" or not 1 <= n <= len(sentences):
        return Stance("neither", 0.0, 0.0, sentences[0], 0)
    # An LLM gives no probability: 1.0 for the stance it named.
    sup, con = (1.0, 0.0) if label == "supports" else (0.0, 1.0)
    return Stance(label, sup, con, sentences[n - 1], n - 1)
