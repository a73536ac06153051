"""Ingest rate of long structured abstracts (Cochrane-style, several thousand characters)
against typical ones, and what drives the difference.

Run from the repository root (a few minutes on two cores):

    .venv/bin/python bench/ingest/long_abstracts.py [--data ../shared/data/scifact] [--papers 40]

Typical: the first N SciFact abstracts (about 1,500 characters). Long: N structured abstracts
built from real SciFact prose, five abstracts each under the section labels a Cochrane review
uses (Background, Objectives, Search methods, Main results, Authors' conclusions), about 7,000
characters, as the 54 Cochrane reviews of issue 23. For each set, with one loaded model:
  1. sentence splitting and chunking alone (`rag.ingest.chunking.chunk_paper`);
  2. passages per paper and word pieces per passage (what the model reads);
  3. bare `SentenceTransformer.encode` of those passages;
  4. `rag.ingest` of the file into a new embedded index (parse, chunk, embed, write, BM25).
Also the splitter on one 20,000-character abstract (the cap), to show it is linear.
Results go to bench/results/long_abstracts.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from rag.index.embedding import load_embedder  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.ingest.chunking import chunk_paper  # noqa: E402
from rag.ingest.parsers import parse_path  # noqa: E402
from rag.ingest.pipeline import ingest  # noqa: E402
from rag.settings import Settings  # noqa: E402
from rag.text import split_sentences  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "scifact"
RESULTS = ROOT / "bench" / "results"
SECTIONS = ("Background", "Objectives", "Search methods", "Main results", "Authors' conclusions")


def scifact(data: Path, n: int) -> list[dict[str, Any]]:
    out = []
    with (data / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if len(record["text"]) > 400:
                out.append(record)
            if len(out) == n:
                return out
    return out


def write_sets(data: Path, n: int, folder: Path) -> tuple[Path, Path]:
    """Write `typical.jsonl` (N abstracts) and `long.jsonl` (N structured ones of 5 each)."""
    records = scifact(data, n * (1 + len(SECTIONS)))
    typical = folder / "typical.jsonl"
    typical.write_text("".join(json.dumps(r) + "\n" for r in records[:n]), encoding="utf-8")
    rest = records[n:]
    long = folder / "long.jsonl"
    with long.open("w", encoding="utf-8") as fh:
        for i in range(n):
            parts = rest[i * len(SECTIONS) : (i + 1) * len(SECTIONS)]
            text = " ".join(
                f"{label}: {p['text']}" for label, p in zip(SECTIONS, parts, strict=True)
            )
            fh.write(json.dumps({"_id": f"long-{i}", "title": parts[0]["title"], "text": text}))
            fh.write("\n")
    return typical, long


def measure(path: Path, embedder: Any, folder: Path) -> dict[str, Any]:
    papers = parse_path(path).papers
    start = time.perf_counter()
    for _ in range(5):
        passages = [text for p in papers for text in chunk_paper(p)]
    chunk_s = (time.perf_counter() - start) / 5
    tokenizer = embedder._model.tokenizer
    limit = embedder._model.max_seq_length
    pieces = [len(tokenizer(t)["input_ids"]) for t in passages]
    sentences = [len(split_sentences(p.abstract)) for p in papers]
    start = time.perf_counter()
    embedder._model.encode(
        passages, batch_size=embedder.batch_size, normalize_embeddings=True, show_progress_bar=False
    )
    encode_s = time.perf_counter() - start
    load = os.getloadavg()[0]
    index = Index(Settings(index_dir=folder / f"index-{path.stem}"), embedder, create=True)
    start = time.perf_counter()
    report = ingest([path], index)
    ingest_s = time.perf_counter() - start
    n = len(papers)
    return {
        "papers": n,
        "added": report.added,
        "chars_per_abstract": round(sum(len(p.abstract) for p in papers) / n),
        "sentences_per_abstract": round(sum(sentences) / n, 1),
        "passages": len(passages),
        "passages_per_paper": round(len(passages) / n, 2),
        "word_pieces_per_passage": round(sum(pieces) / len(pieces), 1),
        "passages_cut_at_limit": sum(1 for x in pieces if x > limit),
        "word_pieces_per_paper": round(sum(min(x, limit) for x in pieces) / n),
        "chunk_ms_per_paper": round(chunk_s / n * 1000, 3),
        "encode_s": round(encode_s, 2),
        "encode_ms_per_passage": round(encode_s / len(passages) * 1000, 1),
        "ingest_s": round(ingest_s, 2),
        "ingest_s_per_paper": round(ingest_s / n, 3),
        "papers_per_s": round(n / ingest_s, 2),
        "load_average_1min": round(load, 2),
    }


def splitter_scaling() -> list[tuple[int, float]]:
    """Milliseconds to split abstracts of growing length (linear: ~constant per character)."""
    sentence = "Exercise reduced symptoms (SMD -0.62, 95% CI -0.81 to -0.42; 35 trials). "
    out = []
    for chars in (2_000, 5_000, 10_000, 20_000):
        text = (sentence * (chars // len(sentence) + 1))[:chars]
        start = time.perf_counter()
        for _ in range(20):
            split_sentences(text)
        out.append((chars, round((time.perf_counter() - start) / 20 * 1000, 2)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--papers", type=int, default=40)
    parser.add_argument("--out", default="long_abstracts")
    args = parser.parse_args()
    if not (args.data / "corpus.jsonl").exists():
        print(f"skipped: no BEIR corpus at {args.data}", file=sys.stderr)
        return
    embedder = load_embedder()
    embedder.embed(["warm-up"] * 64)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        typical, long = write_sets(args.data, args.papers, folder)
        result = {
            "typical": measure(typical, embedder, folder),
            "long": measure(long, embedder, folder),
            "splitter_ms_by_chars": splitter_scaling(),
            "batch_size": embedder.batch_size,
            "machine": f"{os.cpu_count()} CPU cores, {platform.machine()}, "
            f"Python {platform.python_version()}",
            "command": " ".join(["bench/ingest/long_abstracts.py", *sys.argv[1:]]),
        }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / f"{args.out}.md").write_text(render(result))
    print(render(result))


def render(r: dict[str, Any]) -> str:
    t, g = r["typical"], r["long"]
    rows = [
        ("Characters per abstract", "chars_per_abstract"),
        ("Sentences per abstract", "sentences_per_abstract"),
        ("Passages (windows) per paper", "passages_per_paper"),
        ("Word pieces per passage", "word_pieces_per_passage"),
        ("Word pieces the model reads per paper", "word_pieces_per_paper"),
        ("Passages cut at the model's 256 word pieces", "passages_cut_at_limit"),
        ("Sentence splitting + chunking (ms per paper)", "chunk_ms_per_paper"),
        ("Bare encode (ms per passage)", "encode_ms_per_passage"),
        ("`rag.ingest` (s per paper)", "ingest_s_per_paper"),
        ("`rag.ingest` (papers per s)", "papers_per_s"),
        ("1-minute load average", "load_average_1min"),
    ]
    table = "\n".join(
        f"| {label} | {t[key]} | {g[key]} | "
        + (f"{g[key] / t[key]:.1f}x" if isinstance(t[key], int | float) and t[key] else "—")
        + " |"
        for label, key in rows
    )
    split = ", ".join(f"{c:,} chars {ms} ms" for c, ms in r["splitter_ms_by_chars"])
    return (
        f"Long structured abstracts against typical ones: {t['papers']} papers each, embedded "
        f"Chroma, batch size {r['batch_size']}, {r['machine']}.\n\n"
        "| | Typical (SciFact) | Long (structured, 5 sections) | Long / typical |\n"
        "|---|---|---|---|\n"
        f"{table}\n\n"
        f"Sentence splitter on one abstract of growing length: {split}.\n\n"
        f"Command: `.venv/bin/python {r['command']}`\n"
    )


if __name__ == "__main__":
    main()
