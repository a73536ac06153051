"""Which misspelled query words `rag/index/spelling.py` reads as the collection's, and at what cost.

    .venv/bin/python bench/answers/spelling.py [--scifact-index DIR]

Two labelled sets, and the rule against its variants (shortest word corrected; shortest word
it is read as; a replaced letter counted as a slip or not):

- the seed questions of `bench/data/paper_questions.jsonl` whose form is "typo" (18), with their
  misspelled words and the words meant in `bench/data/spelling_seed_typos.jsonl`: is each read
  as the word meant, and is nothing else changed?
- SciFact's 809 training claims over the SciFact abstracts (`DIR/eval-scifact`, as
  `bench/answers/finding_first.py` builds it): every word a variant changes, labelled in
  `bench/data/spelling_scifact.jsonl` with the word the claim meant (a real typo) or null (a
  real term the collection lacks: a gene, an anatomical term, a species).

A fix is a typo read as the word meant; damage is a real term read as another word. Writes
bench/results/spelling.md. The SciFact part is skipped, with a line, when the index is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rag.index import compounds, spelling  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data"
CLAIMS = ROOT.parent / "shared" / "data" / "scifact-claims" / "claims_train.jsonl"
LETTERS = "abcdefghijklmnopqrstuvwxyz"
SLIPS = spelling.slips
SHIPPED = (spelling.MIN_LENGTH, spelling.MIN_READ_LENGTH, False)
VARIANTS = [
    (4, 4, True),
    (4, 4, False),
    (5, 4, False),
    SHIPPED,
    (6, 5, True),
    (6, 5, False),
    (7, 6, False),
]


def with_replacements(word: str) -> set[str]:
    """Slips plus a letter replaced by another (the edit the shipped rule leaves out)."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return SLIPS(word) | {a + c + b[1:] for a, b in splits if b for c in LETTERS} - {word}


def changes(index: Index, texts: list[str], variant: tuple[int, int, bool]) -> dict[str, str]:
    """Return {typed word: word read} over `texts` under one variant of the rule."""
    min_length, min_read, replace = variant
    saved = (
        spelling.MIN_LENGTH,
        spelling.MIN_READ_LENGTH,
        spelling.slips,
        spelling.clipped,
        spelling._variant_of,
        spelling.split_form,
    )
    spelling.MIN_LENGTH, spelling.MIN_READ_LENGTH = min_length, min_read
    spelling.clipped = lambda index, word: None  # type: ignore[assignment]  # slips alone here
    spelling._variant_of = lambda index, word: None  # type: ignore[assignment]
    spelling.split_form = lambda index, word, english: None  # type: ignore[assignment]
    if replace:
        spelling.slips = with_replacements  # type: ignore[assignment]
    try:
        out = {}
        for text in texts:
            for word in re.findall(r"[A-Za-z0-9]+", text):
                read = spelling.correction(index, word)
                if read:
                    out[word] = read
        return out
    finally:
        (  # type: ignore[assignment]
            spelling.MIN_LENGTH,
            spelling.MIN_READ_LENGTH,
            spelling.slips,
            spelling.clipped,
            spelling._variant_of,
            spelling.split_form,
        ) = saved


def name(variant: tuple[int, int, bool]) -> str:
    shipped = " (shipped)" if variant == SHIPPED else ""
    edits = "slips and replaced letters" if variant[2] else "slips only"
    return f"{variant[0]}+ letters read as {variant[1]}+, {edits}{shipped}"


def seeds_part(index: Index) -> list[str]:
    rows = [json.loads(x) for x in (DATA / "paper_questions.jsonl").read_text().splitlines() if x]
    typos = [r for r in rows if r["form"] == "typo"]
    labelled = DATA / "spelling_seed_typos.jsonl"
    meant = {
        w: m for x in labelled.read_text().splitlines() for w, m in json.loads(x)["typos"].items()
    }
    lines = [
        f"### Seed typo questions ({len(typos)}, {len(meant)} misspelled words labelled)",
        "",
        "| rule | typos read as meant | typos left | other words changed |",
        "|---|---|---|---|",
    ]
    for v in VARIANTS:
        got = changes(index, [r["q"] for r in typos], v)
        right = sum(got.get(w) == m for w, m in meant.items())
        other = sorted(f"{w}→{r}" for w, r in got.items() if w not in meant)
        left = sorted(w for w, m in meant.items() if got.get(w) != m)
        lines.append(f"| {name(v)} | {right} | {', '.join(left)} | {', '.join(other) or '0'} |")
    return lines


def scifact_part(index: Index) -> list[str]:
    claims = [json.loads(x)["claim"] for x in CLAIMS.read_text().splitlines() if x]
    labels = {
        r["typed"]: r["meant"]
        for r in map(json.loads, (DATA / "spelling_scifact.jsonl").read_text().splitlines())
    }
    lines = [
        f"### SciFact training claims ({len(claims)}) over the 5,183 SciFact abstracts",
        "",
        "| rule | words changed | typos fixed | real terms damaged | typos misread "
        "| not labelled |",
        "|---|---|---|---|---|---|",
    ]
    for v in VARIANTS:
        got = changes(index, claims, v)
        fixed = sum(labels.get(w, "?") == r for w, r in got.items())
        damaged = sorted(f"{w}→{r}" for w, r in got.items() if w in labels and not labels[w])
        misread = sum(bool(labels.get(w)) and labels[w] != r for w, r in got.items())
        unknown = sorted(w for w in got if w not in labels)
        lines.append(
            f"| {name(v)} | {len(got)} | {fixed} | {len(damaged)}: {', '.join(damaged) or '-'} "
            f"| {misread} | {', '.join(unknown) or '0'} |"
        )
    return lines


def clipping_pairs_part(index: Index) -> list[str]:
    """The clipped-word threshold: precision and recall on labelled pairs, by threshold."""
    import numpy as np

    rows = [json.loads(x) for x in (DATA / "clipped_words.jsonl").read_text().splitlines() if x]
    typed = index.embedder.embed([r["typed"] for r in rows])
    meant = index.embedder.embed([r["candidate"] for r in rows])
    cosine = (typed * meant).sum(axis=1)
    readable = np.array([r["typed"] not in spelling._english() for r in rows])
    truth = np.array([r["clipping"] for r in rows])
    fit = np.array([r["split"] == "fit" for r in rows])

    def score(t: float, part: np.ndarray) -> tuple[float, float, float]:
        said = (cosine >= t) & readable & part
        hit = float((said & truth).sum())
        p = hit / max(1, int(said.sum()))
        r = hit / max(1, int((truth & part).sum()))
        return p, r, (1.25 * p * r / (0.25 * p + r) if p + r else 0.0)

    grid = [round(0.10 + 0.05 * i, 2) for i in range(15)]
    best = max(grid, key=lambda t: score(t, fit)[2])
    lines = [
        f"### Clipped words: labelled pairs ({len(rows)}: {int(fit.sum())} fitting, "
        f"{int((~fit).sum())} held out, split by the typed word)",
        "",
        "A pair is read as a clipping when the typed word is no English word and the cosine "
        f"reaches the threshold. Best F0.5 on the fitting part: {best} "
        f"(shipped: {spelling.CLIP_MIN_COSINE}).",
        "",
        "| threshold | fitting: precision | recall | F0.5 | held out: precision | recall | F0.5 |",
        "|---|---|---|---|---|---|---|",
    ]
    for t in grid:
        a, b = score(t, fit), score(t, ~fit)
        mark = " (shipped)" if t == spelling.CLIP_MIN_COSINE else ""
        lines.append(
            f"| {t}{mark} | {a[0]:.3f} | {a[1]:.3f} | {a[2]:.3f} | {b[0]:.3f} | {b[1]:.3f} "
            f"| {b[2]:.3f} |"
        )
    return lines


def clipped_words(index: Index, texts: list[str], variants: bool = False) -> dict[str, str]:
    """Return {typed word: word read} for every word of `texts` the clipping rule reads (with
    `variants`: that the British and American spelling rule reads), word by word as
    `spelling.corrected` reads them (compounds are `compound_words`')."""
    out = {}
    for text in texts:
        for match in re.finditer(r"[A-Za-z0-9]+", text):
            typed = match.group()
            low = typed.lower()
            first = match.start() == 0 and typed[:1].isupper() and typed[1:].islower()
            clip = "-" not in (text[match.start() - 1 : match.start()], text[match.end() :][:1])
            got = spelling.correction(index, low if first else typed, clip=clip)
            if got is None or spelling._slip_of(index, low) is not None:
                continue
            if compounds.split_form(index, low, spelling._english()) is not None:
                continue
            if (spelling._variant_of(index, low) is not None) == variants:
                out[low] = got.lower()
    return out


def compound_words(index: Index, texts: list[str]) -> dict[str, str]:
    """Return {typed: read} for every compound of `texts` read as the collection writes it
    (`rag.index.compounds`): typed apart and read joined, or typed joined and read apart."""
    out = {}
    for text in texts:
        for start, end, joined in compounds.joined_pairs(index, text):
            out[text[start:end].lower()] = joined.lower()
        for word in re.findall(rf"[A-Za-z]{{{compounds.MIN_JOINED},}}", text):
            low = word.lower()
            bm25 = index.bm25()
            if len(bm25.documents_with(bm25.stem(low))):
                continue
            read = compounds.split_form(index, low, spelling._english())
            if read and spelling.correction(index, low) == read:
                out[low] = read
    return out


def clipping_use_part(seeds: Index, scifact: Index | None) -> list[str]:
    """Every compound and every word the clipping and spelling-variant rules read in the
    labelled seed questions and SciFact claims."""
    texts = []
    for name in (
        "paper_questions.jsonl",
        "role_questions.jsonl",
        "offtopic_questions.jsonl",
        "abstention_questions.jsonl",
    ):
        for row in map(json.loads, (DATA / name).read_text().splitlines()):
            texts += [v for k, v in row.items() if k in ("q", "question") and isinstance(v, str)]
    lines = ["", "### Compounds (`rag/index/compounds.py`) read in real questions", ""]
    got = compound_words(seeds, texts)
    listed = ", ".join(f"{w}→{r}" for w, r in sorted(got.items())) or "none"
    lines.append(f"- {len(texts)} labelled seed questions (over the seeds): {listed}")
    if scifact is not None:
        claims = [json.loads(x)["claim"] for x in CLAIMS.read_text().splitlines() if x]
        got = compound_words(scifact, claims)
        listed = ", ".join(f"{w}→{r}" for w, r in sorted(got.items())) or "none"
        lines.append(f"- {len(claims)} SciFact training claims (over SciFact): {listed}")
    for variants, title in (
        (False, "Clipped words"),
        (True, "British and American spellings (`spelling_variants`)"),
    ):
        lines += ["", f"### {title} read in real questions", ""]
        got = clipped_words(seeds, texts, variants)
        listed = ", ".join(f"{w}→{r}" for w, r in sorted(got.items())) or "none"
        lines.append(f"- {len(texts)} labelled seed questions (over the seeds): {listed}")
        if scifact is not None:
            claims = [json.loads(x)["claim"] for x in CLAIMS.read_text().splitlines() if x]
            got = clipped_words(scifact, claims, variants)
            listed = ", ".join(f"{w}→{r}" for w, r in sorted(got.items())) or "none"
            lines.append(f"- {len(claims)} SciFact training claims (over SciFact): {listed}")
    return lines[1:]


def cost_part(index: Index) -> list[str]:
    """What correcting costs a query: the word list's first load, then each look-up."""
    import time

    spelling._english.cache_clear()
    index.bm25()  # loaded by the search in any case
    known = "label noise in graph neural networks"
    t0 = time.perf_counter()
    spelling.corrected(index, known)
    known_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    spelling.corrected(index, "graph nueral netwroks")
    first_s = time.perf_counter() - t0
    rows = [json.loads(x) for x in (DATA / "paper_questions.jsonl").read_text().splitlines() if x]
    t0 = time.perf_counter()
    for r in rows:
        spelling.corrected(index, r["q"])
    each_ms = (time.perf_counter() - t0) / len(rows) * 1000
    return [
        "### Cost (in process, seed index)",
        "",
        "| query | time |",
        "|---|---|",
        # Known words read the English list too: a word BM25 knows by its stem may be a slip in
        # its ending ("reinforcment"), and only the list tells "networks" from it.
        f"| first question in a process, every word known to the collection (reads the English "
        f"word list) | {known_s * 1000:.2f} ms |",
        f"| then a question with unknown words | {first_s * 1000:.0f} ms |",
        f"| then, each of the {len(rows)} labelled questions | {each_ms:.2f} ms |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, default=ROOT / "bench" / "work" / "seeds-index")
    parser.add_argument("--scifact-index", type=Path, default=ROOT / "bench" / "work" / "scifact")
    args = parser.parse_args()
    from bench.answers.paper_choice import open_index

    lines = ["# Misspelled query words (`rag/index/spelling.py`)", ""]
    lines += [
        "Command: `.venv/bin/python bench/answers/spelling.py --scifact-index DIR` (DIR holding "
        "`eval-scifact`, as `bench/answers/finding_first.py` builds it)",
        "",
    ]
    seeds = open_index(args.index)
    lines += [*cost_part(seeds), "", *seeds_part(seeds), ""]
    folder = args.scifact_index / "eval-scifact"
    sf = None
    if (folder / "chroma.sqlite3").exists() and CLAIMS.exists():
        sf = Index(Settings(index_dir=folder, collection="eval-scifact"))
        lines += scifact_part(sf)
    else:
        lines.append(f"SciFact part skipped: no index at {folder} or no claims at {CLAIMS}.")
    lines += ["", *clipping_pairs_part(seeds), "", *clipping_use_part(seeds, sf)]
    text = "\n".join(lines) + "\n"
    (ROOT / "bench" / "results" / "spelling.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
