"""Score follow-ups over a set of papers ("which of them ...", "the others", "the second one").

    .venv/bin/python bench/answers/set_followups.py   # index: bench/work/seeds-index
    .venv/bin/python bench/answers/set_followups.py --out set_followups_before -v
    .venv/bin/python bench/answers/set_followups.py --scan 0,0.1,0.2,0.3   # pick_probability

The 34 sessions of bench/data/set_followups.jsonl (README_labelled_sets.md there) are asked turn
by turn with `rag.api.ask` (extractive) over the seed index, each with the history of earlier
(question, Answer) pairs, in three ways:

- `own`: the history holds the tool's own answers, as a user of the library sees them;
- `chat`: the same through `ui.chat`, the chat page's handler, whose history is the rendered
  messages (the papers are read back from the text) and the answers the page keeps;
- `labelled`: each earlier answer is replaced by one citing exactly its labelled papers, so a
  follow-up is judged on its own and not on what the first turn missed.

A follow-up ranges over `shown`: what the tool cited at the turn its labelled `previous_set`
came from (the first turn, or an "others" turn that listed the rest), in the order it cited them.
The pass rule, per kind, is what a user would accept:

- `pick` ("which of them ..."): the cited papers are exactly the labelled ones among `shown`,
  with no "none of them" line; when `shown` holds none of them (the first turn missed it), the
  answer says in a line that none of the previous papers is about it and cites a labelled one;
  when the first answer showed no paper at all, it cites a labelled one.
- `ordinal` ("the second one"): cites exactly the paper at that place in `shown` (the label's
  alphabetical `ordinal_of` gives the place).
- `others` ("and the rest?"): cites exactly `shown` less what the previous answer cited.
- `none_in_set`: the answer says in a line that none of the previous papers is about it
  (`prompts.NONE_IN_SET`, or `NONE_IN_SET_ONE` after one paper) and cites only papers of
  `outside_set`, at least one, none of `shown`.
  Should `shown` hold an `outside_set` paper (the tool listed more than the labels), the turn is
  scored as a pick of those papers.
- `collection` ("what do the papers in the collection say about ...") and `switch`: searched
  exactly as typed (no rewrite naming the previous papers), answered, citing a labelled paper
  and no previous paper that is not labelled for it.

First turns are scored apart (cited set equal to the labels), since a follow-up's outcome
depends on what the first answer showed. Results by kind and split (fit / heldout: ids
divisible by 3) go to bench/results/<out>.json and <out>.md (default out: set_followups).
`--sessions bench/data/bare_which_followups.jsonl` scores 30 choices phrased without "one" or
"of them" ("which is on graphs?", "does either use X?", "the one that ..."), each after a
first turn of set_followups.jsonl; a third (ids divisible by 3) held out.
`--scan` asks only the fitting sessions (own and labelled history) at each `pick_probability`
given, to choose it, and writes bench/results/set_followups_scan.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from rag import api, prompts  # noqa: E402
from rag.answer.condense import condense  # noqa: E402
from rag.answer.rendering import Answer, Citation  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.ingest.pipeline import ingest  # noqa: E402
from rag.ingest.wanted import question_terms  # noqa: E402
from rag.records import Hit, Paper  # noqa: E402
from rag.settings import Settings  # noqa: E402
from rag.text import content_stems  # noqa: E402

DATA = ROOT / "bench" / "data" / "set_followups.jsonl"
RESULTS = ROOT / "bench" / "results"
KINDS = ("pick", "ordinal", "others", "none_in_set", "collection", "switch")
MODES = ("own", "chat", "labelled")
SPLITS = ("fit", "heldout")


def read_sessions(path: Path = DATA) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def open_index(folder: Path) -> Index:
    """Return the seed index at `folder`, ingesting the seeds first when there is none."""
    settings = Settings(index_dir=folder, backend="extractive")
    if (folder / "chroma.sqlite3").exists():
        return Index(settings)
    index = Index(settings, create=True)
    ingest([ROOT / "seeds"], index)
    return index


def first_author(paper: Paper) -> str:
    return paper.authors[0] if paper.authors else paper.id


def cited(answer: Answer) -> list[str]:
    return [first_author(c.hit.paper) for c in answer.citations]


def says_none_in_set(answer: Answer) -> bool:
    """Whether the answer says that none of the previous answer's papers is about it (or, of
    one paper, that it is not)."""
    said = f"{answer.answer}\n{answer.notice or ''}"
    return prompts.NONE_IN_SET in said or prompts.NONE_IN_SET_ONE in said


def stand_in(question: str, authors: list[str], index: Index) -> Answer:
    """Return an answer that cites exactly `authors`' papers, in alphabetical order (the order
    the labels' `ordinal_of` assumes), one line each, as a list answer is shown."""
    by_author = {first_author(p): p for p in index.papers.values()}
    papers = [by_author[a] for a in sorted(authors, key=str.lower)]
    citations = tuple(
        Citation(n, Hit(p, n, 1.0, p.abstract[:320], 1.0), p.abstract.split(". ")[0])
        for n, p in enumerate(papers, 1)
    )
    text = "\n".join(f"- {c.evidence.rstrip('.')} [{c.n}]." for c in citations)
    return Answer(question, text, citations, (), False, (), "labelled")


class Asker:
    """Asks one session's turns in one of the `MODES`, keeping the history that mode keeps."""

    def __init__(self, index: Index, mode: str, settings: Settings) -> None:
        self.index, self.mode, self.settings = index, mode, settings
        self.pairs: list[tuple[str, Answer]] = []
        self.messages: list[dict[str, Any]] = []
        self.kept: list[Answer] = []  # chat: the answers the page keeps and hands the handler

    def ask(self, turn: dict[str, Any]) -> tuple[Answer, list[str]]:
        """Return the answer to `turn` and the papers the history now shows for it, in order."""
        question = turn["q"]
        if self.mode == "chat":
            from rag.ui import app as ui

            finals: list[Answer] = []
            steps = list(
                ui.chat(
                    question,
                    self.messages,
                    index=self.index,
                    settings=self.settings,
                    backend="extractive",
                    on_answer=finals.append,
                    earlier=list(self.kept),
                )
            )
            self.messages = steps[-1][0]
            self.kept += finals
            return finals[-1], cited(finals[-1])
        answer = api.ask(
            question,
            index=self.index,
            settings=self.settings,
            backend=None,
            history=list(self.pairs),
        )
        if self.mode == "labelled":
            labelled = turn["relevant"] or (turn.get("outside_set") or [])[:1]
            shown = stand_in(question, labelled, self.index)
            self.pairs.append((question, shown))
            return answer, cited(shown)
        self.pairs.append((question, answer))
        return answer, cited(answer)


def source_turn(turns: list[dict[str, Any]], i: int) -> int:
    """Return the earlier turn whose labelled list `turns[i]['previous_set']` is."""
    wanted = set(turns[i]["previous_set"])
    for j in range(i - 1, -1, -1):
        if turns[j].get("kind", "first") in ("first", "others") and set(turns[j]["relevant"]) == (
            wanted
        ):
            return j
    return 0


def judge(
    turns: list[dict[str, Any]], i: int, answer: Answer, history: list[list[str]]
) -> dict[str, Any]:
    """Return the expected papers and whether turn `i` passes (see the module docstring).

    `history[j]` is the papers the history shows for turn j (the tool's, or the labelled ones).
    """
    turn = turns[i]
    kind = turn["kind"]
    got = set(cited(answer))
    noted = says_none_in_set(answer)
    shown_list = history[source_turn(turns, i)]
    shown = set(shown_list)
    relevant = set(turn["relevant"])
    out: dict[str, Any] = {"shown": shown_list, "noted": noted}
    if kind == "none_in_set" and shown & set(turn["outside_set"]):
        kind, relevant = "pick", shown & set(turn["outside_set"])
    if kind == "pick":
        expected = relevant & shown
        if not shown:  # the first answer showed nothing: a question over the collection
            out["expected"] = sorted(relevant)
            out["passed"] = bool(got & relevant) and not answer.abstained
        elif expected:
            out["expected"] = sorted(expected)
            out["passed"] = got == expected and not noted
        else:  # the first answer never showed the labelled paper: "none of them", then it
            out["expected"] = ["(none of shown) " + ", ".join(sorted(relevant))]
            out["passed"] = noted and bool(got & relevant) and not got & shown
        out["target_shown"] = bool(expected)
    elif kind == "ordinal":
        place = turn["ordinal_of"].index(turn["relevant"][0])
        expected = {shown_list[place]} if place < len(shown_list) else set()
        out["expected"] = sorted(expected)
        out["passed"] = bool(expected) and got == expected and not noted
    elif kind == "others":
        expected = shown - set(history[i - 1])
        out["expected"] = sorted(expected)
        out["passed"] = bool(expected) and got == expected and not noted
    elif kind == "none_in_set":
        out["expected"] = ["(none of shown) " + ", ".join(sorted(turn["outside_set"]))]
        outside = set(turn["outside_set"])
        out["passed"] = noted and bool(got) and got <= outside and not got & shown
    else:  # collection, switch: a new question over all 40 papers
        forbid = set(turn["previous_set"]) - relevant
        out["expected"] = sorted(relevant)
        out["passed"] = (
            answer.standalone is None
            and not answer.abstained
            and bool(got & relevant)
            and not got & forbid
        )
    return out


def run(
    index: Index,
    sessions: list[dict[str, Any]],
    mode: str,
    verbose: bool = False,
    settings: Settings | None = None,
) -> list[dict[str, Any]]:
    """Ask every session in `mode`; return one row per turn."""
    rows = []
    for session in sessions:
        asker = Asker(index, mode, settings or index.settings)
        turns = session["turns"]
        history: list[list[str]] = []
        for i, turn in enumerate(turns):
            before = list(asker.messages if mode == "chat" else asker.pairs)
            answer, shown = asker.ask(turn)
            history.append(shown)
            row: dict[str, Any] = {
                "session": session["id"],
                "split": session["split"],
                "turn": i + 1,
                "kind": turn.get("kind", "first"),
                "question": turn["q"],
                "searched": answer.standalone,
                "cited": cited(answer),
                "abstained": answer.abstained,
            }
            if i == 0:
                row["expected"] = sorted(turn["relevant"])
                row["passed"] = set(cited(answer)) == set(turn["relevant"])
            else:
                row.update(judge(turns, i, answer, history))
            if row["kind"] == "pick" and not answer.abstained:
                row.update(quoted_on(turn["q"], before, answer))
            rows.append(row)
            if verbose:
                mark = "ok  " if row["passed"] else "FAIL"
                searched = f" -> {answer.standalone!r}" if answer.standalone else ""
                print(
                    f"{mark} {mode} {session['id']}.{i + 1} [{row['kind']}] {turn['q']!r}"
                    f"{searched}: cited {row['cited']}, want {row['expected']}"
                    + (" (noted none in set)" if row.get("noted") else ""),
                    flush=True,
                )
    return rows


def quoted_on(question: str, before: list[Any], answer: Answer) -> dict[str, int]:
    """How many of a pick's quoted lines hold a content word of the pick's own words ("Which
    one is on graphs?": "graph"), of how many: is each paper quoted on what it was picked for?"""
    words = condense(question, before).pick or question
    terms = set(question_terms(words))
    lines = [x for x in answer.sentences if x.get("shown") and x.get("citations")]
    held = sum(bool(terms & set(content_stems(x["text"]))) for x in lines)
    return {"pick_lines": len(lines), "pick_lines_on_words": held}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Passed / n by kind and split, follow-ups as a whole, and first turns."""
    out: dict[str, Any] = {}
    groups = {**{k: [k] for k in KINDS}, "follow-ups": list(KINDS), "first turns": ["first"]}
    for name, kinds in groups.items():
        cell = {}
        for split in (*SPLITS, "all"):
            chosen = [
                r for r in rows if r["kind"] in kinds and (split == "all" or r["split"] == split)
            ]
            cell[split] = {"passed": sum(r["passed"] for r in chosen), "n": len(chosen)}
        out[name] = cell
    picks = [r for r in rows if r["kind"] == "pick" and not r.get("target_shown", True)]
    out["picks whose target the first answer missed"] = {
        "passed": sum(r["passed"] for r in picks),
        "n": len(picks),
    }
    out["pick lines on the pick's words"] = {
        split: {
            "passed": sum(r.get("pick_lines_on_words", 0) for r in rows if r["split"] == split),
            "n": sum(r.get("pick_lines", 0) for r in rows if r["split"] == split),
        }
        for split in SPLITS
    }
    return out


def cell(c: dict[str, int]) -> str:
    pct = f" ({100 * c['passed'] / c['n']:.0f}%)" if c["n"] else ""
    return f"{c['passed']}/{c['n']}{pct}"


def write_markdown(data: dict[str, Any], path: Path) -> None:
    lines = [
        "# Follow-ups over a set",
        "",
        f"Command: `{data['command']}`: {data['sessions']} sessions of "
        f"`bench/data/{data['file']}`, extractive, over the seed index. Pass rules in the "
        "script's docstring. `own`: the history is the tool's own answers (`rag.api.ask`); "
        "`chat`: the same through the chat page's handler; `labelled`: each earlier answer cites "
        "exactly its labelled papers.",
        "",
    ]
    for mode in data["modes"]:
        s = mode["summary"]
        lines += [
            f"## {mode['mode']}",
            "",
            "| kind | fit | heldout | all |",
            "|---|---|---|---|",
        ]
        for name in (*KINDS, "follow-ups", "first turns"):
            c = s[name]
            bold = "**" if name == "follow-ups" else ""
            lines.append(
                f"| {bold}{name}{bold} | {cell(c['fit'])} | {bold}{cell(c['heldout'])}{bold} | "
                f"{cell(c['all'])} |"
            )
        missed = s["picks whose target the first answer missed"]
        lines += ["", f"Picks whose labelled paper the first answer did not show: {cell(missed)}."]
        on = s["pick lines on the pick's words"]
        lines += [
            "",
            "Quoted lines of picks that hold a content word of the pick's own words (each picked "
            f"paper quoted on what it was picked for): fit {cell(on['fit'])}, heldout "
            f"{cell(on['heldout'])}.",
        ]
        failed = [r for r in mode["rows"] if not r["passed"] and r["kind"] != "first"]
        lines += ["", f"Failed follow-ups ({len(failed)}):", ""]
        for r in failed:
            searched = f" → “{r['searched']}”" if r["searched"] else ""
            noted = " (says none in set)" if r.get("noted") else ""
            got = "abstained" if r["abstained"] else f"cited {r['cited']}"
            lines.append(
                f"- {r['session']}.{r['turn']} {r['split']} {r['kind']}: “{r['question']}”"
                f"{searched}: {got}{noted}; want {r['expected']}"
            )
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")


def scan(index: Index, sessions: list[dict[str, Any]], values: list[float]) -> None:
    """Print the fitting sessions' follow-ups passed at each `pick_probability` (own, labelled).

    Only the fitting sessions are asked: the held-out ones play no part in the choice.
    """
    fit = [s for s in sessions if s["split"] == "fit"]
    lines = ["| pick_probability | own | labelled |", "|---|---|---|"]
    for value in values:
        settings = index.settings.model_copy(update={"pick_probability": value})
        cells = []
        for mode in ("own", "labelled"):
            f = summarize(run(index, fit, mode, settings=settings))["follow-ups"]["fit"]
            cells.append(cell(f))
        lines.append(f"| {value} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    (RESULTS / "set_followups_scan.md").write_text(
        "# pick_probability on the fitting sessions\n\nCommand: `python "
        "bench/answers/set_followups.py "
        + " ".join(sys.argv[1:])
        + "`\n\n"
        + "\n".join(lines)
        + "\n",
        encoding="utf-8",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, default=ROOT / "bench" / "work" / "seeds-index")
    parser.add_argument("--modes", default=",".join(MODES), help="own, chat, labelled")
    parser.add_argument("--out", default="set_followups", help="name of the results files")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every turn")
    parser.add_argument(
        "--sessions", type=Path, default=DATA, help="another file of sessions of this form"
    )
    parser.add_argument(
        "--scan",
        default=None,
        help="comma-separated pick_probability values to try on the fitting sessions only "
        "(writes set_followups_scan.md)",
    )
    args = parser.parse_args()
    index = open_index(args.index)
    sessions = read_sessions(args.sessions)
    if args.scan:
        scan(index, sessions, [float(v) for v in args.scan.split(",")])
        return
    data: dict[str, Any] = {
        "command": "python bench/answers/set_followups.py " + " ".join(sys.argv[1:]),
        "sessions": len(sessions),
        "file": args.sessions.name,
        "modes": [],
    }
    RESULTS.mkdir(exist_ok=True)
    for mode in args.modes.split(","):
        if mode not in MODES:
            raise SystemExit(f"unknown mode {mode!r}: use {', '.join(MODES)}")
        started = time.perf_counter()
        rows = run(index, sessions, mode, args.verbose)
        summary = summarize(rows)
        data["modes"].append(
            {
                "mode": mode,
                "summary": summary,
                "seconds": round(time.perf_counter() - started, 1),
                "rows": rows,
            }
        )
        f = summary["follow-ups"]
        print(f"{mode}: follow-ups heldout {cell(f['heldout'])}, fit {cell(f['fit'])}", flush=True)
        (RESULTS / f"{args.out}.json").write_text(
            json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        write_markdown(data, RESULTS / f"{args.out}.md")


if __name__ == "__main__":
    main()
