"""The answer as it is shown: its records (`Answer`, `Citation`), and the renderer that
numbers the papers its sentences cite, in order of first citation."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rag import prompts
from rag.answer.citations import CheckedSentence, CitationChecker
from rag.answer.discourse import standalone, third_person
from rag.answer.evidence import Evidence
from rag.answer.shown_form import checked_as_cited
from rag.ingest.naming import author_phrase, method_name, speaker
from rag.ingest.roles import stored_roles
from rag.records import Hit, Paper
from rag.text import split_sentences

# "... graphs. [1] Then" -> "... graphs [1]. Then": a marker belongs to the sentence before it.
_MARKER_AFTER_STOP = re.compile(r"([.!?])\s*((?:\[\d+(?:\s*[,;]\s*\d+)*\]\s*)+)")


@dataclass(frozen=True)
class Citation:
    """A paper cited by an answer under the number `n` it has in the answer text."""

    n: int
    hit: Hit
    evidence: str

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, **self.hit.to_dict(), "evidence": self.evidence}


@dataclass(frozen=True)
class Answer:
    """A checked answer: text with `[n]` markers, the papers they point to, and why."""

    question: str
    answer: str
    citations: tuple[Citation, ...]
    sentences: tuple[dict[str, Any], ...]
    abstained: bool
    nearest: tuple[Hit, ...]
    backend: str
    notice: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    standalone: str | None = None  # what was searched, when it differs from `question`
    language: str = "en"  # the question's language (rag/answer/language.py)
    answerability: float | None = (
        None  # the abstention model's probability (rag/answer/abstention.py)
    )

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "standalone_question": self.standalone,
            "answer": self.answer,
            "citations": [c.to_dict() for c in self.citations],
            "sentences": list(self.sentences),
            "abstained": self.abstained,
            "nearest": [h.to_dict() for h in self.nearest],
            "backend": self.backend,
            "notice": self.notice,
            "language": self.language,
            "answerability": self.answerability,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }


def note_record(text: str) -> dict[str, Any]:
    """The record of a plain statement of ours among an answer's sentences: shown, citing none."""
    return {"text": text, "note": True, "shown": True, "supported": False, "support": 0.0,
            "reason": "note", "citations": []}  # fmt: skip


class Renderer:
    """Numbers cited papers 1, 2, ... in order of first citation and renders sentences."""

    def __init__(self, evidence: list[Evidence], mode: str) -> None:
        self.by_source = {ev.n: ev for ev in evidence}
        self.mode = mode
        self.numbers: dict[int, int] = {}
        self.evidence: dict[int, str] = {}  # source -> the sentence that first supported it
        self.parts: list[str] = []
        self.sentences: list[dict[str, Any]] = []
        self.supported = 0

    def note(self, text: str) -> str:
        """Show a plain statement of ours (no claim about a paper, so no citation)."""
        self.sentences.append(note_record(text))
        piece = text if not self.parts else "\n" + text
        self.parts.append(piece)
        return piece

    def add(self, checked: CheckedSentence, bullet: bool = False) -> str | None:
        """Return the text to show for a checked sentence (None: not shown).

        With `bullet`, the sentence is shown on a line of its own, as "- sentence [n]."
        """
        record = {
            "text": checked.text,
            "support": round(checked.support, 4),
            "supported": checked.supported,
            "attributed": checked.attributed,
            "reason": checked.reason,
            "citations": [],
        }
        if checked.foreign:
            record["foreign"] = list(checked.foreign)
        if not checked.supported:
            # A copy of our instructions is never shown, not even flagged.
            flagged = self.mode == "flag" and checked.reason != "prompt_leak"
            record["shown"] = flagged
            self.sentences.append(record)
            if not flagged:
                return None
            shown = f"{checked.text} [unsupported]"
        else:
            self.supported += 1
            numbers = [self.numbers.setdefault(s, len(self.numbers) + 1) for s in checked.sources]
            for source, sentence in zip(checked.sources, checked.evidence, strict=False):
                self.evidence.setdefault(source, sentence)
            record["citations"] = numbers
            record["shown"] = True
            self.sentences.append(record)
            body = _closing_quote_kept_if_opened(checked.text.rstrip())
            stop = body[-1] if body and body[-1] in ".!?" else "."
            body = body.rstrip(".!?")
            shown = f"{body} {''.join(f'[{n}]' for n in numbers)}{stop}"
        if bullet:
            shown = "- " + shown
        after_note = (
            bool(self.sentences)
            and len(self.sentences) > 1
            and self.sentences[-2].get("note", False)
        )
        piece = shown if not self.parts else ("\n" if bullet or after_note else " ") + shown
        self.parts.append(piece)
        return piece

    def follows(self, checked: CheckedSentence) -> bool:
        """Whether the last shown sentence cites the same papers as `checked` (what it may
        point back to)."""
        shown = [r for r in self.sentences if r["shown"] and not r.get("note")]
        numbers = [self.numbers.get(n) for n in checked.sources]
        return bool(shown) and bool(numbers) and all(n in shown[-1]["citations"] for n in numbers)

    def reject(self, checked: CheckedSentence, reason: str) -> None:
        """Record a supported sentence that is not shown for `reason` (e.g. off the question)."""
        self.sentences.append(
            {"text": checked.text, "support": round(checked.support, 4), "supported": True,
             "attributed": checked.attributed, "reason": reason, "citations": [],
             "shown": False}
        )  # fmt: skip

    def said_of_sources(self) -> dict[int, str]:
        """What the shown sentences say of each cited source, by source number."""
        shown = [r for r in self.sentences if r["shown"] and not r.get("note")]
        return {
            source: " ".join(r["text"] for r in shown if number in r["citations"])
            for source, number in self.numbers.items()
        }

    def citations(self) -> tuple[Citation, ...]:
        return tuple(
            Citation(
                n, self.by_source[s].hit, self.evidence.get(s, self.by_source[s].best_sentence)
            )
            for s, n in sorted(self.numbers.items(), key=lambda item: item[1])
        )


def complete_sentences(buffer: str, final: bool) -> tuple[list[str], str]:
    """Split off the sentences of `buffer` that are complete; return them and the rest."""
    sentences = split_sentences(_MARKER_AFTER_STOP.sub(r" \2\1 ", buffer))
    if final:
        return [s for s in sentences if s.strip()], ""
    if len(sentences) < 2:
        return [], buffer
    # Keep the trailing white space: the next token may start a new word without one.
    return sentences[:-1], sentences[-1] + buffer[len(buffer.rstrip()) :]


def made_standalone(
    checked: CheckedSentence, by_source: dict[int, Evidence], checker: CitationChecker
) -> CheckedSentence:
    """Return a model sentence of one source with the abstract's lost openers removed and "we"
    named ("To address this, we propose ..." → "Ju et al. (ICGNN) propose ...", else "our" as
    "their"), as the composer shows abstract sentences, when the citation check still passes
    it; else as it was.
    """
    if not checked.supported or len(checked.sources) != 1 or checked.sources[0] not in by_source:
        return checked
    n = checked.sources[0]
    who, plural = speaker(by_source[n].hit.paper)
    named = standalone(checked.text, who, plural)
    # Under the paper's label, "our approach" is "their approach", as in the composer's lines.
    text = named.text if named.named or not who else third_person(named.text)
    if text == checked.text:
        return checked
    again = checked_as_cited(text, n, checker)
    return checked if again is None else replace(again, attributed=checked.attributed)


def rests_on_first_choice(checked: CheckedSentence, by_source: dict[int, Evidence]) -> bool:
    """Whether a model sentence on one paper rests on that paper's first sentence in the prompt
    (`Evidence.best_sentence`, the fitted sentence choice's for the question): the check's
    best-supporting sentence is it. A sentence on several papers is not judged here."""
    if len(checked.sources) != 1 or checked.sources[0] not in by_source or not checked.evidence:
        return True
    return checked.evidence[0] == by_source[checked.sources[0]].best_sentence


def labelled(checked: CheckedSentence, by_source: dict[int, Evidence]) -> CheckedSentence:
    """A model sentence of one source that does not say whose it is ("Experiments on benchmark
    datasets show the superiority of our approach [1].") with the paper's label first, as the
    composer's lines have it. The label claims nothing, so the check that passed stands."""
    if not checked.supported or len(checked.sources) != 1 or checked.sources[0] not in by_source:
        return checked
    paper = by_source[checked.sources[0]].hit.paper
    who, _ = speaker(paper)
    if not who or _says_whose(paper, checked.text):
        return checked
    return replace(checked, text=f"{who}: {checked.text}")


def fallback_notice(records: Sequence[dict[str, Any]]) -> str:
    """Why no sentence of the model's is shown: one its papers did not support, or only
    supported ones that did not answer the question (off it, not stating the fact asked for,
    or not the papers' first choice). A supported one that did not state the fact is the
    reason to give, whatever else the model wrote. A composer's note is none of the model's."""
    records = [r for r in records if not r.get("note")]
    stated = all(r.get("reason") != "not_stated" for r in records)
    if stated and any(not r["supported"] for r in records):
        return prompts.NO_SUPPORTED_SENTENCE
    return prompts.MODEL_OFF_QUESTION


def _closing_quote_kept_if_opened(text: str) -> str:
    """`text` without a closing double quote at its end that nothing opened (a small model's
    slip: 'states."'), or with the sentence's stop moved out of a quotation it does close
    ('called "X."' -> 'called "X".'), so that the citation follows the words it cites."""
    if not text.endswith(('"', "\u201d")):
        return text
    quote = text[-1]
    opened = text.count('"') % 2 == 0 if quote == '"' else "\u201c" in text
    if not opened:
        return text[:-1].rstrip()
    if len(text) > 1 and text[-2] in ".!?":
        return text[:-2] + quote + text[-2]
    return text


def join_notices(first: str | None, second: str) -> str:
    """Return two notices as one (the first may be absent)."""
    return f"{first} {second}" if first else second


def label_prefix(evidence: list[Evidence]) -> re.Pattern[str]:
    """Return a pattern for a sentence that starts like a source line: "[1] Ju et al.: ", with
    the paper's method name: "ICGNN: ", or with a dash for the colon, as SmolLM2 writes it:
    "Guan et al. — Finally, we incorporate ..." (then made "Guan et al. — finally, Guan et al.
    incorporate ...")."""
    labels = sorted(
        {ev.hit.paper.label for ev in evidence if ev.hit.paper.label}
        | {who for ev in evidence if (who := authors_of(ev.hit.paper))}  # "Guan et al. — ..."
        | {who for ev in evidence if (who := speaker(ev.hit.paper)[0])}  # "Ju et al. (ICGNN)"
        | {m for ev in evidence if (m := method_name(ev.hit.paper.abstract))},  # "ICGNN: ..."
        key=len,
    )
    names = "|".join(re.escape(label) for label in reversed(labels))
    name = rf"(?:{names}|source\s*\d+)" if names else r"source\s*\d+"
    return re.compile(rf"^\s*(?:\[\d+\]\s*)?{name}\s*(?::|[\u2014\u2013]|\s-\s)\s*", re.IGNORECASE)


def authors_of(paper: Paper) -> str:
    return author_phrase(paper.authors, paper.authors_truncated)


def _says_whose(paper: Paper, text: str) -> bool:
    """Whether `text` names its paper: the first author's surname or the paper's method name
    ("Conpress reduces ..." names ConPress), in any case."""
    names = [paper.authors[0].split()[-1]] if paper.authors else []
    names += [name] if (name := method_name(paper.abstract)) else []
    return any(re.search(rf"\b{re.escape(n)}\b", text, re.IGNORECASE) for n in names)


_QUOTED_WORD = re.compile(r"\w+")
# A sentence of the abstract is quoted by an answer sentence that holds this share of its words
# in their order: the composer names whose sentence it is ("MAI & Loubes show that ..." for
# "Importantly, we show that ..."), and a model may change a word or two.
QUOTED_SHARE = 0.8
QUOTED_LEAST_WORDS = 4  # fewer words in common say nothing ("We do." in "we do not know")


def _repeats(sentence: str, said: str) -> bool:
    """Whether `said`, a sentence of an answer, repeats `sentence` of an abstract."""
    words, other = _QUOTED_WORD.findall(sentence.lower()), _QUOTED_WORD.findall(said.lower())
    matcher = difflib.SequenceMatcher(None, words, other, autojunk=False)
    same = sum(block.size for block in matcher.get_matching_blocks())
    return same >= max(QUOTED_LEAST_WORDS, QUOTED_SHARE * len(words))


def quoted_sentences(answer: Answer, citation: Citation) -> list[str]:
    """Return every sentence of a cited paper's abstract that the answer quoted: the one its
    first line citing it opens with, the one its citation names, then each other one that a
    shown sentence citing it repeats.

    `Citation.evidence` is only the first sentence that supported the paper, so a card marked
    one of the two sentences an answer quoted from it (a new user at both widths). Nor need it
    open the line: "Across ... baselines. These results suggest ... [1]" joins the sentence
    "These results" points back to before it, and a phone's card, opened at the first of these,
    showed the end of the line's opening sentence (a new user, stop 65).
    """
    said = [
        str(record.get("text", ""))
        for record in answer.sentences
        if record.get("shown")
        and record.get("supported")
        and record.get("reason") != "record"  # a paper's record line ("bibtex please")
        and citation.n in record.get("citations", ())
    ]
    paper = citation.hit.paper
    sentences = [sentence for sentence, _ in stored_roles(paper.abstract, paper.sentence_roles)]
    # Within one shown sentence the abstract's order is the line's (a sentence that points back
    # follows the one it points to), so the first it repeats opens it.
    opening = next((s for s in sentences if _repeats(s, said[0])), None) if said else None
    found = [opening] if opening else []
    if citation.evidence and citation.evidence not in found:
        found.append(citation.evidence)
    for sentence in sentences:
        if sentence not in found and any(_repeats(sentence, text) for text in said):
            found.append(sentence)
    return found
