"""The citation check: every sentence shown is supported by a retrieved paper it cites.

A generated sentence's `[n]` markers are read; markers to papers that were not retrieved are
dropped; each remaining citation is kept only when the cited paper supports the sentence. The
support score (0-1) is calibrated on labelled data (`bench/answers/calibrate.py`):

    support = semantic x coverage, or 0 when the sentence states a foreign fact

- semantic: the best cosine between the sentence and a sentence of the paper's abstract;
- coverage: the share of the sentence's content words (stemmed) found in the paper's text;
- foreign fact: a number, or a name (an acronym, a mixed-case or capitalised word), that the
  paper's abstract, title, label and authors never mention: "improves accuracy by 35%" or
  "certified in Coq" cannot be supported by an abstract that does not say it.

A sentence with no valid marker is attributed to the retrieved paper that supports it best, when
one reaches the threshold. A sentence that copies the system prompt is never shown. Claims that
reuse the abstract's words with the opposite meaning ("X fails" for "X succeeds") score high on
support: with a stance judge (`rag.stance.judge`), a sentence that a paper it cites is judged to
contradict is never shown, whatever its support score (reason "contradicted"), and a paper
that contradicts a sentence is never the one it is attributed to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from rag.answer.evidence import Evidence, paper_sentences
from rag.index.embedding import Embedder
from rag.records import Paper
from rag.stance.judge import JUDGED_SENTENCES, StanceJudge
from rag.text import CONTENT_WORD, NUMBER_WORDS, STOPWORDS, content_stems

MARKER = re.compile(r"\s*\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_NUMBER = re.compile(r"(?<![^\W\d_])\d+(?:[.,]\d+)?")


@dataclass(frozen=True)
class Support:
    """How well one paper supports one sentence, and why."""

    score: float  # the calibrated support score, 0-1
    semantic: float  # best cosine to one sentence of the abstract
    coverage: float  # share of the sentence's content words the paper contains
    foreign: tuple[str, ...]  # numbers and names in the sentence that the paper never states
    evidence: str  # the abstract sentence closest to the sentence


@dataclass(frozen=True)
class CheckedSentence:
    """One answer sentence after the check; `sources` are prompt source numbers."""

    text: str  # without markers
    sources: tuple[int, ...]
    support: float  # best support among the kept sources (or among all, when none is kept)
    supported: bool
    attributed: bool = False  # the check chose the citation: the model wrote none that held
    evidence: tuple[str, ...] = ()  # per kept source, its abstract sentence that supports most
    reason: str = "supported"  # or: unsupported, foreign_fact, contradicted, prompt_leak,
    # not_a_claim
    foreign: tuple[str, ...] = ()


def strip_markers(sentence: str) -> tuple[str, list[int]]:
    """Return the sentence without `[n]` markers, and the numbers they held, in order."""
    numbers: list[int] = []
    for match in MARKER.finditer(sentence):
        numbers.extend(int(x) for x in re.split(r"\s*[,;]\s*", match.group(1)))
    text = MARKER.sub("", sentence).strip()
    text = re.sub(r"\s+([.,;:!?])", r"\1", text)
    return text, list(dict.fromkeys(numbers))


def numbers(text: str) -> set[float]:
    """Return the numbers `text` states, in digits or as words ("three" is 3)."""
    found = {float(x.replace(",", ".")) for x in _NUMBER.findall(text)}
    found.update(NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", text.lower()) if w in NUMBER_WORDS)
    return found


_WORDS = re.compile(r"\w+")
CUT_WORDS = 8  # a model sentence cut from an abstract sentence is no claim under this many words
# A paper's label with nothing after it ("IndexGuard: [1]." from the local model): no claim.
_LABEL_ONLY = re.compile(r"^[^:]{1,120}:\W*$")
# The surnames a sentence attributes its claim to: "Zhao et al.", "MAI & Loubes" (spaced "&":
# "Q&A" is no pair of names; the second name is a capitalised word inside the sentence anyway).
_ATTRIBUTED = re.compile(r"\b[A-Z][\w'-]+(?=\s+et\s+al\b)|\b[A-Z][\w'-]+(?=\s+&\s+[A-Z])")


def _is_name(word: str, first: bool) -> bool:
    """True for ICGNN, LoRA, GPT-4, and capitalised words that do not start the sentence."""
    if len(word) < 2:
        return False
    if re.search(r"[A-Z0-9]", word[1:]):
        return True
    return word[0].isupper() and not first


class PaperFacts:
    """What a paper states, for the lexical side of the check."""

    def __init__(self, paper: Paper) -> None:
        text = " ".join(
            part
            for part in (paper.title, paper.abstract, paper.label, paper.area, *paper.authors)
            if part
        )
        self.words = {w.lower() for w in CONTENT_WORD.findall(text)}
        self.pieces = {p for w in self.words for p in re.split(r"[-']", w) if p}
        self._known = self.words | self.pieces
        self.stems = set(content_stems(text))
        self.numbers = numbers(text)
        words = [w.lower() for w in re.findall(r"[^\W\d_]+", text)]
        self.initials = " ".join(words)
        self._firsts = "".join(w[0] for w in words)

    def knows_name(self, word: str) -> bool:
        """Return whether the paper states the name `word` (or each name-like part of it)."""
        low = word.lower()
        known = self._known
        # Singular and plural both count: "PFN" for "PFNs", "mRNAs" for "mRNA".
        if low in known or low + "s" in known or (low.endswith("s") and low[:-1] in known):
            return True
        parts = [p for p in re.split(r"[-']", word) if p]
        if len(parts) > 1:
            # "Sf1-expressing": only the name-like parts must be known, not "expressing".
            named = [p for p in parts if _is_name(p, first=False) or p.isdigit()]
            return all(self.knows_name(p) for p in named if not p.isdigit())
        bare = word[:-1] if word.endswith("s") and word[:-1].isupper() else word
        # An acronym the abstract spells out: "LLM" for "large language model".
        return bare.isupper() and len(bare) >= 2 and bare.lower() in self._firsts

    def foreign(self, sentence: str) -> tuple[str, ...]:
        """Return the numbers and names of `sentence` that this paper never states.

        The people a sentence gives its claim to ("Zhao et al. show ...", "MAI & Loubes find")
        are names wherever they stand, its first word included: a line that quotes one paper
        under another paper's authors is a wrong citation, however well the paper supports it.
        """
        odd = [f"{n:g}" for n in sorted(numbers(sentence)) if n not in self.numbers]
        words = CONTENT_WORD.findall(sentence)
        named = set(_ATTRIBUTED.findall(sentence))
        odd += [
            w
            for i, w in enumerate(words)
            if w.lower() not in STOPWORDS
            and (_is_name(w, i == 0) or w in named)
            and not self.knows_name(w)
        ]
        return tuple(dict.fromkeys(odd))

    def coverage(self, sentence: str) -> float:
        stems = content_stems(sentence)
        return sum(s in self.stems for s in stems) / len(stems) if stems else 0.0


def cut_short(text: str, sentence: str) -> bool:
    """Whether `text` is the start of `sentence`, under `CUT_WORDS` words and not half of its
    words: cut before it says what it was going to ("Experiments on benchmark datasets" of
    "Experiments on benchmark datasets show that X beats ..."), not a main clause without its
    last qualifier nor a long clause of a longer sentence."""
    words, full = _WORDS.findall(text.lower()), _WORDS.findall(sentence.lower())
    short = 0 < len(words) < CUT_WORDS and 2 * len(words) <= len(full)
    return short and full[: len(words)] == words


def support_score(semantic: float, coverage: float, foreign: tuple[str, ...]) -> float:
    """Combine the parts into the support score (see the module docstring)."""
    return 0.0 if foreign else max(0.0, semantic) * coverage


class PromptLeakDetector:
    """Flags sentences that repeat our instructions or our worked example instead of answering.

    Args:
        instructions: texts whose words, making up `share` of a sentence's content words
            (at least `least` of them), mark it as a copy.
        names: made-up names of the worked example; a sentence with one of them is a copy.
    """

    def __init__(
        self,
        *instructions: str,
        names: tuple[str, ...] = (),
        share: float = 0.75,
        least: int = 3,
    ) -> None:
        self.stems = {s for text in instructions for s in content_stems(text)}
        self.names = {n.lower() for n in names}
        self.share = share
        self.least = least

    def leaks(self, sentence: str) -> bool:
        if self.names & {w.lower() for w in CONTENT_WORD.findall(sentence)}:
            return True
        stems = content_stems(sentence)
        if len(stems) < self.least:
            return False
        return sum(s in self.stems for s in stems) / len(stems) >= self.share


class CitationChecker:
    """Checks answer sentences against the abstracts of the papers put into the prompt."""

    def __init__(
        self,
        embedder: Embedder,
        evidence: list[Evidence],
        threshold: float,
        leak: PromptLeakDetector | None = None,
        stance: StanceJudge | None = None,
    ) -> None:
        self.embedder = embedder
        self.threshold = threshold
        self.leak = leak
        self.stance = stance
        self._sentences: dict[int, list[str]] = {}
        self._vectors: dict[int, np.ndarray] = {}
        self._facts: dict[int, PaperFacts] = {}
        for ev in evidence:
            # Instruction-like sentences of an abstract never count as support.
            sentences = paper_sentences(ev.hit.paper) or [ev.hit.paper.abstract]
            self._sentences[ev.n] = sentences
            known = ev.vectors
            if known is None or len(known) != len(sentences):
                known = embedder.embed(sentences)
            self._vectors[ev.n] = known
            self._facts[ev.n] = PaperFacts(ev.hit.paper)

    def support(self, text: str, vector: np.ndarray | None = None) -> dict[int, Support]:
        """Return, per source number, how well that paper supports `text`."""
        if vector is None:
            vector = self.embedder.embed([text])[0]
        result = {}
        for n, vectors in self._vectors.items():
            sims = vectors @ vector
            best = int(np.argmax(sims))
            facts = self._facts[n]
            semantic, coverage, foreign = (
                float(sims[best]),
                facts.coverage(text),
                facts.foreign(text),
            )
            result[n] = Support(
                support_score(semantic, coverage, foreign),
                semantic,
                coverage,
                foreign,
                self._sentences[n][best],
            )
        return result

    def check(self, sentence: str) -> CheckedSentence:
        """Check one generated sentence (with its markers)."""
        text, markers = strip_markers(sentence)
        if not text or not any(ch.isalpha() for ch in text) or _LABEL_ONLY.match(text):
            return CheckedSentence(text, (), 0.0, False, reason="not_a_claim")
        if self.leak is not None and self.leak.leaks(text):
            return CheckedSentence(text, (), 0.0, False, reason="prompt_leak")
        vector = self.embedder.embed([text])[0]
        scored = self.support(text, vector)
        cited = [n for n in markers if n in scored]
        against = self.contradicting(text, vector, cited)
        if against:
            best_score = max(scored[n].score for n in cited)
            return CheckedSentence(text, tuple(cited), best_score, False, reason="contradicted")
        if any(cut_short(text, full) for n in (cited or scored) for full in self._sentences[n]):
            # "Experiments on benchmark datasets [2]." from the local model: an abstract
            # sentence cut before it says anything, whose words the paper all holds.
            return CheckedSentence(text, tuple(cited), 0.0, False, reason="not_a_claim")
        kept = tuple(n for n in cited if scored[n].score >= self.threshold)
        if kept:
            evidence = tuple(scored[n].evidence for n in kept)
            best = max(scored[n].score for n in kept)
            return CheckedSentence(text, kept, best, True, False, evidence)
        # No cited paper holds (or none was cited): the best retrieved one may, on its own.
        top = max(scored, key=lambda n: scored[n].score)
        if scored[top].score >= self.threshold and not self.contradicting(text, vector, [top]):
            s = scored[top]
            return CheckedSentence(text, (top,), s.score, True, True, (s.evidence,))
        judged = [scored[n] for n in cited] or [scored[top]]
        worst = max(judged, key=lambda s: s.score)
        reason = (
            "foreign_fact" if worst.foreign and worst.semantic >= self.threshold else "unsupported"
        )
        return CheckedSentence(
            text, tuple(cited), worst.score, False, reason=reason, foreign=worst.foreign
        )

    def contradicting(self, text: str, vector: np.ndarray, sources: list[int]) -> set[int]:
        """Return the sources the stance judge finds contradicting `text` (none without one).

        Each paper is read on its `JUDGED_SENTENCES` sentences closest to `text`, as a claim
        lookup reads it.
        """
        if self.stance is None or not sources:
            return set()
        read = []
        for n in sources:
            closest = np.argsort(-(self._vectors[n] @ vector))[:JUDGED_SENTENCES]
            read.append([self._sentences[n][i] for i in sorted(closest)])
        stances = self.stance.judge(text, read)
        return {n for n, st in zip(sources, stances, strict=True) if st.label == "contradicts"}
