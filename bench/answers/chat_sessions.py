"""Score realistic chat sessions over the seeds, driven exactly as the chat UI drives `rag.ask`.

    .venv/bin/python bench/answers/chat_sessions.py                        # extractive and local
    .venv/bin/python bench/answers/chat_sessions.py --backends extractive --out chat_sessions_before
    RAG_OPENAI_BASE_URL=http://127.0.0.1:8080/v1 RAG_OPENAI_MODEL=smollm2 \\
        .venv/bin/python bench/answers/chat_sessions.py --backends openai   # a configured server
    .venv/bin/python bench/answers/chat_sessions.py --backends openai --serve-llama  # start one
    here

Each session (`../shared/data/chat/sessions-dev.jsonl` by default; `--sessions FILE` for
another set in the same format) is asked turn by turn through `ui.chat`, the chat page's own
handler, so the history is the list of rendered chat messages the page keeps, and the final
`Answer` is taken from its `on_answer` hook. The pass rule is the data README's:

- a turn with `gold` passes when a gold first author is cited, no `forbid` one is, and the
  answer does not abstain;
- a turn with `abstain` passes when the answer abstains;
- a Chinese turn (`lang: "zh"`) passes when it cites a gold paper, or when it cites nothing,
  does not abstain and says plainly that only English questions can be answered.

Turns are counted by kind: first turns (topics), follow-ups, topic switches (turns with
`forbid`), off-topic and Chinese; a false abstention is a turn with `gold` that abstained.
Writes bench/results/<out>.json and <out>.md (default out: chat_sessions). Exits with a
message and status 0 when the session file is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

RESULTS = ROOT / "bench" / "results"
KINDS = ("topics", "follow-ups", "switches", "off-topic", "chinese")
DEFAULT_OPENAI_URL = "https://api.openai.com/v1"


def shared_data() -> Path:
    """Return the shared data folder: `RAG_SHARED_DATA`, or `shared/data` beside the checkout."""
    if os.environ.get("RAG_SHARED_DATA"):
        return Path(os.environ["RAG_SHARED_DATA"])
    for parent in ROOT.parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return ROOT.parent / "shared" / "data"


def read_sessions(path: Path) -> list[dict[str, Any]]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise SystemExit(f"{path}:{n}: invalid JSON ({exc})") from None
    return rows


def kind_of(turn: dict[str, Any], position: int) -> str:
    """Return the kind a turn is counted under (see the module docstring)."""
    if turn.get("lang") == "zh":
        return "chinese"
    if turn.get("abstain"):
        return "off-topic"
    if turn.get("forbid"):
        return "switches"
    return "topics" if position == 0 else "follow-ups"


def says_english_only(text: str) -> bool:
    """Whether an answer tells the user plainly that only English questions are understood."""
    low = text.lower()
    return "english" in low and any(w in low for w in ("only", "read", "understand"))


def judge(turn: dict[str, Any], answer: Any) -> dict[str, Any]:
    """Return the verdict on one turn's final `Answer` by the pass rule."""
    cited = [c.hit.paper.authors[0] if c.hit.paper.authors else "" for c in answer.citations]
    gold, forbid = set(turn.get("gold", ())), set(turn.get("forbid", ()))
    if turn.get("abstain"):
        passed = bool(answer.abstained) and not cited
    else:
        passed = bool(gold & set(cited)) and not forbid & set(cited) and not answer.abstained
        if not passed and turn.get("lang") == "zh":
            text = f"{answer.answer} {answer.notice or ''}"
            passed = not cited and not answer.abstained and says_english_only(text)
    return {
        "cited": cited,
        "abstained": bool(answer.abstained),
        "false_abstention": bool(gold) and bool(answer.abstained),
        "bled": sorted(forbid & set(cited)),
        "passed": passed,
    }


def _show(session: str, position: int, question: str, answer: Any) -> None:
    searched = f" -> searched {answer.standalone!r}" if answer.standalone else ""
    cited = [c.hit.paper.authors[0] if c.hit.paper.authors else "" for c in answer.citations]
    got = "abstained" if answer.abstained else f"cited {cited}"
    shown = [s for s in answer.sentences if s.get("shown") and not s.get("note")]
    if shown and answer.backend != "extractive":  # whose sentence heads it: the model's or quoted
        got += " (model first)" if shown[0].get("reason") != "quoted" else " (quoted first)"
    print(f"  {session}.{position + 1} {question!r}{searched}: {got}", flush=True)


def run_session(
    session: dict[str, Any], index: Any, settings: Any, backend: str, verbose: bool = False
) -> list[dict[str, Any]]:
    """Ask every turn of a session through the chat handler; return one row per turn."""
    from rag.ui import app as ui

    history: list[dict[str, Any]] = []
    kept: list[Any] = []  # the answers so far, which the page keeps and hands the handler
    rows = []
    for position, turn in enumerate(session["turns"]):
        finals: list[Any] = []
        started = time.perf_counter()
        steps = list(
            ui.chat(
                turn["q"],
                history,
                index=index,
                settings=settings,
                backend=backend,
                on_answer=finals.append,
                earlier=list(kept),
            )
        )
        kept += finals
        seconds = time.perf_counter() - started
        assert steps and finals, f"{session['id']}: no answer to {turn['q']!r}"
        history = steps[-1][0]
        answer = finals[-1]
        if verbose:
            _show(session["id"], position, turn["q"], answer)
        rows.append(
            {
                "session": session["id"],
                "turn": position + 1,
                "kind": kind_of(turn, position),
                # The questions stay in the shared data, not in bench/results.
                "rewritten": getattr(answer, "standalone", None) is not None,
                "gold": turn.get("gold", []),
                "forbid": turn.get("forbid", []),
                "seconds": round(seconds, 3),
                **judge(turn, answer),
            }
        )
    return rows


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_kind = {k: {"passed": 0, "n": 0} for k in KINDS}
    for row in rows:
        by_kind[row["kind"]]["n"] += 1
        by_kind[row["kind"]]["passed"] += int(row["passed"])
    times = sorted(r["seconds"] for r in rows)
    return {
        "by_kind": by_kind,
        "false_abstentions": sum(r["false_abstention"] for r in rows),
        "bleeding_turns": sum(bool(r["bled"]) for r in rows),
        "passed": sum(r["passed"] for r in rows),
        "turns": len(rows),
        "median_turn_s": times[len(times) // 2] if times else None,
    }


def figures(summary: dict[str, Any]) -> str:
    parts = [f"{k} {v['passed']}/{v['n']}" for k, v in summary["by_kind"].items() if v["n"]]
    return ", ".join(parts) + f", {summary['false_abstentions']} false abstentions"


@contextmanager
def openai_settings(settings: Any, serve_llama: bool) -> Iterator[Any]:
    """Yield settings for the openai backend (None: no server configured or started)."""
    if settings.openai_base_url != DEFAULT_OPENAI_URL:
        yield settings
        return
    if not serve_llama:
        yield None
        return

    from bench.answers.answers import llama_server  # the same server bench/answers/answers.py uses
    from rag.backends.local import bundled_model_path

    with llama_server(bundled_model_path(), settings.local_threads) as url:
        if url is None:
            yield None
            return
        yield settings.model_copy(
            update={"openai_base_url": url, "openai_model": "smollm2", "openai_api_key": None}
        )


def write_markdown(data: dict[str, Any], path: Path) -> None:
    lines = [
        "# Chat sessions over the seeds",
        "",
        f"Command: `{data['command']}` ({data['sessions']} sessions, {data['turns']} turns from "
        f"`{data['source']}`; driven through `ui.chat` with the chat history as the page keeps "
        "it; pass rule in `../shared/data/chat/README.md`).",
        "",
        "| backend | " + " | ".join(KINDS) + " | false abstentions | turns citing the previous "
        "topic | median s/turn |",
        "|---|" + "---|" * (len(KINDS) + 3),
    ]
    for b in data["backends"]:
        s = b["summary"]
        cells = [f"{s['by_kind'][k]['passed']}/{s['by_kind'][k]['n']}" for k in KINDS]
        lines.append(
            f"| {b['backend']} | " + " | ".join(cells) + f" | {s['false_abstentions']} | "
            f"{s['bleeding_turns']} | {s['median_turn_s']} |"
        )
    for b in data["backends"]:
        failed = [r for r in b["rows"] if not r["passed"]]
        lines += ["", f"## {b['backend']}: failed turns ({len(failed)})", ""]
        for r in failed:
            searched = " (rewritten)" if r["rewritten"] else ""
            got = "abstained" if r["abstained"] else f"cited {r['cited']}"
            want = "abstain" if r["kind"] == "off-topic" else f"gold {r['gold']}"
            lines.append(
                f"- {r['session']}.{r['turn']} {r['kind']}{searched}: {got}, "
                f"want {want}" + (f", forbid {r['forbid']}" if r["forbid"] else "")
            )
    for note in data["notes"]:
        lines += ["", note]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="extractive,local,openai")
    parser.add_argument("--sessions", type=Path, default=None, help="a sessions JSONL file")
    parser.add_argument("--out", default="chat_sessions", help="name of the results files")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every turn")
    parser.add_argument(
        "--serve-llama",
        action="store_true",
        help="for openai with no server configured: serve the bundled GGUF with llama_cpp.server",
    )
    args = parser.parse_args()
    source = args.sessions or shared_data() / "chat" / "sessions-dev.jsonl"
    if not source.is_file():
        print(f"No sessions at {source}: nothing to score (give --sessions FILE).")
        return
    sessions = read_sessions(source)

    from rag.index.paper_index import Index
    from rag.ingest.pipeline import ingest
    from rag.settings import Settings

    settings = Settings(index_dir=ROOT / "index_store" / "bench-seeds", temperature=0.0)
    index = Index(settings, create=True)
    ingest([ROOT / "seeds"], index)
    data: dict[str, Any] = {
        "command": "python bench/answers/chat_sessions.py " + " ".join(sys.argv[1:]),
        "source": str(source),
        "sessions": len(sessions),
        "turns": sum(len(s["turns"]) for s in sessions),
        "backends": [],
        "notes": [],
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    for name in args.backends.split(","):
        started = time.perf_counter()
        if name == "openai":
            with openai_settings(settings, args.serve_llama) as api:
                if api is None:
                    note = "openai: skipped, no server configured (RAG_OPENAI_BASE_URL)."
                    data["notes"].append(note)
                    print(note)
                    continue
                rows = [r for s in sessions for r in run_session(s, index, api, name, args.verbose)]
        elif name in ("extractive", "local"):
            rows = [
                r for s in sessions for r in run_session(s, index, settings, name, args.verbose)
            ]
        else:
            raise SystemExit(f"unknown backend {name!r}: use extractive, local or openai")
        summary = summarize(rows)
        data["backends"].append(
            {
                "backend": name,
                "summary": summary,
                "seconds": round(time.perf_counter() - started, 1),
                "rows": rows,
            }
        )
        print(f"{name}: {figures(summary)}", flush=True)
        # Written after every backend: a run stopped midway keeps what it measured.
        (RESULTS / f"{args.out}.json").write_text(
            json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8"
        )
        write_markdown(data, RESULTS / f"{args.out}.md")


if __name__ == "__main__":
    main()
