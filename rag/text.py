"""Plain-text helpers for abstracts: readable markup, sentences, and matching keys."""

# Unicode punctuation and look-alike letters (CJK, dashes, quotes) are what this module handles.
# ruff: noqa: RUF001, RUF002

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable

# Private-use characters mark text that later steps must not touch (URLs, converted math).
_HOLD = "\ue000"
_DROPPED = "\ue001"
_ESCAPES = {"\\$": "\ue002", "\\_": "\ue003", "\\{": "\ue004", "\\}": "\ue005"}
_UNESCAPE: dict[str, str | int | None] = {
    "\ue002": "$",
    "\ue003": "_",
    "\ue004": "{",
    "\ue005": "}",
}

_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"'{}`$*\\]+")
_HREF = re.compile(r"\\href\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_URL_CMD = re.compile(r"\\url\s*\{([^{}]*)\}")
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\\((.+?)\\\)", re.DOTALL)
# Pandoc's rule: no space just inside the dollars and no digit right after, so "$5 and $10" stays.
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?![\s$])([^$]+?)(?<!\s)\$(?![\d$])")
# \"u, \"{u} and {\"u} (BibTeX's form); the brace before the backslash is eaten only with its pair.
_ACCENT = re.compile(
    r"(\{)?\\(['`\"^~=.])(?:\{([A-Za-z])\}|([A-Za-z]))(?(1)\})|\\([uvHck])\{([A-Za-z])\}"
)
_ACCENT_MARKS = {
    "'": "\u0301", "`": "\u0300", '"': "\u0308", "^": "\u0302", "~": "\u0303", "=": "\u0304",
    ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328",
}  # fmt: skip
_CMD_ARG = re.compile(r"\\([A-Za-z]+)\*?\s*(?:\[[^\]]*\])?\{([^{}]*)\}")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SCRIPT = re.compile(r"([_^])\{([^{}]*)\}")
_CMD = re.compile(r"\\([A-Za-z]+)")
_DROP_CMDS = {"cite", "citep", "citet", "ref", "eqref", "label", "footnote", "vspace", "hspace"}
_SYMBOLS = {
    "times": "×", "cdot": "·", "neq": "≠", "ne": "≠", "leq": "≤", "le": "≤", "geq": "≥",
    "ge": "≥", "approx": "≈", "sim": "~", "infty": "∞", "pm": "±", "to": "→",
    "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒", "in": "∈", "ll": "≪", "gg": "≫",
    "ldots": "…", "cdots": "…", "dots": "…", "propto": "∝", "mid": "|", "circ": "∘",
    "partial": "∂", "nabla": "∇", "forall": "∀", "exists": "∃", "textbackslash": "\\",
    "left": "", "right": "", "big": "", "Big": "", "bigg": "", "Bigg": "", "displaystyle": "",
}  # fmt: skip


@functools.cache
def latex_symbol(name: str) -> str:
    """The character LaTeX command `name` stands for: `_SYMBOLS`, else, for a text-mode symbol
    (`\\textpm` ±, `\\textdegree` °, `\\textmu` µ), pylatexenc's table of them. Any other
    command keeps its name as a word, as it always did (`\\modelname`: "modelname"; math's
    `\\kappa`: "kappa", so that an abstract read before reads the same, and keeps its id)."""
    if name in _SYMBOLS:
        return _SYMBOLS[name]
    if not name.startswith("text"):
        return name
    from pylatexenc.latex2text import get_default_latex_context_db  # only for a rare command

    spec = get_default_latex_context_db().get_macro_spec(name)
    shown = getattr(spec, "simplify_repl", None) if spec is not None else None
    if isinstance(shown, str) and 0 < len(shown) <= 2 and not re.search(r"[\w%<>\s]", shown, re.A):
        return shown
    return name


_MARKDOWN: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"``(.+?)''"), "“\\1”"),
    (re.compile(r"`([^`\n]+)`"), r"\1"),
    (re.compile(r"\*\*(?!\s)(.+?)(?<!\s)\*\*"), r"\1"),
    (re.compile(r"(?<!\w)__(?!\s)(.+?)(?<!\s)__(?!\w)"), r"\1"),
    (re.compile(r"(?<![\w*])\*(?![\s*])(.+?)(?<![\s*])\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<![\w_])_(?![\s_])(.+?)(?<![\s_])_(?![\w_])"), r"\1"),
]
_TIE = re.compile(r"(?<=[\w.,;:)\]])~(?=[\w\\(\[$])")
_DASHES = [
    (re.compile(r"(?<=\w)---(?=\w)|(?<=\s)---(?=\s)"), "—"),
    (re.compile(r"(?<=\w)--(?=\w)|(?<=\s)--(?=\s)"), "–"),
]


def clean_markup(text: str) -> str:
    """Turn LaTeX and Markdown markup in an abstract into readable plain text.

    Commands that format a word keep their argument (`\\textbf{CalM}` → `CalM`), Markdown
    emphasis and code marks are removed, escapes become their character, inline math loses
    its dollars and backslashes (`$\\pi_{\\text{roll}}$` → `pi_roll`), `--`/`---` become
    dashes and whitespace is collapsed. URLs and non-markup Unicode are left as they are.

    Args:
        text: an abstract or title as the source gave it.

    Returns:
        The plain text, on one line.
    """
    held: list[str] = []

    def hold(piece: str) -> str:
        held.append(piece)
        return f"{_HOLD}{len(held) - 1}{_HOLD}"

    for escape, mark in _ESCAPES.items():
        text = text.replace(escape, mark)
    text = re.sub(r"\\([%&#])", r"\1", text)
    text = re.sub(r"\\\\|\\[ ,;:]", " ", text).replace("\\!", "")
    text = _HREF.sub(r"\2", text)
    text = _URL_CMD.sub(r"\1", text)
    text = _URL.sub(lambda m: hold(m.group(0)), text)
    text = _TIE.sub(" ", text)
    text = _DISPLAY_MATH.sub(lambda m: hold(_math(m.group(m.lastindex or 1))), text)
    text = _INLINE_MATH.sub(lambda m: hold(_math(m.group(1))), text)
    text = _ACCENT.sub(_accent, text)
    text = _innermost(text, lambda s: _CMD_ARG.sub(_text_command, s))
    text = re.sub(r"(?<![\w}])\{([A-Za-z][\w\-]*)\}", r"\1", text).replace("{}", "")
    text = _CMD.sub(lambda m: latex_symbol(m.group(1)), text)
    for pattern, repl in _MARKDOWN:
        text = pattern.sub(repl, text)
    for pattern, repl in _DASHES:
        text = pattern.sub(repl, text)
    text = re.sub(r"\s*" + _DROPPED, "", text)
    text = re.sub(f"{_HOLD}(\\d+){_HOLD}", lambda m: held[int(m.group(1))], text)
    text = text.translate(str.maketrans(_UNESCAPE))
    return " ".join(text.split())


def _innermost(text: str, step: Callable[[str], str]) -> str:
    """Apply `step` until nothing changes, so nested braces resolve from the inside out."""
    for _ in range(20):
        new = step(text)
        if new == text:
            break
        text = new
    return text


def _accent(match: re.Match[str]) -> str:
    if match.group(2):
        mark, letter = match.group(2), match.group(3) or match.group(4)
    else:
        mark, letter = match.group(5, 6)
    return unicodedata.normalize("NFC", letter + _ACCENT_MARKS[mark])


def _text_command(match: re.Match[str]) -> str:
    name, arg = match.group(1, 2)
    if name in _DROP_CMDS:
        return _DROPPED
    return arg or latex_symbol(name)  # `\LaTeX{}` is the command itself, not an argument


def _math(expr: str) -> str:
    """Render a TeX math expression as readable text: `O(T^{3/2})` → `O(T^(3/2))`."""

    def group(arg: str) -> str:
        arg = arg.strip()
        return arg if re.fullmatch(r"[\w.]+|\\[A-Za-z]+", arg) else f"({arg})"

    def step(s: str) -> str:
        s = _FRAC.sub(lambda m: f"{group(m.group(1))}/{group(m.group(2))}", s)
        s = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"sqrt(\1)", s)
        s = _SCRIPT.sub(lambda m: m.group(1) + group(m.group(2)), s)
        return _CMD_ARG.sub(r"\2", s)

    expr = _innermost(expr.replace("~", " "), step)
    expr = _CMD.sub(lambda m: latex_symbol(m.group(1)), expr)
    return " ".join(expr.replace("{", "").replace("}", "").split())


# Words whose final period does not end a sentence (compared case-insensitively).
_ABBREVIATIONS = {
    "e.g.", "i.e.", "al.", "vs.", "cf.", "fig.", "figs.", "eq.", "eqs.", "sec.", "tab.",
    "ref.", "refs.", "resp.", "approx.", "avg.", "no.", "nos.", "vol.", "pp.", "ch.", "dr.",
    "mr.", "mrs.", "ms.", "prof.", "st.", "viz.", "w.r.t.", "ca.", "esp.",
}  # fmt: skip
_INITIALS = re.compile(r"(?:[A-Z]\.)+|(?:[a-z]\.){2,}")
# A stop may carry a journal's reference numbers ("inducing ovulation.1 It is", "reported.2 3 A
# recent study"), after a word and before the next sentence's capital.
_END = re.compile(
    r"[.!?]+[\"'”’)\]]*(?=\s)|[。！？]+[”’」』）)]*"
    r"|(?<=[a-z)])\.\d{1,3}(?:[ ,–-]\d{1,3})*(?=\s+[A-Z])"
)
_OPENERS = "\"'“‘([{"
_SPACE = re.compile(r"\s*")
_WORD_WINDOW = 64


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences, keeping their final punctuation.

    A sentence ends at `.`, `!` or `?` followed by whitespace and an uppercase letter, digit,
    opening quote or bracket, or a CJK character; and at `。`, `！`, `？` always. A period
    after an abbreviation ("e.g.", "et al.", "Fig.") or initials ("U.S.") is not an end.

    Args:
        text: a paragraph, such as an abstract.

    Returns:
        The sentences, stripped, without empty ones.
    """
    sentences: list[str] = []
    start = 0
    for match in _END.finditer(text):
        end = match.end()
        if match.group(0)[0] in ".!?" and not _is_boundary(text, match.start(), end):
            continue
        sentences.append(text[start:end])
        start = end
    sentences.append(text[start:])
    return [s.strip() for s in sentences if s.strip()]


def _is_boundary(text: str, stop: int, end: int) -> bool:
    # Look only near the stop: copying the rest or splitting the start of the text at each
    # candidate made splitting quadratic (36 ms for a 20,000-character abstract, now ~linear).
    at = _SPACE.match(text, end).end()  # type: ignore[union-attr]  # \s* always matches
    rest = text[at : at + 2]
    if not rest:
        return False
    nxt = rest[0]
    if nxt in _OPENERS:
        nxt = rest[1:2] or nxt
    starts_sentence = (
        nxt.isupper() or nxt.isdigit() or nxt in _OPENERS or unicodedata.category(nxt) == "Lo"
    )
    if not starts_sentence or text[stop] != ".":
        return starts_sentence
    # The word before the stop; abbreviations and initials are far shorter than the window.
    word = text[max(0, end - _WORD_WINDOW) : end].split()[-1].lstrip(_OPENERS).rstrip("\"'”’)]")
    return word.casefold() not in _ABBREVIATIONS and not _INITIALS.fullmatch(word)


# Letters that NFKD does not decompose into an ASCII base letter plus marks.
_FOLD_MAP: dict[str, str | int | None] = {
    "ı": "i", "ø": "o", "Ø": "o", "ß": "ss", "ẞ": "ss", "ł": "l", "Ł": "l", "đ": "d", "Đ": "d",
    "ð": "d", "Ð": "d", "þ": "th", "Þ": "th", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe",
}  # fmt: skip
_FOLD_EXTRA = str.maketrans(_FOLD_MAP)


def fold(text: str) -> str:
    """Return a case- and accent-insensitive form of `text` for matching.

    `fold("Oğuz Yüksel")` is `"oguz yuksel"`, `fold("Devriş İşler")` is `"devris isler"`.

    Args:
        text: any text.

    Returns:
        The text decomposed (NFKD), without combining marks, case-folded.
    """
    if text.isascii():  # the same result, without decomposing: most names and questions
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD_EXTRA))
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return bare.casefold().translate(_FOLD_EXTRA)


# ---------------------------------------------------------------------------------------------
# Content words
# ---------------------------------------------------------------------------------------------

# A word: letters first, inner hyphens and apostrophes kept ("long-context", "model's").
CONTENT_WORD = re.compile(r"[^\W\d_][\w]*(?:[-'][\w]+)*")
_STOPWORD_TEXT = """
    a about above across after again against all also although am an and another any are
    as at be because been before being below between both but by can could did do does doing
    down during each either et al etc few for from further had has have having he her here
    hers him his how however i if in into is it its itself just may might more most much must
    my neither no nor not of off on once only or other our ours out over own per same she
    less least fewer fewest
    should so some such than that the their theirs them then there these they this those
    though through thus to too under until up upon us very via was we were what when where
    which while who whom whose why will with within without would yet you your paper papers
    method methods approach approaches work authors study propose proposes proposed show
    shows use uses used using based new novel vs versus"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
# Numbers written as words: a quantity a sentence states ("five benchmarks"), never a topic
# ("explain induction heads like I'm five" named none).
NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50,
}  # fmt: skip
# Words of conversation, not of content ("ok, thanks, anything on auctions?"): left out of a
# question's terms by the abstention (`rag/answer/abstention.py`) and the relevance check alike.
CHAT_WORDS = "ok okay hmm thanks thank hi hello hey yes yeah cool great sure so well"
# Words that say what kind of question it is, not what it is about ("summarize the findings of
# Teng et al.", "what's known about ..."): the sentence choice leaves their stems out of what a
# question asks (`rag/ingest/wanted.py`), and the abstention these words as typed out of its
# terms (`rag/answer/abstention.py`), with more of its own.
ASKING_WORDS = """
    which what whats how why when who whom where is are do does did can could should would will
    there any anything some tell me say says said known trick about deal deals dealing papers
    paper work works study studies studied research researcher researchers article articles
    find found findings result results help helps kind kinds way ways give gives
    conclude concludes concluded conclusion conclusions outcome outcomes
    mean means thing things lot handle handled make made recent recently current currently
    approach approaches method methods propose proposed main idea ideas
"""


@functools.lru_cache(maxsize=1)
def _stemmer():  # type: ignore[no-untyped-def]
    import Stemmer  # PyStemmer: the stemmer BM25 uses too

    return Stemmer.Stemmer("english")


def content_stems(text: str) -> list[str]:
    """Return the stems of the content words of `text` (no stop words, 3+ letters)."""
    words = [w.lower() for w in CONTENT_WORD.findall(singular_acronyms(text))]
    pieces = [p for w in words for p in re.split(r"[-']", w)]
    kept = [p for p in pieces if len(p) > 2 and p not in STOPWORDS and p.isalpha()]
    return list(_stemmer().stemWords(kept)) if kept else []


# ---------------------------------------------------------------------------------------------
# Acronyms an abstract defines
# ---------------------------------------------------------------------------------------------
# A researcher types "LLMs", "GNNs" or "PDEs"; an abstract may spell the words out and never use
# the acronym again, or use it in the singular: "large language models (LLMs)" makes LLM mean
# those words. The abstention's term coverage (`rag/answer/abstention.py`) counts such a paper
# as holding the acronym, and the sentence choice (`rag/ingest/wanted.py`) such a sentence.

# An acronym in parentheses, where a definition ends.
_IN_PARENTHESES = r"\(\s*([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)\s*\)"
# Up to eight words, then the acronym in parentheses: "graph neural networks (GNNs)".
_DEFINITION = re.compile(r"((?:[A-Za-z][\w'-]*\s+){1,8})" + _IN_PARENTHESES)
# Where `_DEFINITION` can end, and how far before it its eight words can start.
_PARENTHESISED = re.compile(_IN_PARENTHESES)
_LOOK_BACK = 400
_DEFINITION_ENDING = re.compile(_DEFINITION.pattern + r"\Z")
_WORD_CHAR = re.compile(r"[\w'\s-]")  # in a word, or in the spaces after one
_IN_WORD = re.compile(r"[\w'-]")
_SMALL = frozenset(["of", "for", "and", "the", "a", "an", "in", "on", "to", "with", "via", "by"])


# An acronym's plural: two capitals or more, then a lower-case "s" ("LLMs", "GNNs", "GPUs",
# "iPSCs", "LoRAs"). The English stemmer cannot tell it from a word: it keeps "gnns" and "gpus"
# apart from "gnn" and "gpu", so a query saying "GNN" found no paper saying "GNNs".
_ACRONYM_PLURAL = re.compile(r"\b([A-Za-z]*[A-Z][A-Za-z0-9]*[A-Z][0-9]*)s\b")


def singular_acronyms(text: str) -> str:
    """Return `text` with each acronym's plural in the singular ("GNNs" as "GNN")."""
    return _ACRONYM_PLURAL.sub(r"\1", text)


def singular(acronym: str) -> str:
    """Return "LLM" for "LLMs" (an acronym's plural is a lower-case s after capitals)."""
    if len(acronym) > 2 and acronym.endswith("s") and acronym[-2].isupper():
        return acronym[:-1]
    return acronym


def _spelled_out(words: list[str], acronym: str) -> list[str] | None:
    """Return the last words whose initials spell `acronym`'s capitals (small words skipped)."""
    letters = [c.lower() for c in acronym if c.isupper()]
    chosen: list[str] = []
    i = len(letters) - 1
    for word in reversed(words):
        if i < 0:
            break
        parts = [p for p in word.split("-") if p]
        initials = [p[0].lower() for p in parts]
        # "physics-informed" may stand for one letter (P) or two (PI).
        if len(initials) > 1 and initials == letters[i - len(initials) + 1 : i + 1]:
            chosen.insert(0, word)
            i -= len(initials)
        elif initials[0] == letters[i]:
            chosen.insert(0, word)
            i -= 1
        elif word.lower() in _SMALL and chosen:
            chosen.insert(0, word)
        else:
            return None
    return chosen if i < 0 else None


def definitions(texts: Iterable[str]) -> dict[str, set[tuple[str, ...]]]:
    """Return each defined acronym (singular, lower case) with the word lists it stands for.

    `_DEFINITION` is matched only where an acronym stands in parentheses, on the words before
    it: run over a whole abstract it tried every position, five seconds for SciFact's 5,183.
    """
    found: dict[str, set[tuple[str, ...]]] = {}
    for text in texts:
        after = 0  # where the last definition ended: as `finditer`, none overlaps it
        for paren in _PARENTHESISED.finditer(text):
            start = max(after, paren.start() - _LOOK_BACK)
            match = _DEFINITION_ENDING.search(text, start, paren.end())
            if start > after and _WORD_CHAR.match(text, start - 1):
                # The window cut a word (or a run of spaces after one) that the words may begin
                # with: read from the last definition on, as `finditer` would.
                first = match.start() if match is not None else paren.start()
                if not text[start:first].strip() or _IN_WORD.match(text, first - 1):
                    match = _DEFINITION_ENDING.search(text, after, paren.end())
            if match is None:
                continue
            after = match.end()
            acronym = singular(match.group(2))
            words = _spelled_out(match.group(1).split(), acronym)
            if words:
                key = acronym.lower()
                found.setdefault(key, set()).add(tuple(w.lower() for w in words))
    return found


# ---------------------------------------------------------------------------------------------
# British and American spelling
# ---------------------------------------------------------------------------------------------
# British and American spellings of one word: the query's spelling, read as the collection's.
# Each correspondence: what must come before, one ending, the other, what may follow (a regex;
# "?" after it when nothing need follow). Read both ways.
_CORRESPONDENCES = (
    (r"\w{3}", "is", "iz", "(e|es|ed|er|ers|ing|ation|ations|ational|able)"),
    (r"\w", "ys", "yz", "(e|es|ed|er|ers|ing)"),
    (r"\w{2}", "our", "or", "(s|ed|ing|al|ally|hood|hoods|ite|ites|able|er|ers)?"),
    (r"\w{2}", "tre", "ter", "(s)?"),
    (r"\w{2}", "tr", "ter", "(ed|ing)"),  # "centred", "centring"
    (r"\w{3}", "ogue", "og", "(s)?"),
    # "labelled", "modelling", "signalling"; not "filled" / "filed"
    (r"[^aeiou][ae]", "ll", "l", "(ed|ing|er|ers)"),
    (r"\w{2}", "ence", "ense", "(s)?"),
)
_VARIANTS = tuple(
    (re.compile(rf"(?<={before}){one}{after}$"), rf"{other}\1")
    for before, a, b, after in _CORRESPONDENCES
    for one, other in ((a, b), (b, a))
)
# "anaemia", "oestrogen", "foetal" for "anemia", "estrogen", "fetal": only in words this long
# ("poets" is no "pets", "being" no "boeing").
_DIGRAPH_LENGTH = 6


def spelling_variants(word: str) -> set[str]:
    """The other spellings of `word` across British and American English ("optimisation" and
    "optimization", "behaviour" and "behavior", "labelled" and "labeled", "tumour" and "tumor",
    "oestrogen" and "estrogen"): each correspondence once, wherever it applies."""
    found = _ending_variants(word)
    if len(word) >= _DIGRAPH_LENGTH:
        found.add(re.sub(r"(?:ae|oe)(?=[^aeiou\W]\w)", "e", word, count=1))
        # the British "ae" or "oe" may stand for any "e" before a consonant
        found |= {
            word[:i] + vowel + word[i:]
            for i, c in enumerate(word)
            if c == "e"
            and i < len(word) - 2
            and word[i + 1] not in "aeiou"
            and (i == 0 or word[i - 1] not in "aeiou")
            for vowel in "ao"
        }
    return found - {word}


def _ending_variants(word: str) -> set[str]:
    """`word` with each of its endings in the other spelling (`_CORRESPONDENCES`)."""
    return {pattern.sub(repl, word, count=1) for pattern, repl in _VARIANTS}


def with_spelling_variants(words: Iterable[str]) -> frozenset[str]:
    """`words` and their other spellings by their endings: a word list written in one
    ("summarize") holds the other ("summarise") too."""
    return frozenset(v for w in words for v in (w, *_ending_variants(w)))


# How a question is asked, not what it is about, in either spelling ("summarise"): the words
# of `ASKING_WORDS` and `CHAT_WORDS`, and those that ask of the collection or say how to pick
# ("list", "recommend", "overview", "the best"). The abstention leaves them out of a question's
# terms; a slip of the keyboard in one ("discus") is read as the word (`rag.index.spelling`).
FRAME_WORDS = with_spelling_variants(
    """
    something know show shows finds give list collection literature new novel look looking
    topic topics question questions please sort sorts type types exist exists existing get got
    like tricks gist overview summary summarize point insight insights now different another
    next switch switching change subject instead also else wondering curious describe explain
    discuss discusses discussed argue argues argued suggest suggests suggested believe believes
    mention mentions mentioned mentioning best good better top popular favourite favorite
    recommend recommended interesting many proposes done
    """.split()  # noqa: SIM905  # a word list reads better as text
    + ASKING_WORDS.split()
    + CHAT_WORDS.split()
    # Indefinite pronouns and adverbs, a closed class the stop lists leave out ("is reward
    # hacking discussed anywhere?" said no paper uses "anywhere"), and the preposition "around".
    + """anywhere somewhere everywhere nowhere elsewhere anyone someone everyone anybody
    somebody everybody everything nothing anyhow anyway somehow around others""".split()  # noqa: SIM905
)


@functools.cache
def parts_of_speech(word: str) -> frozenset[str]:
    """The parts of speech lemminflect's English dictionary gives `word` (lower-cased): "VERB",
    "NOUN", "AUX", ...; none for a word it lacks ("bot", "dataset")."""
    from lemminflect import getAllLemmas

    return frozenset(getAllLemmas(word.lower()))
