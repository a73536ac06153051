"""Questions not in English: detect them, and translate them when a capable LLM is configured.

The bundled models read English only (all-MiniLM-L6-v2 maps Chinese characters to unknown
word pieces, so a Chinese question retrieves unrelated papers). Detection needs no model: a
question written mostly in a non-Latin script (CJK, Hangul, kana, Cyrillic, Greek, Arabic,
Hebrew, Devanagari, Thai) is in that script's language; a Latin-script question is taken for
French, German, Spanish, Italian or Portuguese when most of its words are that language's
common function words and few are English ones. Anything else is English.

Short questions escape that rule ("Was ist Label-Rauschen?", "rilevamento di anomalie nei
grafi"), and searched as English they find nothing: the answer said the collection has no paper
on them. Before an answer says so, `likely_language` asks py3langid (langid.py's model, bundled
in the package) among English and those five languages, for a question of two words or more
that are mostly no English words; it takes the question for one of them at `LIKELY_LANGUAGE` or
above. Loading the model takes about 0.7 s once per process (`rag serve` loads it at start), so
it is asked only there (`bench/answers/language_id.py`, `bench/results/language_id.md`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any

from rag import prompts
from rag.backends.base import Backend, Prompt
from rag.errors import BackendError
from rag.index.spelling import english_word

# Script (the first word of the character's Unicode name) -> language code.
_SCRIPTS = {
    "CJK": "zh",
    "HANGUL": "ko",
    "HIRAGANA": "ja",
    "KATAKANA": "ja",
    "CYRILLIC": "ru",
    "GREEK": "el",
    "ARABIC": "ar",
    "HEBREW": "he",
    "DEVANAGARI": "hi",
    "THAI": "th",
}
_FUNCTION_WORDS = {
    "fr": "le la les de des du un une est sont quels quelles quel quelle qui que pour dans sur "
    "avec sans articles papiers comment pourquoi ou et au aux ce cette ces l d qu",
    "de": "der die das und ist sind welche welcher wie warum mit für ein eine einen über zu "
    "von im den dem gibt es arbeiten",
    "es": "el la los las del un una es son cuáles qué cómo por para con sobre hay artículos y en",
    "it": "il lo la gli le dei degli un una è sono quali che come perché per con sui su ci",
    "pt": "o a os as do da dos das um uma é são quais que como por para com sobre há artigos",
}
_ENGLISH_WORDS = (
    "the a an of and is are which what how why for with on in to do does any there about"
)
_ENGLISH = set(_ENGLISH_WORDS.split())
_LATIN_WORD = re.compile(r"[^\W\d_]+")
# The elision of a capitalised name: the "D'" of "D'Angelo" ("Yuksel vs D'Angelo et al." counted
# "d" and "et" as French), not the "l'" of "l'IA".
_NAMES_APART = re.compile(r"\b[A-Z]'(?=[A-Z][a-z])")
# Said in the question's language when the answer was drawn from English abstracts.
DRAWN_FROM_ENGLISH = {
    "zh": "此回答依据英文论文摘要，检索时使用了问题的英文译文。",  # noqa: RUF001  # Chinese comma
    "ja": "この回答は英語の論文要旨に基づいており、検索には質問の英訳を使いました。",
    "ko": "이 답변은 영어 논문 초록을 바탕으로 하며, 검색에는 질문의 영어 번역을 사용했습니다.",
    "ru": "Ответ основан на англоязычных аннотациях статей; поиск выполнен по переводу вопроса.",
    "fr": "Cette réponse s'appuie sur des résumés en anglais ; la recherche a utilisé la "
    "traduction anglaise de la question.",
    "de": "Diese Antwort stützt sich auf englische Abstracts; gesucht wurde mit der englischen "
    "Übersetzung der Frage.",
    "es": "Esta respuesta se basa en resúmenes en inglés; la búsqueda usó la traducción al "
    "inglés de la pregunta.",
    "it": "Questa risposta si basa su abstract in inglese; la ricerca ha usato la traduzione "
    "inglese della domanda.",
    "pt": "Esta resposta baseia-se em resumos em inglês; a pesquisa usou a tradução inglesa da "
    "pergunta.",
}
_MAX_TRANSLATION_WORDS = 60


def _script(ch: str) -> str | None:
    name = unicodedata.name(ch, "")
    return next((s for s in _SCRIPTS if name.startswith(s)), None)


def detect_language(text: str) -> str:
    """Return the language code of `text` ("en" unless it is clearly another language)."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return "en"
    scripts = [_script(ch) for ch in letters]
    foreign = [s for s in scripts if s is not None]
    if len(foreign) >= max(2, len(letters) // 3):
        if "HIRAGANA" in foreign or "KATAKANA" in foreign:
            return "ja"  # Japanese mixes kana with CJK ideographs
        return _SCRIPTS[max(set(foreign), key=foreign.count)]
    words = [w.lower() for w in _LATIN_WORD.findall(_NAMES_APART.sub(" ", text))]
    if len(words) < 3:
        return "en"
    english = sum(w in _ENGLISH for w in words)
    hits = {lang: sum(w in vocab.split() for w in words) for lang, vocab in _FUNCTION_WORDS.items()}
    lang = max(hits, key=lambda code: hits[code])
    found = hits[lang]
    return lang if found >= 2 and found >= len(words) / 3 and found > 2 * english else "en"


# py3langid reads English names and loanwords as French or German ("Schneider", "UAV
# reconnaissance", "questionnaire design" at 0.97 or more), so it is asked only of a question of
# two words or more (acronyms aside), half of which at least no English word list holds. The
# bar and the share catch the most of the fitting part's other-language questions (37 of 40)
# while flagging none of its 1,085 English questions nor of 30,000 common English words and
# technical phrases (bench/answers/language_id.py, bench/results/language_id.md; held out: 0 of
# 518 English questions flagged, 17 of 20 others caught, the function-word rule alone 6).
LIKELY_LANGUAGE = 0.97
LEAST_UNKNOWN_SHARE = 0.5


@functools.lru_cache(maxsize=1)
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(["en", *_FUNCTION_WORDS])
    return identifier


def language_probability(text: str) -> tuple[str, float]:
    """Return py3langid's language for `text` among English and `_FUNCTION_WORDS`' languages,
    with its probability."""
    lang, p = _identifier().classify(text)
    return str(lang), float(p)


def unknown_share(text: str) -> tuple[float, int]:
    """Return the share of `text`'s words (two letters or more, acronyms aside) that the
    English word list lacks, and how many words it has."""
    words = [w for w in _LATIN_WORD.findall(text) if len(w) > 1 and not w.isupper()]
    unknown = sum(not english_word(w.lower()) for w in words)
    return (unknown / len(words) if words else 0.0), len(words)


def likely_language(
    text: str, bar: float = LIKELY_LANGUAGE, share: float = LEAST_UNKNOWN_SHARE
) -> str:
    """Return the language of `text`: `detect_language`'s, or else py3langid's when it is sure
    (`bar`) of a question of two words or more, a `share` of which are no English words; "en"
    otherwise."""
    found = detect_language(text)
    if found != "en":
        return found
    unknown, words = unknown_share(text)
    if words < 2 or unknown < share:
        return "en"
    lang, p = language_probability(text)
    return lang if p >= bar else "en"


def can_translate(backend: Backend | None) -> bool:
    """Whether `backend` may translate questions (an OpenAI-compatible model, not SmolLM2)."""
    return backend is not None and backend.name == "openai"


def translate(backend: Backend, question: str, max_tokens: int = 96) -> str | None:
    """Return `question` in English, or None when the model fails or replies with no question.

    The reply is kept only when it is one line of mostly Latin letters and not far longer than
    a question: the translation is searched and shown as such, so a chatty or failed reply
    must not become the query.
    """
    try:
        reply = "".join(
            backend.generate(
                Prompt(prompts.TRANSLATE_SYSTEM, prompts.TRANSLATE_USER.format(question=question)),
                stream=False,
                max_tokens=max_tokens,
                temperature=0.0,
            )
        )
    except BackendError:
        return None
    text = reply.strip().strip('"').strip()
    if not text or "\n" in text or len(text.split()) > _MAX_TRANSLATION_WORDS:
        return None
    return text if detect_language(text) == "en" else None


def drawn_from_english(lang: str) -> str:
    """Return the line, in `lang`, saying the answer comes from English abstracts."""
    return DRAWN_FROM_ENGLISH.get(lang, prompts.DRAWN_FROM_ENGLISH)
