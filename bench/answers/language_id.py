"""When is a Latin-script question in another language? The bar of `likely_language`, fitted.

    .venv/bin/python bench/answers/language_id.py

A question in French, German, Spanish, Italian or Portuguese that the function-word rule
(`rag.answer.language.detect_language`) misses is searched as English, finds nothing and was
told the collection has no paper on it. Before saying so, the answer asks py3langid
(`likely_language`). Labelled questions:

- other languages: `bench/data/foreign_questions.jsonl` (60, written for this bench: questions,
  keyword queries, English terms inside, each with its language and a fixed split);
- English: every question of `bench/data/*.jsonl` (keyword queries, typos, names, chat messages,
  SciFact claims) and the dev chat sessions' turns in Latin script, held out by a hash of the
  text (a third).

The bar is the lowest probability (0.50 to 0.999) that flags no English question of the fitting
part; both parts are reported for it and for the rule alone. Writes
bench/results/language_id.{md,json}.
"""

from __future__ import annotations

import json
import sys
import time
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rag.answer.language import (  # noqa: E402
    LIKELY_LANGUAGE,
    _script,
    detect_language,
    language_probability,
)

DATA = ROOT / "bench" / "data"
CHAT = ROOT.parent / "shared" / "data" / "chat" / "sessions-dev.jsonl"
RESULTS = ROOT / "bench" / "results"
BARS = [0.5, 0.7, 0.8, 0.9, 0.95, 0.96, 0.97, 0.98, 0.99, 0.995, 0.999]


def _texts(row: dict[str, Any]) -> list[str]:
    found = [row[k] for k in ("q", "question", "claim", "message") if isinstance(row.get(k), str)]
    turns = row.get("turns") or []
    return found + [t["q"] for t in turns if isinstance(t, dict) and isinstance(t.get("q"), str)]


def english_questions() -> list[str]:
    """Every labelled English question of the benches, in Latin script."""
    files = [p for p in sorted(DATA.glob("*.jsonl")) if p.name != "foreign_questions.jsonl"]
    if CHAT.exists():  # shared data: skipped where absent
        files.append(CHAT)
    found: set[str] = set()
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                found.update(_texts(json.loads(line)))
    return sorted(q for q in found if not any(_script(ch) for ch in q if ch.isalpha()))


def rows() -> list[dict[str, Any]]:
    out = [
        {"q": q, "lang": "en", "split": "heldout" if zlib.crc32(q.encode()) % 3 == 0 else "fit"}
        for q in english_questions()
    ]
    foreign = (DATA / "foreign_questions.jsonl").read_text(encoding="utf-8").splitlines()
    out += [json.loads(line) for line in foreign if line.strip()]
    for r in out:
        r["rule"] = detect_language(r["q"])
        r["lid"], r["p"] = language_probability(r["q"])
    return out


def flagged(r: dict[str, Any], bar: float | None) -> str:
    """The language a question is taken for: the rule's, then py3langid's at `bar`."""
    if r["rule"] != "en" or bar is None:
        return str(r["rule"])
    return str(r["lid"]) if r["p"] >= bar else "en"


def score(part: list[dict[str, Any]], bar: float | None) -> dict[str, Any]:
    english = [r for r in part if r["lang"] == "en"]
    other = [r for r in part if r["lang"] != "en"]
    return {
        "english": len(english),
        "english_flagged": [r["q"] for r in english if flagged(r, bar) != "en"],
        "other": len(other),
        "other_caught": sum(flagged(r, bar) == r["lang"] for r in other),
        "other_missed": [r["q"] for r in other if flagged(r, bar) != r["lang"]],
    }


def main() -> None:
    t0 = time.perf_counter()
    labelled = rows()
    seconds = time.perf_counter() - t0
    parts = {s: [r for r in labelled if r["split"] == s] for s in ("fit", "heldout")}
    clean = [b for b in BARS if not score(parts["fit"], b)["english_flagged"]]
    chosen = min(clean) if clean else None
    table = {
        f"{name} ({part})": score(parts[part], bar)
        for name, bar in (("rule alone", None), (f"rule, then py3langid >= {chosen}", chosen))
        for part in ("fit", "heldout")
    }
    scan = {str(b): {p: score(parts[p], b) for p in ("fit", "heldout")} for b in BARS}
    lines = [
        "# A Latin-script question's language (`bench/answers/language_id.py`)",
        "",
        f"Command: `.venv/bin/python bench/answers/language_id.py` ({len(labelled)} questions, "
        f"{seconds:.1f} s with the model load). Bar chosen on the fitting part: {chosen} "
        f"(shipped `LIKELY_LANGUAGE` = {LIKELY_LANGUAGE}).",
        "",
        "| decision (part) | English questions | flagged as another language | other-language "
        "questions | caught |",
        "|---|---|---|---|---|",
    ]
    for name, s in table.items():
        lines.append(
            f"| {name} | {s['english']} | {len(s['english_flagged'])} | {s['other']} | "
            f"{s['other_caught']} |"
        )
    lines += ["", "Every bar (flagged English / caught, fit and held out):", ""]
    lines += ["| bar | fit | held out |", "|---|---|---|"]
    for b, by_part in scan.items():
        cells = [f"{len(s['english_flagged'])} / {s['other_caught']}" for s in by_part.values()]
        lines.append(f"| {b} | {cells[0]} | {cells[1]} |")
    final = table[f"rule, then py3langid >= {chosen} (heldout)"]
    lines += ["", f"Missed held out at the bar: {final['other_missed']}"]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "language_id.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (RESULTS / "language_id.json").write_text(
        json.dumps({"chosen": chosen, "table": table, "scan": scan}, indent=1, ensure_ascii=False)
        + "\n",
        encoding="utf-8",
    )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
