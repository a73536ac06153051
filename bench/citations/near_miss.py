"""Calibrate `rag.cite.claims.NEAR_MISS`: which uncited draft sentences get a "cite it anyway"
offer.

    .venv/bin/python bench/citations/near_miss.py [--scifact-index DIR] [--claims N]

A sentence whose best paper scores under `MIN_SCORE` gets no citation; when that score is at
least `NEAR_MISS`, the UI offers the paper as a near miss the user may accept. An offer is
useful when the paper is the one the sentence is about, noise otherwise. Per candidate floor,
over the sentences under the bar, this counts:

- seeds (`tests/data/cite_calibration.json`, real MiniLM over the seeds): paraphrases whose own
  paper is offered (useful), unsupported claims offered (noise), and off-topic claims offered
  (the first ten dev claims: coral reefs, bread, ...; an offer there is plainly wrong);
- with `--scifact-index` (a copy of the SciFact index) and `../shared/data/scifact-claims`:
  SciFact training claims with a SUPPORT label, offered their gold abstract (useful) or another
  (noise), and claims with no evidence (noise).

The floor is chosen on the seeds' dev split: the highest floor that still offers every dev
paraphrase under the bar its own paper (no near miss lost), so the fewest noise offers; the
held-out split and SciFact are only measured. Writes bench/results/near_miss.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rag.cite.claims import MIN_SCORE, _Scorer  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.ingest.pipeline import ingest  # noqa: E402
from rag.settings import Settings  # noqa: E402

FLOORS = (0.25, 0.30, 0.35, 0.40, 0.45)
DATA = ROOT / "tests" / "data" / "cite_calibration.json"
CLAIMS = ROOT.parent / "shared" / "data" / "scifact-claims" / "claims_train.jsonl"
OUT = ROOT / "bench" / "results" / "near_miss.md"
OFF_TOPIC = 10  # the first ten dev unsupported claims are not about machine learning


def _share(hits: int, total: int) -> str:
    return f"{hits}/{total}" if total else "0/0"


def seed_rows(index: Index) -> tuple[list[str], float]:
    """Return the seed table rows and the floor chosen on dev."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    scorer = _Scorer(index, None)
    rows: list[str] = []
    chosen = FLOORS[0]
    for split in ("dev", "heldout"):
        keys, claims = zip(*data[split]["paraphrases"].items(), strict=True)
        para = [r[0] for r in scorer.rank(list(claims))]
        unsup = [r[0] for r in scorer.rank(data[split]["unsupported"])]
        under = [(k, s) for k, s in zip(keys, para, strict=True) if s.score < MIN_SCORE]
        unsup_under = [s for s in unsup if s.score < MIN_SCORE]
        off = [s for s in unsup[:OFF_TOPIC] if s.score < MIN_SCORE] if split == "dev" else []
        for floor in FLOORS:
            useful = sum(s.score >= floor and s.paper.citation_key == k for k, s in under)
            noise = sum(s.score >= floor for s in unsup_under)
            off_hit = sum(s.score >= floor for s in off)
            rows.append(
                f"| seeds {split} | {floor:.2f} | {_share(useful, len(under))} | "
                f"{_share(noise, len(unsup_under))} | "
                + (_share(off_hit, len(off)) if split == "dev" else "-")
                + " |"
            )
            if split == "dev" and useful == sum(s.paper.citation_key == k for k, s in under):
                chosen = floor  # FLOORS ascend: the last that keeps every right offer
        best_off = max((s.score for s in off), default=0.0)
        if split == "dev":
            rows.append(f"| seeds dev | (best off-topic score {best_off:.2f}) | | | |")
    return rows, chosen


def scifact_rows(index: Index, limit: int) -> list[str]:
    """Return the SciFact rows: SUPPORT claims offered their gold paper, and no-evidence claims."""
    records = [json.loads(line) for line in CLAIMS.open(encoding="utf-8")]
    support = [r for r in records if any(e["label"] == "SUPPORT" for e in r["evidence"])]
    none = [r for r in records if not r["evidence"]]
    support, none = support[:limit], none[: limit // 2]
    scorer = _Scorer(index, None)
    # SciFact ingests BEIR ids as external ids: match the gold doc by the paper's external id.
    best_support = [r[0] if r else None for r in scorer.rank([r["claim"] for r in support])]
    best_none = [r[0] if r else None for r in scorer.rank([r["claim"] for r in none])]
    rows = []
    for floor in FLOORS:
        useful = under = noise = 0
        for record, best in zip(support, best_support, strict=True):
            if best is None or best.score >= MIN_SCORE:
                continue
            under += 1
            gold = {str(e["doc_id"]) for e in record["evidence"] if e["label"] == "SUPPORT"}
            if best.score >= floor:
                if (best.paper.external_id or "").split(":")[-1] in gold:
                    useful += 1
                else:
                    noise += 1
        none_under = [b for b in best_none if b is not None and b.score < MIN_SCORE]
        none_hit = sum(b.score >= floor for b in none_under)
        rows.append(
            f"| SciFact SUPPORT ({len(support)}) | {floor:.2f} | {_share(useful, under)} | "
            f"{_share(noise, under)} wrong paper; {_share(none_hit, len(none_under))} "
            "no-evidence claims | - |"
        )
    return rows


def main() -> None:
    """Measure the floors, print and write the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scifact-index", type=Path, help="a copy of the SciFact index")
    parser.add_argument("--claims", type=int, default=120, help="SciFact SUPPORT claims to score")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        index = Index(Settings(index_dir=Path(tmp), backend="extractive"), create=True)
        ingest([ROOT / "seeds"], index)
        rows, chosen = seed_rows(index)
    if args.scifact_index and CLAIMS.exists():
        scifact = Index(Settings(index_dir=args.scifact_index, backend="extractive"))
        rows += scifact_rows(scifact, args.claims)
    table = [
        f"# Near misses in Cite my draft (MIN_SCORE {MIN_SCORE:.2f})",
        "",
        "Command: `.venv/bin/python bench/citations/near_miss.py"
        + (f" --scifact-index DIR --claims {args.claims}`" if args.scifact_index else "`"),
        "",
        "Over the sentences whose best paper scores under the bar: how many get an offer at each",
        "floor, and whether the offered paper is the right one.",
        "",
        "| set | floor | right paper offered | noise offered | off-topic offered |",
        "|---|---|---|---|---|",
        *rows,
        "",
        f"Chosen on seeds dev (highest floor keeping every right near miss): {chosen:.2f}",
    ]
    text = "\n".join(table) + "\n"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
