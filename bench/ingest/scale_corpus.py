"""Realistic synthetic corpora for the scale benchmark, made from SciFact's abstracts.

Each generated abstract takes its length (in sentences) and its title from one SciFact
abstract, opens with that abstract's first sentence and fills the rest with sentences of it and
of two other random abstracts, each source's sentences in their original order. So sentence
lengths, vocabulary and the passages per abstract follow real abstracts, and no two generated
papers are the same text. Authors (1-15, names from many languages, some with accents), research
areas (30) and years (1990-2025) are drawn at random. The same size and seed give the same file.

    .venv/bin/python bench/ingest/scale_corpus.py 10000 /tmp/corpus-10000.jsonl
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rag.text import split_sentences  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "scifact"

GIVEN = (  # noqa: SIM905  (a list literal of 150 names reads worse)
    "Wei Li Jun Xin Yu Hao Mei Akira Yuki Haruto Sakura Min-jun Ji-woo Priya Arjun Ananya Rahul "
    "Oğuz Zeynep Emre Ayşe José María Sofía Andrés Lucía João Inês Gonçalo François Amélie "
    "Jérôme Hélène Søren Åsa Björn Jürgen Lena Matthias Katarzyna Paweł Łukasz Olga Dmitri Anna "
    "Giulia Marco Chiara Ahmed Fatima Omar Layla Kwame Amara Chinedu Thandiwe Emily James Sarah "
    "Michael Laura David Grace Noah Olivia Liam Chloé Nguyễn Thảo Minh Siddharth Ngozi Tomás"
).split()
FAMILY = (  # noqa: SIM905
    "Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Sato Suzuki Takahashi Tanaka Kim Lee Park "
    "Choi Sharma Patel Gupta Iyer Reddy Yüksel Demir Şahin Çelik García Fernández López "
    "Martínez González Rodríguez Silva Santos Oliveira Dubois Lefèvre Moreau Müller Schmidt "
    "Schäfer Weiß Nielsen Jørgensen Andersson Ångström Kowalski Nowak Wiśniewski Ivanov Petrova "
    "Rossi Bianchi Ricci Hassan Ali Haddad Mensah Okafor Adeyemi Nkosi Smith Johnson Brown "
    "Taylor Wilson O'Brien MacDonald Nguyen Tran Pham Kaur Singh Khan"
).split()
AREAS = tuple(
    f"{field} · {sub}"
    for field, subs in {
        "Biology": ("Immunology", "Genetics", "Cell Biology", "Microbiology", "Neuroscience"),
        "Medicine": ("Oncology", "Cardiology", "Epidemiology", "Pharmacology", "Public Health"),
        "Chemistry": ("Biochemistry", "Structural Biology", "Metabolism"),
        "Computer Science": (
            "Machine Learning",
            "Bioinformatics",
            "Computer Vision",
            "Natural Language Processing",
        ),
        "Deep Learning": (
            "Large Language Models",
            "Graph Neural Networks",
            "Representation Learning",
        ),
        "Physics": ("Biophysics", "Medical Imaging"),
        "Statistics": ("Causal Inference", "Clinical Trials", "Survival Analysis"),
        "Social Science": ("Health Economics", "Behavioural Science"),
        "Environmental Science": ("Toxicology", "Climate and Health"),
        "Mathematics": ("Applied Mathematics", "Optimization"),
    }.items()
    for sub in subs
)


def _sources(data: Path) -> list[tuple[str, list[str]]]:
    """(title, sentences) of every SciFact abstract with at least two sentences."""
    out = []
    with (data / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            sentences = split_sentences(record["text"])
            if len(sentences) >= 2:
                out.append((record["title"], sentences))
    return out


def _authors(rng: random.Random) -> list[str]:
    count = min(15, 1 + int(rng.expovariate(1 / 4)))
    return [f"{rng.choice(GIVEN)} {rng.choice(FAMILY)}" for _ in range(count)]


def _abstract(rng: random.Random, sources: list[tuple[str, list[str]]]) -> tuple[str, str]:
    title, main = rng.choice(sources)
    others = [rng.choice(sources)[1] for _ in range(2)]
    picked = [(0, 0, main[0])]
    pool = [(0, i, s) for i, s in enumerate(main[1:], start=1)]
    pool += [(n, i, s) for n, sents in enumerate(others, start=1) for i, s in enumerate(sents)]
    picked += rng.sample(pool, min(len(main) - 1, len(pool)))
    ordered = [s for _, _, s in sorted(picked, key=lambda t: (t[0], t[1]))]
    return title, " ".join(ordered)


def generate(size: int, out: Path, data: Path = DATA, seed: int = 13) -> Path:
    """Write `size` generated paper records to `out` as JSON lines (kept when already there)."""
    if out.exists() and sum(1 for _ in out.open()) == size:
        return out
    rng = random.Random(seed)
    sources = _sources(data)
    tmp = out.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for _ in range(size):
            title, abstract = _abstract(rng, sources)
            record = {
                "title": title,
                "abstract": abstract,
                "authors": _authors(rng),
                "area": rng.choice(AREAS),
                "year": rng.randint(1990, 2025),
            }
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    tmp.replace(out)
    return out


if __name__ == "__main__":
    print(generate(int(sys.argv[1]), Path(sys.argv[2])))
