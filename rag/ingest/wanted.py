"""Which sentence of an abstract answers a question: one fitted score per sentence.

The sentence most like a question is usually the one that asks it (the paper's aim), so ranking
by similarity alone answers "Does X improve Y?" with "We examined whether X improves Y". Each
abstract sentence has a role (`rag.ingest.roles`); a question wants, by default, what the papers
found (result, conclusion): an effect, an outcome, a comparison, a yes/no question, a claim.
Two kinds of question want something else:

- what a thing is or how it works ("What is ZS-SVD?", "What do they propose?", "How does
  deleting a client work?"): the objective and method sentences;
- why it was done ("Why ...?", "What goes wrong with ...?"): the background.

Which sentence opens a paper's line of the answer, comes first in the prompt and is shown as a
`rag cite` match is one decision, `choice_scores`: a linear score over what is measured of each
sentence (its cosine to the question, the share of the question's terms it holds and that share
weighted by how few of the abstract's sentences hold each term, its role, where it sits, whether
it is the first to name what the question names, whether it reports a finding, states a number,
speaks of the paper's own work or in the aim's voice, whether it lost its referent), each
feature once shared and once per tag of the question (what it wants, `wanted`, and its form,
`question_tags`: opening word, a yes/no question, a bare statement or keyword query, few
words). The role is one feature among others, so a finding the role model filed as method
("We show that ...") or an aim it filed as background ("We asked whether ...") is still told
by its voice. The weights (`model/sentence_choice.json`) are fitted by
`bench/answers/sentence_choice.py fit` as a softmax over each paper's candidate sentences on the
fitting parts of the seed role questions, the SciFact training claims and aim questions from
structured SciFact abstracts, and judged on their held-out parts
(`bench/results/sentence_choice.md`). The score only orders the sentences that pass the
question-relevance check, never lets one through.

A fragment ("To determine whether X.", left when a structured abstract's heading is removed) is
never an answer sentence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

import numpy as np

from rag.ingest.naming import method_name
from rag.ingest.roles import ROLES
from rag.text import ASKING_WORDS, CHAT_WORDS, content_stems, definitions, with_spelling_variants


class Want(StrEnum):
    """What a question wants from an abstract."""

    FINDING = "finding"
    DEFINITION = "definition"
    MOTIVATION = "motivation"


_MOTIVATION = re.compile(
    r"^\s*(?:so\s+)?why\b|\bmotivat\w*|\b(?:goes|go|went|going)\s+wrong\b"
    r"|\bwhat\s+(?:\w+\s+)?(?:problems?|challenges?|limitations?|gaps?|shortcomings?|drawbacks?)\b"
    r"|\b(?:problems?|limitations?)\s+(?:of|with)\b",
    re.IGNORECASE,
)
_ASKED = re.compile(
    r"\?\s*$|^\s*(?:so\s+|and\s+)?(?:what|which|how|why|who|when|where|whats|tell|explain|"
    r"describe|summari[sz]e|list)\b",
    re.IGNORECASE,
)
# A few words typed without a sentence's end ("graph neural networks", at most `SHORT_WORDS`): a
# topic, not a claim to cite (no SciFact training claim is one).
_KEYWORDS = re.compile(r"^[^.!?]*[^\s.!?]\s*$")
SHORT_WORDS = 5
# A finding asked about a method ("How does X perform?", "What is the effect of ...") stays a
# finding question.
_ASKS_FINDING = re.compile(
    r"\b(?:perform\w*|compar\w*|affect\w*|effect\w*|impact\w*|scale[sd]?|improv\w*|help\w*|"
    r"beat\w*|outperform\w*|fare\w*|accura\w*|faster|slower|better|worse|robust\w*|known|"
    r"found|find|findings?|results?|conclu\w*|outcomes?|happen\w*|gains?|cost\w*|"
    # "what does it show?", not "show me ..." nor "Show the papers on ..."
    r"(?<!^)(?:show|shows|showed|shown)(?!\s+(?:me|us)\b)|"
    r"sav(?:e|es|ed|ing))\b",
    re.IGNORECASE,
)
# A question of degree ("How well does it do?", "How fast is it?", "How robust are they?"):
# "how" before anything but a verb or "about" asks how much of something the paper found.
_DEGREE = re.compile(
    r"^\s*(?:so\s+|and\s+|but\s+)?how\s+(?!(?:is|are|was|were|do|does|did|can|could|should|"
    r"would|will|has|have|had|to|about|come|so)\b)[a-z]",
    re.IGNORECASE,
)
_DEFINITION = re.compile(
    r"^\s*(?:so\s+)?(?:what|who)(?:'s|\s+is|\s+are|\s+was|\s+were)\s+(?:an?\s+|the\s+)?\S+"
    r"(?:\s+\S+){0,3}\s*\??\s*$"  # "What is ZS-SVD?", "What are Certified Circuits?"
    r"|\bpropos\w*|\bintroduc\w*|\bwhat\s+(?:does|do|did)\b.+\bdo\s*\??\s*$"
    r"|^\s*how\s+(?:does|do|is|are|can|could)\b.+\b(?:work|works|built|constructed|computed|"
    r"trained|implemented|defined|designed|done|achieved|handled)\b"
    r"|\b(?:which|what)\s+(?:\w+\s+)?(?:methods?|approach(?:es)?|techniques?|algorithms?|"
    r"frameworks?|architectures?|mechanisms?|ideas?|components?|steps?)\b"
    r"|\bwhat\s+(?:do|does|did)\s+.+\b(?:share|use|combine|consist|contain|compute|learn)\b",
    re.IGNORECASE,
)

_FRAGMENT = re.compile(
    # "To determine whether X." stands alone; "To test X, we ...", "To address this, in this
    # paper we ..." or ", Chen et al. ..." does not.
    r"^(?:to|in\s+order\s+to)\s+[a-z]+\b"
    r"(?![^.;]*,\s*(?:(?:in|within)\s+(?:this|the\s+present|our)\s+(?:paper|work|study|article)"
    r"\s*,?\s*)?(?:we|the|this|these|it|they|our|an?|here|(?-i:[A-Z])[\w-]*)\b)",
    re.IGNORECASE,
)
# What those sentences make available, as `_AVAILABILITY` names it, and how a question asks
# whether it is: a question names both ("any code released?", "is the implementation public?"),
# unlike "LLMs for code generation" or "source-free domain adaptation".
_AVAILABLE_THINGS = "code software implementation package tool"
_AVAILABLE_HOW = "available availability released release public open github repository repo link"
# Where the code is, not what the paper found: "Our code is available at https://...", "We will
# make our code publicly available online.", "Source code is freely available at ...", "Code
# released upon publication.".
_AVAILABILITY = re.compile(
    r"^(?:(?:our|the|all|its)\s+)?(?:(?:main|full|source|complete)\s+)?"
    r"(?:code|codes|software|implementation|source\s+code|package|tool)s?"
    r"(?:\s+(?:and|&)(?:\s+[\w-]+){1,4}|\s+(?:for|of)\s+[^.,;]{1,40}?)?"
    r"(?:\s+(?:is|are|will\s+be|has\s+been|have\s+been)\s+(?:\w+\s+){0,2}?"
    r"(?:available|released|open[- ]sourced|public)\b"
    # A headline without its verb: "Code released upon publication.", "Code available at ...".
    r"|\s+(?:available|released)\s+(?:upon|at|via|under|from|online|soon)\b)"
    r"|^we\s+(?:will\s+)?(?:make|release|open[- ]source)\s+(?:our|the|all)\s+"
    r"(?:\w+\s+){0,2}?(?:code|software|implementation)",
    re.IGNORECASE,
)
_MIN_WORDS = 4
# A sentence cut in the middle of a clause, as a small model stops one: "... matches frequentist
# uncertainty and (ii).", "... the gains of." No sentence ends on a conjunction, an article or
# "of", nor on the next item of an enumeration ("Eq. (1).", "(cases 1 and 3)." still end one).
_CUT_MID_CLAUSE = re.compile(
    r"(?:\b(?:and|or|but|nor|the|of|with|whose|whereas)"
    r"|\b(?:and|or)\s+\((?:[ivx]+|\d+|[a-h])\))\s*[.!?;:,]?\s*$",
    re.IGNORECASE,
)
# What a fragment loses in rank: it comes after every sentence, yet a paper of fragments keeps one.
FRAGMENT_MALUS = 2.0


# The finding voice: a sentence reporting what was shown ("We show that ...", "Experiments
# demonstrate ...", "Our results indicate ..."), whatever role the role model gave it.
_REPORTS = re.compile(
    r"\b(?:show|shows|showed|shown|demonstrat(?:e|es|ed)|reveal(?:s|ed)?|find|finds|found|"
    r"indicat(?:e|es|ed)|confirm(?:s|ed)?|prove[sdn]?|establish(?:es|ed)?|outperform\w*|"
    r"achiev(?:e|es|ed)|yield(?:s|ed)?|reduc(?:e|es|ed)|improv(?:e|es|ed))\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d|%")
# The paper speaking of its own work ("we", "our", "this paper", "the proposed"), which a
# sentence on the field at large ("GNNs have shown remarkable capabilities ...") is not.
_OWN_WORK = re.compile(
    r"\b(?:we|our|us|this\s+(?:paper|work|study|article|letter)|here(?:in)?|the\s+proposed)\b",
    re.IGNORECASE,
)


def in_own_voice(sentence: str) -> bool:
    """Whether `sentence` speaks of the authors' own work ("we", "our", "this paper")."""
    return bool(_OWN_WORK.search(sentence))


# A sentence opening on a word whose referent it loses when quoted alone ("These results ...",
# "However, this gain ..."): one or two openers may come first.
_LOST_REFERENT = re.compile(
    r"^(?:(?:however|moreover|furthermore|finally|additionally|also|thus|therefore|then|"
    r"specifically|in\s+particular|in\s+addition|as\s+a\s+result|to\s+this\s+end),?\s+){0,2}"
    r"(?:this|these|those|such|it|they|them|its|their)\b(?!\s+(?:paper|work|study|article)\b)",
    re.IGNORECASE,
)
# The aim's voice, whatever role the sentence was given: "We asked whether ...", "This study
# examined if ...", "We sought to determine whether ...".
_AIM_VOICE = re.compile(
    r"\b(?:investigat|examin|explor|ask|stud|test|assess|evaluat|determin|address|analy[sz]|"
    r"sought|aim|compar|question)\w*\s+(?:to\s+\w+\s+)?(?:whether|if)\b",
    re.IGNORECASE,
)

_OPENERS = frozenset(
    "what which how why does do did is are can could will would should has have when where".split()  # noqa: SIM905
)
_YES_NO = frozenset("does do did is are can could will would should has have".split())  # noqa: SIM905
_SECOND = frozenset("is are was were do does did much many well".split())  # noqa: SIM905
# What kind of question it is, not what it is about (`rag.text.ASKING_WORDS`), as stems.
QUESTION_STEMS = frozenset(
    content_stems(" ".join(with_spelling_variants([*ASKING_WORDS.split(), *CHAT_WORDS.split()])))
)
WEIGHTS = Path(__file__).with_name("model") / "sentence_choice.json"


def question_terms(question: str) -> list[str]:
    """Return the stems that say what `question` is about (deduplicated, in order)."""
    stems = [s for s in content_stems(question) if s not in QUESTION_STEMS]
    return list(dict.fromkeys(stems))


def term_share(terms: Sequence[str], sentence: str) -> float:
    """Return the share of `terms` that `sentence` contains (0 when there are no terms)."""
    if not terms:
        return 0.0
    found = set(content_stems(sentence))
    return sum(t in found for t in terms) / len(terms)


def acronym_stems(texts: Sequence[str], stems: Sequence[set[str]]) -> list[set[str]]:
    """Return each sentence's stems with the other form of the acronyms its abstract defines.

    Once an abstract writes "dominant-strategy incentive compatibility (DSIC)", a sentence
    that says "DSIC" holds the words it stands for, and one that spells them out holds "DSIC",
    so a question in either form finds both.
    """
    forms = [
        (set(content_stems(acronym)), set(content_stems(" ".join(words))))
        for acronym, spelled in definitions(texts).items()
        for words in spelled
    ]
    out = []
    for held in stems:
        held = set(held)
        for short, long in forms:
            if short and long and (short <= held or long <= held):
                held |= short | long
        out.append(held)
    return out


def held_shares(
    terms: Sequence[str], stems: Sequence[set[str]], weights: Sequence[float] | None = None
) -> np.ndarray:
    """Share of `terms` each sentence holds, given each sentence's stems (`acronym_stems`);
    with `weights` (one per term), the share of their weight."""
    if not terms:
        return np.zeros(len(stems))
    w = np.ones(len(terms)) if weights is None else np.asarray(weights, dtype=float)
    if w.sum() <= 0:
        w = np.ones(len(terms))
    held = np.array([[t in s for t in terms] for s in stems], dtype=float).reshape(-1, len(terms))
    return held @ w / w.sum()


def abstract_term_shares(
    terms: Sequence[str], texts: Sequence[str], weights: Sequence[float] | None = None
) -> np.ndarray:
    """Share of `terms` (of their `weights`) each of an abstract's sentences `texts` holds, an
    acronym the abstract defines counting as the words it stands for (`acronym_stems`)."""
    stems = acronym_stems(texts, [set(content_stems(t)) for t in texts])
    return held_shares(terms, stems, weights)


def question_tags(question: str) -> list[str]:
    """Name what a question's form says about the sentence it wants: what it wants (`wanted`),
    its opening word ("q:how", "q:how_much", "q:yes_no"), a bare statement or keyword query
    ("q:statement"), few words ("q:short")."""
    words = re.findall(r"[a-z]+", question.lower().replace("'s ", " is "))
    tags = [str(wanted(question))]
    if words and words[0] in _OPENERS:
        tags.append(f"q:{words[0]}")
        if words[0] in _YES_NO:
            tags.append("q:yes_no")  # "Does ...?", "Is ...?", "Can ...?" alike
        if len(words) > 1 and words[0] in ("what", "how") and words[1] in _SECOND:
            tags.append(f"q:{words[0]}_{words[1]}")  # "what is", "how much"
    elif not question.strip().endswith("?"):
        tags.append("q:statement")
    if len(words) <= SHORT_WORDS:
        tags.append("q:short")
    return tags


def local_idf_shares(terms: Sequence[str], stems: Sequence[set[str]]) -> np.ndarray:
    """Share of the question's terms each sentence holds, each term weighted by how few of the
    abstract's sentences hold it: a word in every sentence (the paper's topic) tells none of
    them apart; a word in one sentence points at it."""
    if not terms or not stems:
        return np.zeros(len(stems))
    n = len(stems)
    weight = np.array([np.log(1 + n / (1 + sum(t in s for s in stems))) for t in terms])
    held = np.array([[t in s for t in terms] for s in stems], dtype=float)
    return held @ weight / weight.sum()


def shared_with_others(vectors: Sequence[np.ndarray | None]) -> list[np.ndarray | None]:
    """Return, per paper of an answer, each sentence's highest cosine to another paper's.

    The field's common ground ("GNNs have shown remarkable capabilities ...") reads alike in
    every paper on the field; what one paper did reads like none of the others. None for a
    paper without vectors; zeros when the answer has one paper.
    """
    out: list[np.ndarray | None] = []
    for i, own in enumerate(vectors):
        others = [v for j, v in enumerate(vectors) if j != i and v is not None and len(v)]
        if own is None:
            out.append(None)
        elif not others:
            out.append(np.zeros(len(own)))
        else:
            out.append((own @ np.vstack(others).T).max(axis=1))
    return out


def choice_features(
    question: str,
    pairs: Sequence[tuple[str, str]],
    cosines: np.ndarray,
    shared: np.ndarray | None = None,
) -> tuple[list[str], np.ndarray]:
    """Name and compute the features of every sentence of one paper for `question`.

    Args:
        question: the question or claim.
        pairs: the paper's sentences with their roles, in abstract order.
        cosines: each sentence's cosine to the question.
        shared: each sentence's highest cosine to another paper of the answer
            (`shared_with_others`; None: no other paper).

    Returns:
        The feature names and a matrix with one row per sentence, one column per name: every
        feature once shared ("cosine") and once per tag of `question_tags` ("finding:cosine").
    """
    n = len(pairs)
    if n == 0:
        return [], np.zeros((0, 0))
    texts = [s for s, _ in pairs]
    terms = question_terms(question)
    stems = acronym_stems(texts, [set(content_stems(t)) for t in texts])
    positions = np.array([relative_position(i, n) for i in range(n)])
    first = first_naming(list(held_shares(terms, stems)))
    topic = choice_terms(question, terms, texts)
    base: dict[str, np.ndarray] = {
        "cosine": np.asarray(cosines, dtype=float),
        "terms": held_shares(topic, stems),
        "terms_idf": local_idf_shares(topic, stems),
        "position": positions,
        "last": (positions >= 1.0).astype(float),
        "first": np.eye(n)[first] if first >= 0 else np.zeros(n),
        "demonstrative": np.array([bool(_LOST_REFERENT.match(t)) for t in texts], dtype=float),
        "reports": np.array([bool(_REPORTS.search(t)) for t in texts], dtype=float),
        "number": np.array([bool(_NUMBER.search(t)) for t in texts], dtype=float),
        "own_work": np.array([bool(_OWN_WORK.search(t)) for t in texts], dtype=float),
        "aim_voice": np.array([bool(_AIM_VOICE.search(t)) for t in texts], dtype=float),
        "shared": np.zeros(n) if shared is None else np.asarray(shared, dtype=float),
    }
    for role in ROLES:
        base[f"role:{role}"] = np.array([r == role for _, r in pairs], dtype=float)
    tags = question_tags(question)
    names = [*base, *(f"{t}:{k}" for t in tags for k in base)]
    columns = [*base.values(), *(v for _ in tags for v in base.values())]
    return names, np.stack(columns, axis=1)


def choice_terms(question: str, terms: Sequence[str], texts: Sequence[str]) -> list[str]:
    """The question's `terms` without the name of the method the abstract (`texts`) introduces,
    when the question names all of it, has other terms and asks for no definition: "What did
    ExPLAIND find about grokking?" asks which sentence says something of grokking, and the one
    naming ExPLAIND and grokking ("we use ExPLAIND to analyze a Transformer that exhibits
    Grokking") says no more of it than the finding does. "What is ExPLAIND?" or "How does
    deleting a client work in IDFT?" wants the sentence that introduces the name, "rotary
    position embeddings (RoPE)" names a part of "RoPE-Perturbed Self-Distillation", not it, and
    in a few bare words ("TRM trust region bounds") the name is half of what is asked.
    (`rag.answer.compose.topic_terms`, for ties and follow-ups, drops the name whenever the
    question writes it as the abstract does.)"""
    name = method_name(" ".join(texts))
    own = set(content_stems(name)) if name else set()
    rest = [t for t in terms if t not in own]
    if not own or not own <= set(terms) or not rest or wanted(question) is Want.DEFINITION:
        return list(terms)
    if not _ASKED.search(question) and _few_words(question):
        return list(terms)  # "TRM trust region bounds": in a few bare words, the name is the topic
    return rest


@lru_cache(maxsize=2)
def choice_weights(path: Path = WEIGHTS) -> Mapping[str, float]:
    """The fitted weights of `choice_features`, by name (a name not there weighs 0), read once
    per process."""
    return MappingProxyType(dict(json.loads(path.read_text(encoding="utf-8"))["weights"]))


def choice_scores(
    question: str,
    pairs: Sequence[tuple[str, str]],
    cosines: np.ndarray,
    weights: Mapping[str, float] | None = None,
    shared: np.ndarray | None = None,
) -> np.ndarray:
    """Score every sentence of one paper for `question`: the highest is the one to show.

    The fitted linear score, then `after_rules` (fragments last; no field background for a
    paper among several). Arguments as `choice_features`; `weights` replaces the fitted ones
    (the bench's comparisons).
    """
    names, x = choice_features(question, pairs, cosines, shared)
    if not names:
        return np.zeros(0)
    w = choice_weights() if weights is None else weights
    scores = x @ np.array([w.get(name, 0.0) for name in names])
    return after_rules(question, pairs, scores, shared)


def has_others(shared: np.ndarray | None) -> bool:
    """Whether an answer has papers besides this one, from this paper's sentences' likeness
    to theirs (`shared_with_others`: None or zeros when it has none)."""
    return shared is not None and bool(np.any(np.asarray(shared) != 0))


def after_rules(
    question: str,
    pairs: Sequence[tuple[str, str]],
    scores: np.ndarray,
    shared: np.ndarray | None = None,
) -> np.ndarray:
    """Apply what the fitted score does not weigh to `scores` (one per sentence of `pairs`).

    - A fragment ("To determine whether X.") comes after every sentence, by the spread of the
      scores and `FRAGMENT_MALUS` more, yet a paper of fragments keeps one.
    - Asked about several papers at once (`shared` holds the likeness to the answer's other
      papers: "Which papers are about graph neural networks?"), a paper's line is not the
      field's background ("GNNs have shown remarkable capabilities ..."), which holds every
      word of the topic and reads alike in every paper on it, unless the question asks why or
      the paper has nothing else. On the fitting parts of the labelled sets
      (bench/answers/sentence_choice.py, `bench/results/sentence_choice_rules.md`) it takes the list
      lines from 0.717 to 0.756 and leaves the seed role questions, the SciFact claims (bare
      statements, which keep their background rationales) and the aim questions as they were.
      A keyword query of a few words ("graph neural networks") is asked about several papers
      too; SciFact's claims are sentences, and none is that short.
    """
    scores = np.asarray(scores, dtype=float)
    spread = float(np.ptp(scores)) if len(scores) else 0.0
    asks = _ASKED.search(question) or (_KEYWORDS.match(question) and _few_words(question))
    if has_others(shared) and asks and wanted(question) is not Want.MOTIVATION:
        background = np.array([role == "background" for _, role in pairs])
        if not background.all():
            scores = np.where(background, scores - (spread + 1.0), scores)
            spread = float(np.ptp(scores))
    fragments = np.array([is_fragment(s, question) for s, _ in pairs])
    return np.where(fragments, scores - (spread + FRAGMENT_MALUS), scores)


def _few_words(question: str) -> bool:
    return len(re.findall(r"[a-z]+", question.lower())) <= SHORT_WORDS


def is_keyword_query(text: str) -> bool:
    """Whether `text` is a few bare words ("graph neural networks oversmoothing"): no question
    word, no sentence's end, at most `SHORT_WORDS` words, so every one of them is its topic."""
    return bool(_KEYWORDS.match(text)) and _few_words(text) and not _ASKED.search(text)


def is_question(text: str) -> bool:
    """Whether `text` asks something: it ends with a question mark or opens with a question
    word or a request ("what", "how", "tell", "list", ...), unlike "love it" or a claim."""
    return bool(_ASKED.search(text))


def wanted(question: str) -> Want:
    """Return what `question` wants from an abstract (see the module docstring).

    A statement ("Statins reduce stroke.", a claim to cite) wants the finding that bears on it.
    """
    if not _ASKED.search(question):
        return Want.FINDING
    if _MOTIVATION.search(question):
        return Want.MOTIVATION
    if _DEFINITION.search(question) and not _ASKS_FINDING.search(question):
        return Want.DEFINITION
    return Want.FINDING


# The roles of the sentences that state what each want asks for.
WANTED_ROLES = MappingProxyType(
    {
        Want.FINDING: ("result", "conclusion"),
        Want.DEFINITION: ("objective", "method"),
        Want.MOTIVATION: ("background",),
    }
)


def in_wanted_role(question: str, pairs: Sequence[tuple[str, str]]) -> list[bool]:
    """For each of a paper's sentences `pairs`, whether its role is one `question` wants
    (`WANTED_ROLES`; all when the paper has none of them). Only for a question that asks nothing
    but that ("what did they find?", "why did they do it?"): there the role is all it says, and
    those sentences come first, while a question with words of its own is ordered by the fitted
    score alone."""
    roles = WANTED_ROLES[wanted(question)]
    mask = [role in roles for _, role in pairs]
    return mask if any(mask) else [True] * len(pairs)


def names_what_it_wants(question: str) -> bool:
    """Whether `question` says what it wants ("what did they find?", "how does it work?", "why?",
    "how well does it do?"), as "Tell me more." or "the second one" does not."""
    return any(p.search(question) for p in (_ASKS_FINDING, _DEGREE, _DEFINITION, _MOTIVATION))


def relative_position(i: int, n: int) -> float:
    """Where sentence `i` of `n` sits in its abstract: 0 the first, 1 the last."""
    return i / (n - 1) if n > 1 else 0.0


def first_naming(shares: Sequence[float]) -> int:
    """Index of the first sentence holding the largest share of the question's terms (-1: none
    holds any)."""
    top = max(shares, default=0.0)
    return next(i for i, x in enumerate(shares) if x == top) if top > 0 else -1


def is_fragment(sentence: str, question: str = "") -> bool:
    """Return whether `sentence` cannot answer anything: no sentence ("To determine whether X.",
    "Cohort study.", one cut mid-clause) or where the code is ("Our code is available at ..."),
    unless `question` asks whether what such a sentence makes available is ("any code
    released?", "is the implementation public?"): then it is the answer."""
    text = sentence.strip()
    if len(sentence.split()) < _MIN_WORDS or _FRAGMENT.match(text):
        return True
    if _CUT_MID_CLAUSE.search(text):
        return True
    return is_availability(text) and not asks_if_out(question)


def is_availability(sentence: str) -> bool:
    """Whether `sentence` says where the code is ("Our code is available at ...")."""
    return bool(_AVAILABILITY.match(sentence.strip()))


def asks_if_out(question: str) -> bool:
    """Whether `question` asks if a paper's code or implementation is out ("any code
    released?", "is the implementation public?") or where it is ("where can I find the
    code?"), not about code as a topic ("where are the papers on code generation?")."""
    if _OPEN_SOURCE.search(question):  # "is it open source?", "open-sourced?"
        return True
    asked = set(content_stems(question))
    things, how = _availability_stems()
    if not asked & things:
        return False
    if asked & how:
        return True
    # "where is the code (ConPress)?": the papers a follow-up is asked of come in parentheses.
    # A tool is asked where it is used ("where are tools used?"), code where it is.
    typed = set(content_stems(question.split("(")[0]))
    if not typed & (things - _TOOL) or not only_availability(typed):
        return False
    # "where can I find the code?"; and "is there code?", "any code?", "code?", whose words are
    # the thing alone
    return bool(_WHERE.match(question)) or typed <= things - _TOOL


def asks_only_if_out(question: str) -> bool:
    """Whether `question` asks if code is out and names nothing else ("where is the code?",
    "any code released?"): after an answer, it asks it of that answer's papers."""
    return asks_if_out(question) and only_availability(set(content_stems(question)))


def only_availability(stems: set[str]) -> bool:
    """Whether `stems` are words of asking whether or where code is, and nothing else."""
    things, how = _availability_stems()
    return stems <= things | how | QUESTION_STEMS | _FETCHING_STEMS


_TOOL = frozenset(content_stems("tool tools"))
# How one gets at code: "where is the source code hosted?", "where can I download it?"
_FETCHING_STEMS = frozenset(content_stems("source hosted host download get access see look"))


_OPEN_SOURCE = re.compile(
    r"\bopen[- ]?sourc(?:e|ed|ing)\b(?![- ]+(?:models?|LLMs?|weights)\b)", re.I
)
# "where is the code?", "where can I get it?"; not "where do they use tools?"
_WHERE = re.compile(
    r"\s*(?:(?:and|so|ok|okay|but)\s*,?\s+)?where\s+(?:is|are|(?:can|could|do|would|should|"
    r"might|may)\s+(?:i|we|you|one))\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def _availability_stems() -> tuple[frozenset[str], frozenset[str]]:
    """The stems of what `_AVAILABILITY` sentences make available, and of how it is asked."""
    return frozenset(content_stems(_AVAILABLE_THINGS)), frozenset(content_stems(_AVAILABLE_HOW))
