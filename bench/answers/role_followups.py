"""Follow-ups that ask only what the papers found, how they work or why ("what did they find?").

    .venv/bin/python bench/answers/role_followups.py --index DIR [--out NAME] [--backend local]

bench/data/role_followups.jsonl: two-turn sessions over the seeds whose second message names no
topic of its own, only what it wants of the papers just answered: 32 from
bench/data/subjectless_followups.jsonl (its `previous` ones with no topic word) and 24 written
blind after a topic question; each labelled, from the message alone, with the role it wants:
`finding` (result or conclusion), `definition` (objective or method), `motivation`
(background) or `any`; and, for each paper the first answer cited (as of this file's writing),
the sentences a reader wants as the answer (`wanted_lines`, best first; null for `any`-like
messages), labelled by a helper who saw only the follow-up and the abstracts' sentences, not
the answers. Ids divisible by 3 are held out.

Each session is asked as the chat asks it (`rag.api.ask`, the first turn as history). Scored,
over sessions whose first answer cited a paper: the second answer says the abstracts "do not
seem to address this" (wrong: every abstract says what it found, how and why); it cites a
paper the first answer did not; and each of its lines comes from a sentence of the wanted role
(`rag.ingest.roles`, as `finding_first.py` reads them), and is one a reader wants (each line of
a paper with `wanted_lines`). Results: bench/results/NAME.md and
NAME.json (default role_followups).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.answers.finding_first import closest, role_of  # noqa: E402
from rag import api  # noqa: E402
from rag.answer.evidence import paper_sentences  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.ingest.wanted import WANTED_ROLES  # noqa: E402
from rag.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data" / "role_followups.jsonl"
RESULTS = ROOT / "bench" / "results"
ROLES = {str(want): set(roles) for want, roles in WANTED_ROLES.items()}
# The ends of `prompts.NOT_ADDRESSED_ONE` and `prompts.NOT_ADDRESSED`, the note looked for.
NOTES = ("does not seem to address this", "do not seem to address this")


def cited(answer: api.Answer) -> set[str]:
    return {str(c.hit.paper.id) for c in answer.citations}


def lines(answer: api.Answer) -> list[tuple[str, str, str, str]]:
    """Each shown, cited sentence of `answer`: its text, the role of the abstract sentence it
    is, that sentence, and its paper's first author."""
    by_n = {c.n: c.hit.paper for c in answer.citations}
    out = []
    for s in answer.sentences:
        if s.get("shown") and not s.get("note") and s.get("citations"):
            paper = by_n[s["citations"][0]]
            sentences = paper_sentences(paper)
            source = sentences[closest(s["text"], sentences)] if sentences else ""
            out.append((s["text"], role_of(s["text"], paper.abstract), source, paper.authors[0]))
    return out


def labelled_right(session: dict[str, Any], shown: list[tuple[str, str, str, str]]) -> list[bool]:
    """For each line whose paper has a labelled answer (`wanted_lines`), whether it is one."""
    labels = session.get("wanted_lines") or {}
    return [source in labels[author] for _, _, source, author in shown if labels.get(author)]


def run(index: Index, session: dict[str, Any], backend: str | None) -> dict[str, Any] | None:
    first = api.ask(session["first"], index=index, settings=index.settings, backend=backend)
    if not cited(first):
        return None
    second = api.ask(
        session["second"],
        index=index,
        settings=index.settings,
        backend=backend,
        history=[(session["first"], first)],
    )
    shown = lines(second)
    wanted = ROLES.get(session["want"])
    return {
        "id": session["id"],
        "split": session["split"],
        "second": session["second"],
        "want": session["want"],
        "standalone": second.standalone,
        "note": any(n in second.answer for n in NOTES),
        "outside": bool(cited(second) - cited(first)),
        "lines": len(shown),
        "wanted_lines": sum(wanted is None or role in wanted for _, role, _, _ in shown),
        "roles": [role for _, role, _, _ in shown],
        "labelled_right": labelled_right(session, shown),
        "answer": second.answer[:400],
    }


def table(rows: list[dict[str, Any]]) -> tuple[list[str], dict[str, Any]]:
    out = [
        "| part | sessions | 'not addressed' note | cites outside the first answer | "
        "lines of the wanted role (role asked) | lines a reader wants (labelled) |",
        "|---|---|---|---|---|---|",
    ]
    summary: dict[str, Any] = {}
    for part in ("fit", "heldout"):
        got = [r for r in rows if r["split"] == part]
        asked = [r for r in got if r["want"] != "any"]
        n_lines = sum(r["lines"] for r in asked)
        right = sum(r["wanted_lines"] for r in asked)
        judged = [ok for r in got for ok in r["labelled_right"]]
        summary[part] = {
            "sessions": len(got),
            "note": sum(r["note"] for r in got),
            "outside": sum(r["outside"] for r in got),
            "wanted_lines": right,
            "lines": n_lines,
            "labelled_right": sum(judged),
            "labelled_lines": len(judged),
        }
        out.append(
            f"| {part} | {len(got)} | {summary[part]['note']} | {summary[part]['outside']} | "
            f"{right}/{n_lines} | {sum(judged)}/{len(judged)} |"
        )
    return out, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--out", default="role_followups")
    parser.add_argument("--backend", default="extractive", choices=("extractive", "local"))
    args = parser.parse_args()
    index = Index(Settings(index_dir=Path(args.index), backend=args.backend))
    backend = None if args.backend == "extractive" else "local"
    sessions = [json.loads(x) for x in DATA.read_text(encoding="utf-8").splitlines()]
    rows = [r for s in sessions if (r := run(index, s, backend)) is not None]
    text, summary = table(rows)
    head = [
        f"# Follow-ups that ask only what they want (`bench/answers/role_followups.py`, "
        f"{args.backend})",
        "",
        f"Command: `.venv/bin/python bench/answers/role_followups.py --index DIR --out {args.out}"
        + (" --backend local`" if backend else "`"),
        "",
    ]
    (RESULTS / f"{args.out}.md").write_text("\n".join([*head, *text]) + "\n", encoding="utf-8")
    (RESULTS / f"{args.out}.json").write_text(
        json.dumps({"summary": summary, "rows": rows}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    print("\n".join(text))


if __name__ == "__main__":
    main()
