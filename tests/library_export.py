"""Generated reference-manager libraries for tests and bench/ingest/library_ingest.py.

Shaped as Zotero writes its BibTeX export (tab-indented fields, `month = dec` macros, `file`
and `urldate` fields, a trailing comma) and as Better BibTeX writes CSL-JSON (`citation-key`,
`issued` date-parts with the year as a string). Every `without`-th entry has no abstract, as
books, reports and web pages in a real library.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

_TOPICS = (
    "graph neural networks", "protein folding", "causal inference", "federated learning",
    "speech recognition", "reinforcement learning", "image segmentation", "topic models",
    "drug discovery", "climate downscaling", "time series forecasting", "active learning",
)  # fmt: skip
_VERBS = ("improves", "reduces", "stabilises", "explains", "accelerates", "predicts")
_OBJECTS = (
    "the error on held-out data", "training time", "label noise", "memory use",
    "calibration", "sample efficiency", "robustness to shift", "the variance of estimates",
)  # fmt: skip
_FAMILIES = ("Smith", "Garcia", "Chen", "Müller", "Okafor", "Novak", "Tanaka", "Silva", "Kowalski")
_GIVEN = ("Ana", "Wei", "John", "Fatima", "Lars", "Priya", "Kenji", "Marta", "Olu")
_TYPES = ("book", "techreport", "misc")  # what lacks an abstract in a real library


def _entry(n: int, rng: random.Random, with_abstract: bool) -> dict[str, object]:
    topic = rng.choice(_TOPICS)
    authors = [(rng.choice(_FAMILIES), rng.choice(_GIVEN)) for _ in range(rng.randint(1, 4))]
    title = f"Study {n} of {topic}: {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}"
    sentences = [
        f"We study {topic} in setting number {n}.",
        f"Our method {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} by {rng.randint(2, 40)}%.",
        f"Experiments on {rng.randint(2, 12)} benchmarks confirm that it "
        f"{rng.choice(_VERBS)} {rng.choice(_OBJECTS)}.",
    ]
    return {
        "key": f"{authors[0][0].lower()}_study_{2000 + n % 24}_{n}",
        "type": "article" if with_abstract else _TYPES[n % len(_TYPES)],
        "authors": authors,
        "title": title,
        "year": 2000 + n % 24,
        "abstract": " ".join(sentences) if with_abstract else "",
        "keywords": [topic, rng.choice(_OBJECTS)],
    }


def entries(n: int, without: int = 3, seed: int = 23) -> list[dict[str, object]]:
    """Return `n` entries; every `without`-th one (0, 3, 6, ...) has no abstract."""
    rng = random.Random(seed)
    return [_entry(i, rng, with_abstract=i % without != 0) for i in range(n)]


def write_zotero_bib(path: Path, items: list[dict[str, object]]) -> Path:
    """Write `items` as Zotero's BibTeX export does; return the path."""
    out = []
    for item in items:
        authors = " and ".join(f"{f}, {g}" for f, g in item["authors"])  # type: ignore[attr-defined]
        fields = [
            ("title", item["title"]),
            ("url", f"https://example.org/{item['key']}"),
        ]
        if item["abstract"]:
            fields.append(("abstract", item["abstract"]))
        fields += [
            ("urldate", "2024-03-01"),
            ("author", authors),
            ("year", item["year"]),
            ("keywords", ", ".join(item["keywords"])),  # type: ignore[arg-type]
            ("file", f"Full Text PDF:/home/u/Zotero/storage/{item['key']}.pdf:application/pdf"),
        ]
        body = "".join(f"\t{name} = {{{value}}},\n" for name, value in fields)
        out.append(f"@{item['type']}{{{item['key']},\n{body}\tmonth = dec,\n}}\n")
    path.write_text("\n".join(out), encoding="utf-8")
    return path


def write_csl_json(path: Path, items: list[dict[str, object]]) -> Path:
    """Write `items` as Better BibTeX's CSL-JSON export does; return the path."""
    records = []
    for item in items:
        record: dict[str, object] = {
            "id": item["key"],
            "type": "article-journal" if item["abstract"] else "book",
            "title": item["title"],
            "author": [{"family": f, "given": g} for f, g in item["authors"]],  # type: ignore[attr-defined]
            "issued": {"date-parts": [[str(item["year"])]]},
            "keyword": ", ".join(item["keywords"]),  # type: ignore[arg-type]
            "citation-key": item["key"],
        }
        if item["abstract"]:
            record["abstract"] = item["abstract"]
        records.append(json.dumps(record, ensure_ascii=False))
    path.write_text("[\n  " + ",\n  ".join(records) + "\n]\n", encoding="utf-8")
    return path
