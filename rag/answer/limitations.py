"""Questions on what a paper's own method cannot do, and the sentences that say it.

"what are the limitations of certified circuits?" was answered with "On ImageNet and OOD
datasets, certified circuits achieve up to 91% higher accuracy ...", and "what are the weaknesses
of ConPress?" with the sentence that introduces ConPress: supported by the paper, about its
words, and no answer. An abstract rarely admits a limitation of its own method; what it does
state is the failure of the approaches it sets out from ("existing circuit discovery methods
are brittle"), which answers a question on those approaches, not on the paper's method. So:

- a question asks about limitations (`asks_limitations`) when it names a limitation, weakness,
  drawback, shortcoming, downside, caveat or failure, or asks where or when something fails or
  falls short;
- asked of the method a paper introduces (the question names it: `own`), a sentence of that
  paper states one (`states_limitation`) when it says what fails, cannot, is limited, costly,
  ... (`_LIMITING`), is not background, and does not say it of others ("where baselines
  degrade", "existing methods"); asked of anything else, every sentence may answer, as before.

When no sentence of the answer's papers states one, the answer says so first
(`rag.prompts.NOT_STATED_ONE`) and quotes what the abstract does say, as for a dataset or a
number an abstract does not state (`rag.answer.compose`).
"""

from __future__ import annotations

import re

LIMITATIONS = re.compile(
    r"\b(?:limitations?|limits|weakness(?:es)?|weak\s+(?:points?|spots?)|drawbacks?|"
    r"shortcomings?|downsides?|disadvantages?|caveats?|cons|pitfalls?|failure\s+(?:modes?|cases?)"
    r")\b"
    r"|\b(?:where|when)\s+(?:does|do|did|would|might|could)\b[^?]*\b(?:fail|fall\s+short|"
    r"break|struggle)",
    re.IGNORECASE,
)
_LIMITING = re.compile(
    r"\b(?:limitations?|limited|fail(?:s|ed|ing|ures?)?|cannot|can't|unable|brittle|vacuous|"
    r"insufficient|struggles?|poorly|degrades?|drawbacks?|weakness(?:es)?|shortcomings?|"
    r"costly|expensive|prohibitive|bottlenecks?|trade-?offs?|at\s+the\s+cost\s+of|vulnerab\w+|"
    r"suffers?|sensitive\s+to|violations?|deviations?|approximate(?:ly)?|"
    r"despite\s+the\s+\w+\s+nature|only\s+(?:when|if|under))\b",
    re.IGNORECASE,
)
# Said of other work, not of the paper's method: "remain reliable where baselines degrade".
_OTHERS = re.compile(
    r"\b(?:baselines?|existing|prior|previous|conventional|standard|traditional|classical|"
    r"other\s+(?:methods?|approaches)|competing|alternatives?)\b",
    re.IGNORECASE,
)


def asks_limitations(question: str) -> bool:
    """Whether `question` asks what something cannot do (see module)."""
    return bool(LIMITATIONS.search(question))


def states_limitation(sentence: str, role: str | None = None, own: bool = False) -> bool:
    """Whether `sentence` (of `role`) answers a question on limitations: asked of the paper's
    own method (`own`), only one stating a limitation of it does (see module)."""
    if not own:
        return True
    if role == "background" or _OTHERS.search(sentence):
        return False
    return bool(_LIMITING.search(sentence))


def names_method(question: str, method: str | None) -> bool:
    """Whether `question` names `method`, the method a paper's abstract introduces
    (`rag.ingest.naming.method_name`): a question on limitations is then one of its own."""
    return bool(method) and re.search(rf"\b{re.escape(method or '')}\b", question, re.I) is not None
