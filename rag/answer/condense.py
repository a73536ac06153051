"""Follow-up questions: turn (chat history, question) into a standalone question.

A question is rewritten only when it depends on the history: an ordinal or a numbered
reference ("the second one", "paper 2", "[2]") names the paper cited at that position in the
previous answer; in a short question "it", "that paper" or "this method" names its first
paper and "they", "those" or "of them" all of them ("Which of those gives guarantees?"); a
question with no content words of its own ("Why?", "Tell me more.") asks about the previous
answer's papers. Every other question, "What about solving PDEs?" or "Now a different topic:
recommendation systems?" included, is searched exactly as typed: earlier questions are never
glued onto a new one, so a topic switch or an off-topic question is judged on its own words.
The referred papers come back as `papers`, so the answer is built from them. With an LLM, the
same rule decides whether to rewrite at all; the LLM's rewrite is then used only when it is
short, single-line and keeps the names and content words the rule found.
"""

from __future__ import annotations

import functools
import html
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rag import prompts
from rag.answer.citations import content_stems, strip_markers
from rag.backends.base import Backend, Prompt
from rag.errors import BackendError
from rag.ingest.naming import method_name
from rag.records import Paper
from rag.text import split_sentences

log = logging.getLogger(__name__)

_ORDINALS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
    "fifth": 5, "5th": 5, "former": 1,
}  # fmt: skip
_ONE_WORDS = "one paper method approach work study model framework source reference article"
_ONE = rf"(?:{'|'.join(_ONE_WORDS.split())})"
_NOUN = rf"(?:{_ONE}|papers)"
_ORD = rf"(?:{'|'.join(_ORDINALS)}|last|latter)"
# "the second one/paper/method", or a bare "the second" that ends the phrase ("did the second
# use?"), but not "the first stage".
_ORDINAL_REF = re.compile(
    rf"\b(?:the\s+)?(?P<a>{_ORD})\s+{_NOUN}\b"
    rf"|\bthe\s+(?P<b>{_ORD})\b(?=\s*(?:[?.,;!]|$|\s+(?:did|does|do|is|was|has|had|uses?|used|"
    r"propose[sd]?|shows?|reports?|finds?|found|says?|means?|claims?|achieves?|evaluates?)\b))",
    re.IGNORECASE,
)
_NUMBER_REF = re.compile(
    rf"(?:\b(?:the\s+)?{_NOUN}\s*(?:number\s*|no\.?\s*)?\[?(?P<a>\d)\]?(?!\d)|\[(?P<b>\d)\])",
    re.IGNORECASE,
)
# "this paper", "that method", "it"; "the paper" too, but not "the work on X" or "the papers":
# a noun the question goes on to describe, or a plural after "the"/"these", is the collection's.
_SINGULAR_REF = re.compile(
    rf"\b(?:(?:this|that)\s+{_ONE}|the\s+{_ONE}(?!\s+(?:on|about|in|regarding|for|of|that|"
    rf"which|from|with)\b)|it|its|itself)\b(?!\s*\[)",
    re.IGNORECASE,
)
# "the others", "the rest": the papers of the last list that the answer after it left out.
_OTHERS = r"\bthe\s+(?:others|other\s+(?:ones|papers)|rest|remaining\s+(?:ones|papers))\b"
# "Which one ...?" (not "which one of the methods"): a choice among the papers just cited.
_WHICH_ONE = r"\bwhich\s+ones?\b(?!\s+(?:of|paper|papers|method|methods)\b)"
_PLURAL_REF = re.compile(
    rf"\b(?:they|them|their|theirs|those)(?:\s+{_NOUN})?\b|\b(?:both|all)\s+of\s+them\b"
    rf"|{_WHICH_ONE}|{_OTHERS}",
    re.IGNORECASE,
)
# "Which one ...?", "Which of them/those ...?": a choice among the papers just cited, however
# long the question.
_PICKS = re.compile(
    rf"{_WHICH_ONE}"
    r"|\bwhich\s+of\s+(?:them|those|these|the\s+(?:two|three|four|five)|both)\b",
    re.IGNORECASE,
)
# "Is it true that ...", "it is known that ...": an "it" that refers to nothing.
_EXPLETIVE_IT = re.compile(
    r"\b(?:(?:is|was)\s+it|it\s+(?:is|was)|it's)\s+(?:\w+\s+)?(?:true|possible|known|"
    r"feasible|worth|necessary|hard|easy|better|common|likely|important|useful|the\s+case)\b",
    re.IGNORECASE,
)
# Words that ask for more without naming a subject: "Tell me more.", "Why?", "Any details?"
_NO_SUBJECT = (
    "tell more detail details explain elaborate why how please anything else what about go "
    "further expand summarize summarise summary"
)
_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")  # "- ", "* ", "2. " before a list line
_SHORT = 5  # content words: a question with a pronoun and this many or fewer leans on the last
_MAX_LLM_WORDS = 40


@dataclass(frozen=True)
class Turn:
    """One earlier exchange: the question, the answer text, and the papers it cited.

    The paper cited as `[n]` in `answer` is `cited[n - 1]`; `cited` is empty when only the
    text is known (chat messages), and the papers are then looked up by their sentences.
    """

    question: str
    answer: str = ""
    cited: tuple[Paper, ...] = ()


@dataclass(frozen=True)
class Condensed:
    """A standalone question and what it was made from."""

    question: str  # standalone
    original: str
    method: str = "as-is"  # "as-is", "rule" or "llm"
    papers: tuple[Paper, ...] = ()  # the papers the follow-up refers to, if any


Resolver = Callable[[str], "Paper | None"]


def _plain(content: Any) -> str:
    """Return the text of a chat message's content (Gradio gives a string or parts)."""
    if isinstance(content, list):
        content = " ".join(
            str(p.get("text", "")) if isinstance(p, Mapping) else str(p) for p in content
        )
    text = str(content or "")
    text = text.split("\n\n*", 1)[0]  # a notice appended in italics after the answer
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"\\(.)", r"\1", text)  # Markdown escapes
    text = html.unescape(text)
    # Lines stay apart: a "which papers" answer is one "- " line per paper.
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def to_turns(history: Sequence[Any] | None) -> list[Turn]:
    """Return the earlier exchanges from any history form we accept.

    Args:
        history: `Turn`s; (question, Answer) pairs; or chat messages
            ({"role": "user"|"assistant", "content": ...}) as the UI keeps them.

    Returns:
        The turns, oldest first.
    """
    turns: list[Turn] = []
    pending: str | None = None
    for item in history or []:
        if isinstance(item, Turn):
            turns.append(item)
        elif isinstance(item, Mapping):
            role, text = item.get("role"), _plain(item.get("content"))
            if role == "user":
                if pending is not None:
                    turns.append(Turn(pending))
                pending = text
            elif role == "assistant" and pending is not None:
                turns.append(Turn(pending, text))
                pending = None
        elif isinstance(item, Sequence) and not isinstance(item, str) and len(item) == 2:
            question, answer = item
            citations = getattr(answer, "citations", ())
            text = getattr(answer, "answer", answer if isinstance(answer, str) else "")
            ordered = sorted(citations, key=lambda c: c.n)
            # `cited[n-1]` must be paper [n]; numbering is 1..k by construction.
            asked = getattr(answer, "standalone", None) or str(question)
            turns.append(Turn(asked, str(text), tuple(c.hit.paper for c in ordered)))
    if pending is not None:
        turns.append(Turn(pending))
    return turns


def paper_name(paper: Paper) -> str:
    """Return a short name for a paper: its method name, title or label."""
    return method_name(paper.abstract) or paper.title or paper.label or paper.citation_key


def _cited(turn: Turn, n: int, resolve: Resolver | None) -> Paper | None:
    """Return the paper cited as [n] in `turn`'s answer."""
    if 1 <= n <= len(turn.cited):
        return turn.cited[n - 1]
    if turn.cited or resolve is None:
        return None
    sentences = (
        s for line in turn.answer.splitlines() for s in split_sentences(_LIST_ITEM.sub("", line))
    )
    for sentence in sentences:
        text, numbers = strip_markers(sentence)
        if n in numbers and text:
            return resolve(text)
    return None


def _cited_numbers(turn: Turn) -> list[int]:
    if turn.cited:
        return list(range(1, len(turn.cited) + 1))
    return sorted({int(n) for n in re.findall(r"\[(\d+)\]", turn.answer)})


def _with_name(question: str, span: tuple[int, int], papers: Sequence[Paper]) -> str:
    names = " and ".join(paper_name(p) for p in papers)
    return question[: span[0]] + names + question[span[1] :]


def _own_words(question: str) -> list[str]:
    """Return the content words of `question` that are not requests for more."""
    return [w for w in content_stems(question) if w not in _no_subject_stems()]


@functools.cache
def _no_subject_stems() -> frozenset[str]:
    return frozenset(content_stems(_NO_SUBJECT))


def depends_on_history(question: str) -> bool:
    """Return whether `question` needs the previous answer to be understood (see module doc).

    Used to decide whether to rewrite at all, by the rule and before any LLM rewrite.
    """
    text = _EXPLETIVE_IT.sub(" ", question)
    if _ORDINAL_REF.search(text) or _NUMBER_REF.search(text):
        return True
    if _PICKS.search(text):  # "Which one doesn't need ...?": a choice among the last papers
        return True
    short = len(content_stems(text)) <= _SHORT
    if short and (_PLURAL_REF.search(text) or _SINGULAR_REF.search(text)):
        return True
    return not _own_words(question)


def rule_rewrite(
    question: str, turns: Sequence[Turn], resolve: Resolver | None = None
) -> Condensed:
    """Rewrite a follow-up with the deterministic rule (see the module docstring)."""
    question = question.strip()
    last = next((t for t in reversed(turns) if t.answer), None)
    if last is None or not depends_on_history(question):
        return Condensed(question, question)
    numbers = _cited_numbers(last)
    text = _EXPLETIVE_IT.sub(lambda m: " " * len(m.group()), question)  # keeps the spans

    match = _ORDINAL_REF.search(text)
    number_match = _NUMBER_REF.search(text)
    n = None
    if match and numbers:
        word = (match.group("a") or match.group("b")).lower()
        n = numbers[-1] if word in ("last", "latter") else _ORDINALS[word]
    elif number_match:
        n = int(number_match.group("a") or number_match.group("b"))
        match = number_match
    if n is not None and match is not None:
        paper = _cited(last, n, resolve)
        if paper is not None:
            rewritten = _with_name(question, match.span(), [paper])
            return Condensed(rewritten, question, "rule", (paper,))

    found = _PLURAL_REF.search(text) or _SINGULAR_REF.search(text)
    wanted = numbers if found is None or _PLURAL_REF.search(text) else numbers[:1]
    papers = [p for p in (_cited(last, k, resolve) for k in wanted) if p is not None]
    papers = list({p.id: p for p in papers}.values())
    if found is not None and re.fullmatch(_OTHERS, found.group(), re.IGNORECASE):
        papers = _others(turns, papers) or papers
    if not papers:  # the previous answer cited nothing: there is nothing to refer to
        return Condensed(question, question)
    if found is not None and found.group().lower().startswith("which"):  # "Which one ...?"
        names = " and ".join(paper_name(p) for p in papers)
        rewritten = question[: found.start()] + f"Which of {names}" + question[found.end() :]
    elif found is not None:
        rewritten = _with_name(question, found.span(), papers)
    else:  # no subject of its own ("Why?", "Tell me more."): about the previous papers
        names = " and ".join(paper_name(p) for p in papers)
        rewritten = f"{question.rstrip(' ?.!')} ({names})?"
    return Condensed(rewritten, question, "rule", tuple(papers))


def _others(turns: Sequence[Turn], last_papers: Sequence[Paper]) -> list[Paper]:
    """Return the papers of the latest answer citing more than the last one, less the last's."""
    shown = {p.id for p in last_papers}
    for turn in reversed(turns[:-1]):
        if len(turn.cited) > len(shown):
            return [p for p in turn.cited if p.id not in shown]
    return []


def _llm_prompt(question: str, last: Turn, named: dict[int, Paper]) -> Prompt:
    papers = "\n".join(
        prompts.CONDENSE_PAPER.format(n=n, name=paper_name(p)) for n, p in sorted(named.items())
    )
    user = prompts.CONDENSE_USER.format(previous=last.question, papers=papers, question=question)
    return Prompt(prompts.CONDENSE_SYSTEM, user)


def _acceptable(rewrite: str, rule: Condensed) -> bool:
    """The guard on an LLM rewrite: one short line that keeps the names and key words."""
    if not rewrite or "\n" in rewrite or "[" in rewrite:
        return False
    if len(rewrite.split()) > _MAX_LLM_WORDS or len(rewrite) > 3 * max(len(rule.question), 60):
        return False
    low = rewrite.lower()
    if any(paper_name(p).lower() not in low for p in rule.papers):
        return False
    names = {s for p in rule.papers for s in content_stems(paper_name(p))}
    wanted = set(content_stems(rule.question)) - names
    got = set(content_stems(rewrite))
    return not wanted or len(wanted & got) >= (len(wanted) + 1) // 2


def condense(
    question: str,
    history: Sequence[Any] | None,
    *,
    backend: Backend | None = None,
    resolve: Resolver | None = None,
    max_tokens: int = 64,
) -> Condensed:
    """Return `question` as a standalone question, given the chat so far.

    Args:
        question: the new question, perhaps a follow-up.
        history: earlier exchanges, in any form `to_turns` reads.
        backend: an LLM to rewrite with (None: the rule only).
        resolve: finds the paper an answer sentence came from, when the history holds only
            text (chat messages).
        max_tokens: most tokens the LLM may write.

    Returns:
        The standalone question, how it was made, and the papers it refers to.
    """
    turns = to_turns(history)
    rule = rule_rewrite(question, turns, resolve)
    if backend is None or rule.method == "as-is":
        return rule
    last = next(t for t in reversed(turns) if t.answer)
    named = {n: p for n in _cited_numbers(last) if (p := _cited(last, n, resolve)) is not None}
    try:
        text = "".join(
            backend.generate(
                _llm_prompt(question, last, named),
                stream=False,
                max_tokens=max_tokens,
                temperature=0.0,
            )
        )
    except BackendError as exc:
        log.info("condensing with the LLM failed (%s); using the rule", exc)
        return rule
    rewrite = text.strip().strip('"').strip()
    if _acceptable(rewrite, rule):
        return Condensed(rewrite, question, "llm", rule.papers)
    log.debug("LLM rewrite %r rejected by the guard; using %r", rewrite, rule.question)
    return rule
