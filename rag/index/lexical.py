"""The BM25 side of the hybrid index (bm25s), persisted beside the Chroma collection.

LlamaIndex's docstore stays empty when vectors live in Chroma, so this index is kept by us: it is
rebuilt from the paper collection whenever its fingerprint (the set of paper ids and the index
format) is stale.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import re
import sys
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rag.index.acronyms import Expander, defined
from rag.text import STOPWORDS, singular_acronyms

if TYPE_CHECKING:
    from rag.records import Paper

log = logging.getLogger(__name__)


# A word typed as a name: a capital after its first letter ("GPT", "LLaMA") or after a word
# ("use Qwen"), not a sentence's first word.
_NAME = re.compile(r"(?<=\w\s)[A-Z][A-Za-z]{2,}\b|\b[A-Za-z][a-z]*[A-Z][A-Za-z]*\b")
# A token that is a name with a version glued on ("qwen2", "gpt4", "ctla4"): the name, digits.
_VERSIONED = re.compile(r"([a-z]{3,})\d[a-z0-9]*")
# Part of every fingerprint: bump it when the tokenization or the indexed text changes, so that
# an index saved by an older version is rebuilt instead of being trusted.
# 2: area and authors indexed too; 3: acronym plurals read as singular; 4: a defined acronym's
# words spelled out read as the acronym too (rag/index/acronyms.py); 5: not an acronym whose
# digits its words lack, nor one the texts use as a plain word, nor one a text names as "GWAS"
FORMAT = "bm25s-5"
FAMILY_LETTERS = 4  # the shortest stem whose family `BM25Index.family` looks for


def paper_text(paper: Paper) -> str:
    """Return the text BM25 indexes for a paper: title, abstract, research area and authors.

    Area and authors are there so that a query naming a field or a person finds its papers.
    """
    parts = [paper.title, paper.abstract, paper.area, ", ".join(paper.authors)]
    return ". ".join(p for p in parts if p)


@functools.cache
def stop_words() -> frozenset[str]:
    """Return the words BM25 leaves out (bm25s' English list) and `rag.text.STOPWORDS`, which
    adds what that list lacks ("what", "do", "which")."""
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN) | STOPWORDS


def fingerprint(ids: Collection[str]) -> str:
    """Return a digest of a set of paper ids (order does not matter) and of the index format."""
    text = "\n".join([FORMAT, *sorted(ids)])
    return hashlib.sha256(text.encode()).hexdigest()


def _bm25s():  # type: ignore[no-untyped-def]
    """Return the `bm25s` module, imported without scipy when nothing loaded scipy yet.

    bm25s imports `scipy.sparse` (0.18 s, a fifth of a cold `rag search`) only to offer it as
    one way to build an index; loading, scoring and its own numpy builder need numpy alone, and
    give the same scores (all 5,183 SciFact abstracts x 200 queries: equal to the last bit).
    With scipy hidden while it is imported, bm25s takes its numpy path (`SCIPY_AVAILABLE`).
    """
    if "bm25s" in sys.modules:
        return sys.modules["bm25s"]
    hide = "scipy" not in sys.modules
    if hide:
        sys.modules["scipy"] = None  # type: ignore[assignment]  # "import scipy" now fails
    try:
        import bm25s
    finally:
        if hide and sys.modules.get("scipy", 0) is None:
            del sys.modules["scipy"]
    return bm25s


def _stemmer():  # type: ignore[no-untyped-def]
    import Stemmer

    return Stemmer.Stemmer("english")


class BM25Index:
    """BM25 over one text per paper; `search` returns (paper_id, score), best first."""

    def __init__(self, ids: Sequence[str], model: object | None) -> None:
        self.ids = list(ids)
        self._model = model
        self._stem = _stemmer()
        self.fingerprint = fingerprint(self.ids)
        self._positions = {pid: i for i, pid in enumerate(self.ids)}
        self._version_index: dict[str, list[str]] | None = None  # see `versions`

    @classmethod
    def build(cls, ids: Sequence[str], texts: Sequence[str]) -> BM25Index:
        """Index `texts` (one per id), each with the defined acronyms it spells out."""
        bm25s = _bm25s()
        if not ids:
            return cls([], None)
        expander = Expander(defined(texts))
        tokens = bm25s.tokenize(
            [singular_acronyms(expander.expand(t)) for t in texts],
            stopwords="en",
            stemmer=_stemmer(),
            show_progress=False,
        )
        model = bm25s.BM25()
        model.index(tokens, show_progress=False)
        return cls(ids, model)

    def save(self, folder: Path) -> None:
        """Write the index to `folder` (replacing what was there)."""
        folder.mkdir(parents=True, exist_ok=True)
        if self._model is not None:
            self._model.save(str(folder))  # type: ignore[attr-defined]
        tmp = folder / "ids.json.tmp"
        tmp.write_text(json.dumps({"fingerprint": self.fingerprint, "ids": self.ids}))
        tmp.replace(folder / "ids.json")  # written last and atomically: marks the save complete

    @classmethod
    def load(cls, folder: Path) -> BM25Index | None:
        """Return the index saved in `folder`, or None when there is none or it is unreadable."""
        bm25s = _bm25s()
        meta_file = folder / "ids.json"
        if not meta_file.exists():
            return None
        try:
            meta = json.loads(meta_file.read_text())
            model = bm25s.BM25.load(str(folder)) if meta["ids"] else None
        except Exception as exc:  # a half-written or foreign folder: rebuild instead
            log.warning("BM25 index at %s is unreadable (%s); it will be rebuilt", folder, exc)
            return None
        loaded = cls(meta["ids"], model)
        # As saved, so that an index of an older FORMAT reads as stale and is rebuilt.
        loaded.fingerprint = str(meta.get("fingerprint", ""))
        return loaded

    def position(self, paper_id: str) -> int | None:
        """Return the row of `paper_id` in `scores`, or None when it is not indexed."""
        return self._positions.get(paper_id)

    def scores(self, query: str, allowed: Collection[str] | None = None) -> np.ndarray:
        """Return the BM25 score of every paper for `query` (rows as in `ids`; 0 when barred)."""
        bm25s = _bm25s()
        empty = np.zeros(len(self.ids), dtype=np.float32)
        if self._model is None:
            return empty
        q = bm25s.tokenize(
            [singular_acronyms(query)],
            stopwords="en",
            stemmer=self._stem,
            return_ids=False,
            show_progress=False,
        )
        vocab = self._model.vocab_dict  # type: ignore[attr-defined]
        terms = [t for t in map(self._known, q[0]) if t in vocab]
        names = {w.lower() for w in _NAME.findall(query)}
        terms += [v for t in q[0] if t in names for v in self.versions(t) if v not in terms]
        if not terms:
            return empty
        scores = np.asarray(self._model.get_scores(terms), dtype=np.float32)  # type: ignore[attr-defined]
        if allowed is not None:
            rows = [i for pid in allowed if (i := self._positions.get(pid)) is not None]
            mask = np.zeros(len(self.ids), dtype=bool)
            mask[rows] = True
            scores = np.where(mask, scores, 0.0)
        return scores

    def stem_scores(self, stems: Collection[str]) -> np.ndarray:
        """Return every paper's BM25 score for the indexed `stems` alone, as `scores` adds them
        up for a query that holds them (0 for stems not in the vocabulary)."""
        if self._model is None:
            return np.zeros(len(self.ids), dtype=np.float32)
        vocab = self._model.vocab_dict  # type: ignore[attr-defined]
        known = [t for t in stems if t and t in vocab]
        if not known:
            return np.zeros(len(self.ids), dtype=np.float32)
        return np.asarray(self._model.get_scores(known), dtype=np.float32)  # type: ignore[attr-defined]

    def family(self, term: str) -> list[str]:
        """Return the indexed stems of `term`'s word family that the stemmer keeps apart: a
        final "y" it writes as "i" against the "-ic", "-etic", "-ication" forms ("theori" and
        "theoret", "appli" and "applic"), "-ify" against "-ification" ("verifi" and "verif"),
        with `term` itself when indexed. Not a bare "-y" against its stem: "memori" (memory)
        is no "memor" (memorization), "fulli" no "full"."""
        if self._model is None:
            return []
        forms = {term}
        if len(term) >= FAMILY_LETTERS:
            if term.endswith("i"):  # "theori": "theoret(ical)", "appli": "applic(ation)"
                forms |= {term[:-1] + "et", term[:-1] + "ic"}
            if term.endswith("fi"):  # "verifi(er)": "verif(ication)"
                forms.add(term[:-1])
            if term.endswith("if"):
                forms.add(term + "i")
            if term.endswith(("et", "ic")):
                forms.add(term[:-2] + "i")
        vocab = self._model.vocab_dict  # type: ignore[attr-defined]
        return [f for f in sorted(forms) if f and f in vocab]

    def __len__(self) -> int:
        return len(self.ids)

    def documents_with(self, term: str) -> np.ndarray:
        """Return the rows of the papers whose indexed text has the stemmed `term` (maybe none)."""
        if self._model is None:
            return np.zeros(0, dtype=np.int64)
        column = self._model.vocab_dict.get(term)  # type: ignore[attr-defined]
        if column is None or not term:  # bm25s keeps "" in the vocabulary, with no column
            return np.zeros(0, dtype=np.int64)
        matrix = self._model.scores  # type: ignore[attr-defined]
        start, end = int(matrix["indptr"][column]), int(matrix["indptr"][column + 1])
        return np.asarray(matrix["indices"][start:end])

    def stem(self, word: str) -> str:
        """Return `word` as the index stores it (lower case, stemmed, an acronym's plural in
        the singular: pass the word as written, not lower-cased)."""
        return self._known(str(self._stem.stemWord(singular_acronyms(word).lower())))

    def versions(self, term: str) -> list[str]:
        """The indexed tokens that are `term` with a version glued on: "qwen" is in "Qwen2.5-3B"
        (indexed as "qwen2"), "gpt" in "GPT4", "ctla" in "CTLA4". A name asked for finds the
        papers that name one of its versions, as it finds those that write "Qwen-3". Only for
        a name as typed (`_NAME`): a plain word's such tokens are mostly a footnote glued on
        ("expression2")."""
        if self._model is None or not term.isalpha() or len(term) < 3:
            return []
        if self._version_index is None:
            versioned: dict[str, list[str]] = {}
            for token in self._model.vocab_dict:  # type: ignore[attr-defined]
                match = _VERSIONED.fullmatch(token)
                if match:
                    versioned.setdefault(match.group(1), []).append(token)
            self._version_index = versioned
        return self._version_index.get(term, [])

    def _known(self, term: str) -> str:
        """Return `term`, or its singular when only that is indexed: an acronym's plural typed
        in lower case ("llms", "gnns") keeps its "s" through the stemmer, while the index
        holds "LLMs" as "llm"."""
        vocab = {} if self._model is None else self._model.vocab_dict  # type: ignore[attr-defined]
        if term in vocab or not term.endswith("s") or term[:-1] not in vocab:
            return term
        return term[:-1]

    @staticmethod
    def top(scores: np.ndarray, k: int) -> list[int]:
        """Return the rows of the `k` best positive scores, best first (ties by row)."""
        if k <= 0 or not scores.size:
            return []
        k = min(k, scores.size)
        rows = np.argpartition(-scores, k - 1)[:k]
        rows = rows[np.lexsort((rows, -scores[rows]))]
        return [int(i) for i in rows if scores[i] > 0]

    def search(
        self, query: str, k: int, allowed: Collection[str] | None = None
    ) -> list[tuple[str, float]]:
        """Return up to `k` (paper_id, score) pairs with a positive score, best first."""
        scores = self.scores(query, allowed)
        return [(self.ids[i], float(scores[i])) for i in self.top(scores, k)]
