"""Count the fragments among every sentence an answer shows, with the bundled local model.

    .venv/bin/python bench/answers/shown_fragments.py --index COPY --tag TAG [--backend local]

`finding_first.py` counts fragments only in an answer's first sentence. The local model also
writes later ones: "Li et al. (CELL): To further mitigate domain shift ..." (an aim with no
main clause, behind the label the model copies) or "... matches frequentist uncertainty and
(ii)." (cut mid-clause). This asks every labelled question of `paper_questions.jsonl` that has
a paper and counts, among the shown sentences, those `rag.ingest.wanted.is_fragment` calls a
fragment once their "Chen et al. (X): " label is taken off; and the fallbacks (nothing the
model wrote was shown). COPY is a copy of a seed index (`rag ask` writes to it). Writes
bench/results/shown_fragments_TAG.json (with every shown sentence).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.finding_first import is_fragment  # noqa: E402
from bench.answers.paper_choice import open_index, read  # noqa: E402
from rag import api  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--tag", required=True)
    parser.add_argument("--backend", default="local")
    args = parser.parse_args()
    index = open_index(args.index)
    settings = index.settings.model_copy(update={"backend": args.backend})
    rows = [q for q in read("paper_questions.jsonl") if q["relevant"]]
    shown, fragments, fallbacks = [], [], 0
    for row in rows:
        answer = api.ask(row["q"], settings=settings, index=index)
        fallbacks += bool(answer.notice and "instead" in answer.notice)
        for s in answer.sentences:
            if s.get("shown") and s.get("citations") and not s.get("note"):
                shown.append({"id": row["id"], "text": s["text"]})
                if is_fragment(s["text"]):
                    fragments.append({"id": row["id"], "text": s["text"]})
    result = {
        "tag": args.tag,
        "backend": args.backend,
        "questions": len(rows),
        "shown_sentences": len(shown),
        "fragments": len(fragments),
        "fallbacks": fallbacks,
        "fragment_rows": fragments,
        "shown_rows": shown,
    }
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"shown_fragments_{args.tag}.json"
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if not k.endswith("_rows")}))
    for f in fragments:
        print(f"{f['id']}: {f['text']}")


if __name__ == "__main__":
    main()
