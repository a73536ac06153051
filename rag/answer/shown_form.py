"""How a sentence chosen from a paper is shown: standalone, under the paper's name, checked.

The composer (`rag/answer/compose.py`) chooses which sentence of a paper answers; this shows it.
An abstract's sentence is written in the authors' voice ("We show ...", "our method") and may
point back at one before it ("These approaches assume ..."): shown alone it must say whose claim
it is ("Li et al. (TRM): ..."), in the third person, with the sentence it points back to, and
the field's state the paper sets out from is labelled as background. Each form is checked
against its source again (`rag/answer/citations.py`); the sentence as written is the last
resort, and is its own evidence.
"""

from __future__ import annotations

from dataclasses import replace

from rag.answer.citations import CheckedSentence, CitationChecker
from rag.answer.discourse import points_back, standalone, third_person
from rag.answer.evidence import Evidence, paper_sentence_roles, paper_sentences
from rag.ingest.naming import speaker
from rag.ingest.wanted import in_own_voice

# A sentence that points back is shown after at most this many sentences before it.
REFERENT_REACH = 3
# How a line's label says that its sentence is the paper's background (`_forms`).
BACKGROUND_LABEL = ", as background: "


def checked_as_cited(text: str, n: int, checker: CitationChecker) -> CheckedSentence | None:
    """Return the check of `text` cited as `[n]` when it passes with that source alone."""
    checked = checker.check(f"{text} [{n}]")
    return checked if checked.supported and checked.sources == (n,) else None


def shown_form(
    sentence: str, ev: Evidence, checker: CitationChecker, labelled: bool = True
) -> CheckedSentence:
    """Return `sentence`, chosen from `ev`'s paper, as shown: standalone and named, if the check
    still passes.

    Without `labelled`, the sentence does not open with the paper's label ("Li et al. (TRM):
    ..."): it goes on with a line that did.

    The rewritten forms are tried from most to least changed; the sentence as written is the
    last resort, and is its own evidence. A sentence whose subject points back ("However, these
    approaches assume X", `points_back`) is shown after the sentence it refers to ("Most prior
    methods rely on Y."): alone under the paper's name it would read as the paper's own claim.
    """
    sentences = paper_sentences(ev.hit.paper)
    at = sentences.index(sentence) if sentence in sentences else -1
    if at > 0 and points_back(sentence):
        # Back to the sentence that names what it points to, when that one points back too
        # ("... an implicit assumption ... When this assumption fails, ... We characterize when
        # this assumption is violated"), at most `REFERENT_REACH` sentences.
        start = at - 1
        while start > 0 and at - start < REFERENT_REACH and points_back(sentences[start]):
            start -= 1
        before = one_shown(sentences[start], ev, checker, labelled)
        *between, text = _going_on(sentences[start + 1 : at + 1], ev, before.text)
        before = replace(before, text=" ".join([before.text, *between]))
        after = checked_as_cited(text, ev.n, checker)
        evidence: tuple[str, ...]
        if after is None:  # the sentence as written is its own evidence
            support, evidence = before.support, (sentence,)
        else:
            support, evidence = min(before.support, after.support), after.evidence
        return CheckedSentence(
            f"{before.text} {text}", (ev.n,), support, True, False, evidence, reason="quoted"
        )
    return one_shown(sentence, ev, checker, labelled)


def _going_on(sentences: list[str], ev: Evidence, opening: str) -> list[str]:
    """`sentences` as a line that opened with `opening` goes on: in the third person ("They
    characterize ...", not "We ..."), but after an opening labelled background the first in
    the authors' voice names them, where their own claim starts ("Zhang et al. (CPO), as
    background: DPO has emerged ... offering theoretical equivalence ... Zhang et al. (CPO)
    prove this equivalence is conditional ..."; with "They prove", a reader took the field's
    claim the paper refutes for the paper's, and the authors' results for background)."""
    who, plural = speaker(ev.hit.paper)
    named = not (who and opening.startswith(f"{who}{BACKGROUND_LABEL}"))
    shown = []
    for sentence in sentences:
        form = standalone(sentence, who, plural) if not named else None
        if form is not None and form.named:
            shown.append(form.text)
            named = True
        else:
            shown.append(third_person(standalone(sentence).text))
    return shown


def one_shown(
    sentence: str,
    ev: Evidence,
    checker: CitationChecker,
    labelled: bool = True,
    pointing: bool = False,
) -> CheckedSentence:
    """`shown_form` of one sentence (`pointing`: as written, its referent shown just before)."""
    forms = [sentence] if pointing else _forms(sentence, ev, labelled)
    for text in forms:
        # The paper's label ("Zhao et al. (Discrete Prompting for Graphs): ...") names whose
        # sentence it is, and claims nothing: the check is of what follows it. Checked whole,
        # a long label pulls a short sentence's vector off its source (support 0.61 for
        # "Extensive experiments ... validated our method"), and the line lost its label.
        label = _label_of(text, ev)
        checked = checked_as_cited(text[len(label) :], ev.n, checker)
        if checked is not None:
            return replace(checked, text=text) if label else checked
    return CheckedSentence(sentence, (ev.n,), 1.0, True, False, (sentence,), reason="quoted")


def _label_of(text: str, ev: Evidence) -> str:
    """The paper's label that opens `text` ("Li et al. (TRM): ", "Seo et al., as background:
    "), or ""."""
    who, _ = speaker(ev.hit.paper)
    labels = (f"{who}{BACKGROUND_LABEL}", f"{who}: ") if who else ()
    return next((label for label in labels if text.startswith(label)), "")


def _aside(sentence: str, ev: Evidence) -> bool:
    """Whether `sentence` is the field's state its paper sets out from, not the paper's own
    claim: background in the role model, and not in the authors' voice."""
    role = dict(paper_sentence_roles(ev.hit.paper)).get(sentence)
    return role == "background" and not in_own_voice(sentence)


def _forms(sentence: str, ev: Evidence, labelled: bool) -> list[str]:
    """The forms a sentence may be shown in, most changed first (see `shown_form`)."""
    who, plural = speaker(ev.hit.paper)
    named = standalone(sentence, who, plural)
    forms = [named.text] if named.named else []
    bare = standalone(sentence).text
    # Under the paper's label, or going on from a line that had it, the authors are "they":
    # "Guan et al.: ... demonstrate that their framework achieves ...", not "our framework".
    theirs = third_person(bare) if who else bare
    # The field's state the paper sets out from, under its label, reads as its own claim ("Seo
    # et al.: It has recently been established that ..."): the label says it is background.
    label = f"{who}{BACKGROUND_LABEL}" if _aside(sentence, ev) else f"{who}: "
    for text in dict.fromkeys((theirs, bare)):
        if who and labelled:
            forms.append(f"{label}{text}")
        forms.append(text)
    return forms
