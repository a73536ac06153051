"""Does an answer open with what the papers found? Scored on SciFact claims and seed questions.

    .venv/bin/python bench/answers/finding_first.py scifact TAG --index DIR [--part held_out]
        [--backend local]
    .venv/bin/python bench/answers/finding_first.py aims TAG --index DIR [--part held_out]
        [--backend local]
    .venv/bin/python bench/answers/finding_first.py seeds TAG --index DIR [--split heldout]
        [--questions bench/data/quantity_questions.jsonl] [--backend local]
    .venv/bin/python bench/answers/finding_first.py lists TAG --index DIR [--split heldout]
    .venv/bin/python bench/answers/finding_first.py followups TAG --index DIR [--split heldout]
    .venv/bin/python bench/answers/finding_first.py report

`scifact`: every SciFact training claim with labelled evidence is asked (`rag ask`, extractive,
the claim as the question) over the SciFact corpus index (`rag.evaluation.open_eval_index`,
built in DIR/eval-scifact), and looked up (`rag cite`). Scored: the answer's first sentence is an
annotated rationale sentence (of all asked, and of those whose first sentence cites a paper
with evidence), and the cite match (the sentence shown for a labelled paper) is one. The claim
parts are those of `bench/citations/stance_data.py` (fit / calib / held_out by a hash of the id):
`tune` is fit + calib, where the sentence choice is fitted; `held_out` is only reported.

`aims`: yes/no questions made from the aims of structured SciFact abstracts ("Does X?" from
"To determine whether X."), as the authors of biomedical question sets write them, over the same
index: the role the authors gave the sentence the answer opens with (results or conclusions
wanted). Parts as `bench/answers/sentence_choice.py aim_cases` (`tune`: its fitting part).

`seeds`: bench/data/role_questions.jsonl over the seed index (`--backend local`: answered by the
bundled model, whose sentences are checked; else extractive): the answer's line for the labelled
paper (the first sentence citing it; in a list, that paper's line) is the labelled `want`
sentence (or an `also_ok` one), per kind (finding / definition / motivation). `--questions`
scores another set of that form instead (bench/data/quantity_questions.jsonl: questions after
an amount, an effect's size or a margin, in many phrasings, written blind; a third held out;
bench/data/named_role_questions.jsonl: questions that name the paper's method, written blind,
all held out).

`lists`: the list questions of bench/data/list_lines.jsonl over the seed index: for each
labelled paper the answer cites, its line is the labelled sentence (or an acceptable one).

`followups`: bench/data/aspect_lines.jsonl, the generic follow-ups of
bench/data/generic_followups.jsonl ("privacy guarantees?" after a list on federated learning)
asked in chat after their first question: for each labelled paper the second answer cites, its
line is the sentence on the asked aspect (labelled blind; same split as the session).

The sentence choice these score is fitted by `bench/answers/sentence_choice.py`, which uses
`seed_cases` and `scifact_cases` below to record what the composer saw.

Both record the role (`rag.ingest.roles`) of the sentence the answer opens with, and whether
it is a fragment ("To determine whether ..."). Results: bench/results/finding_first_TAG.json;
`report` writes bench/results/finding_first.md with every recorded tag side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


from bench.citations import stance_data  # noqa: E402
from bench.citations.stance_eval import is_rationale  # noqa: E402
from rag import api  # noqa: E402
from rag.answer import pipeline  # noqa: E402
from rag.answer.evidence import paper_sentences  # noqa: E402
from rag.index.paper_index import Index  # noqa: E402
from rag.ingest import wanted as wanted_module  # noqa: E402
from rag.ingest.roles import sentence_roles  # noqa: E402
from rag.ingest.sections import abstract_sentences  # noqa: E402
from rag.settings import Settings  # noqa: E402

RESULTS = ROOT / "bench" / "results"
ROLE_QUESTIONS = ROOT / "bench" / "data" / "role_questions.jsonl"
QUANTITY_QUESTIONS = ROOT / "bench" / "data" / "quantity_questions.jsonl"
# Written blind by three helpers who read only the seed abstracts (stop 59): two fitting sets of
# 90 (one in a skimming student's voice) and a held-out set of 80, many worded from a paper's
# aim while asking what it found.
BLIND_QUESTIONS = ROOT / "bench" / "data" / "finding_questions_blind.jsonl"
LIST_LINES = ROOT / "bench" / "data" / "list_lines.jsonl"
ASPECT_LINES = ROOT / "bench" / "data" / "aspect_lines.jsonl"
PHRASING_NEEDS = ROOT / "bench" / "data" / "phrasing_needs.jsonl"
# A need's phrasings that ask for a list: each gets the need's labelled line per paper.
LIST_PHRASINGS = ("which_papers", "what_do_papers_say", "summarize")


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def closest(shown: str, sentences: list[str]) -> int:
    """Index of the sentence `shown` was made from (it may have lost an opener or gained a name).

    A line shown with the sentence its subject points back to ("Most prior methods ...
    These approaches assume ...") holds both whole: the later one is the one chosen."""
    a = words(shown)
    overlap = [len(a & words(s)) / max(1, len(words(s))) for s in sentences]
    return max(reversed(range(len(sentences))), key=overlap.__getitem__) if sentences else -1


def first_line(answer: api.Answer, author: str | None = None) -> tuple[str, str | None]:
    """The first shown sentence of an answer and the id of the paper it cites first; with
    `author`, the first that cites the paper of that first author (its line in a list)."""
    by_n = {c.n: c for c in answer.citations}
    for s in answer.sentences:
        if s.get("shown") and not s.get("note") and s.get("citations"):
            paper = by_n[s["citations"][0]].hit.paper
            if author is None or (paper.authors and paper.authors[0] == author):
                return s["text"], str(paper.external_id or paper.id)
    return "", None


def role_of(shown: str, abstract: str) -> str:
    pairs = sentence_roles(abstract)
    i = closest(shown, [s for s, _ in pairs])
    return pairs[i][1] if i >= 0 else "none"


def is_fragment(text: str) -> bool:
    """`rag.ingest.wanted.is_fragment` of the sentence, without its "Chen et al. (X): "."""
    return bool(text) and wanted_module.is_fragment(re.sub(r"^[^:]{1,80}:\s+", "", text))


# An aim in a structured abstract ("To determine whether X is associated with Y."), made into
# the yes/no question its authors set out to answer ("Does X is associated with Y?": the
# embedding does not mind the grammar), as biomedical question sets are written.
AIM = re.compile(
    r"^(?:(?:the\s+)?(?:aim|purpose|objective|goal)s?\s+(?:of\s+this\s+study\s+)?(?:was|is|were)"
    r"\s+to\s+|to\s+|we\s+)(?:\w+\s+){0,3}?(?:whether|if)\s+(.+?)\.?$",
    re.IGNORECASE,
)


def scifact_index(folder: str) -> Index:
    """The SciFact corpus index `rag eval` built in FOLDER/eval-scifact."""
    settings = Settings(index_dir=Path(folder))
    return Index(
        settings.model_copy(
            update={"index_dir": Path(folder) / "eval-scifact", "collection": "eval-scifact"}
        )
    )


@dataclass(frozen=True)
class StructuredAim:
    """The aim of a structured abstract that reports results: "To determine whether X."."""

    paper: Any  # rag.records.Paper
    pairs: list[tuple[str, str]]  # the abstract's sentences and the roles its headings give
    sentence: str  # the aim as written
    clause: str  # X
    held_out: bool  # a third of the abstracts, by a hash of the id


def structured_aims(index: Index) -> Iterator[StructuredAim]:
    """Every abstract of `index` with headings, a result or conclusion and an aim (`AIM`)."""
    for paper in index.papers.values():
        pairs = abstract_sentences(paper.abstract)
        if not any(role in ("result", "conclusion") for _, role in pairs):
            continue
        found = next(((s, m) for s, r in pairs if r != "result" and (m := AIM.match(s))), None)
        if found is not None:
            held_out = zlib.crc32(paper.id.encode()) % 3 == 0
            yield StructuredAim(paper, pairs, found[0], found[1].group(1), held_out)


def backend_of(args: argparse.Namespace) -> str | None:
    """The backend `--backend` names, as `api.ask` takes it (None: extractive)."""
    return None if args.backend == "extractive" else str(args.backend)


def set_name(name: str, args: argparse.Namespace) -> str:
    """A result's set name, with the backend when it is not the extractive one."""
    return name if args.backend == "extractive" else f"{name} ({args.backend})"


def aims(args: argparse.Namespace) -> dict[str, Any]:
    """Yes/no questions from the aims of structured SciFact abstracts, as authors write
    biomedical question sets ("Does X?" from "To determine whether X."): the role the authors
    gave the sentence the answer opens with, when it cites that abstract. The parts are those
    of `bench/answers/sentence_choice.py aim_cases` (held out: a third, by a hash of the id)."""
    index = scifact_index(args.index)
    rows = []
    for aim in structured_aims(index):
        if aim.held_out != (args.part == "held_out"):
            continue
        question = f"Does {aim.clause}?"
        answer = api.ask(question, index=index, settings=index.settings, backend=backend_of(args))
        text, doc = first_line(answer)
        role = "other paper" if doc else "none"
        if doc == str(aim.paper.external_id or aim.paper.id):
            i = closest(text, [s for s, _ in aim.pairs])
            role = (aim.pairs[i][1] or "unlabelled") if i >= 0 else "none"
        rows.append({"id": aim.paper.id, "q": question, "first": text, "role": role})
    found = sum(r["role"] in ("result", "conclusion") for r in rows)
    return {
        "set": set_name(f"aims:{args.part}", args),
        "asked": len(rows),
        "wanted_first": share(found, len(rows)),
        "first_role": dict(Counter(r["role"] for r in rows)),
        "fragments": sum(is_fragment(r["first"]) for r in rows),
        "rows": rows,
    }


def scifact(args: argparse.Namespace) -> dict[str, Any]:
    index = scifact_index(args.index)
    abstracts = {str(p.external_id or p.id): p.abstract for p in index.papers.values()}
    sentences = stance_data.load_sentences()
    parts = {"tune": ("fit", "calib"), "held_out": ("held_out",)}[args.part]
    claims = [c for c in stance_data.load_claims() if c.evidence and c.part in parts]
    claims = claims[: args.limit] if args.limit else claims
    rows = []
    for n, claim in enumerate(claims, 1):
        rationale = {
            ev.doc_id: [sentences[ev.doc_id][i] for i in ev.rationale] for ev in claim.evidence
        }
        answer = api.ask(claim.text, index=index, settings=index.settings, backend=backend_of(args))
        text, doc = first_line(answer)
        cited = api.cite(claim.text, index=index, settings=index.settings)
        shown = {
            str(s.paper.external_id or s.paper.id): s.sentence
            for s in (*cited.supports, *cited.contradicts)
        }
        row = {
            "id": claim.id,
            "abstained": answer.abstained,
            "first": text,
            "doc": doc,
            "right_paper": doc in rationale,
            "rationale_first": bool(doc in rationale and is_rationale(text, rationale[doc])),
            "role": role_of(text, abstracts[doc]) if doc in abstracts else "none",
            "fragment": is_fragment(text),
            "cite_offered": [d for d in rationale if d in shown],
            "cite_rationale": [
                d for d in rationale if d in shown and is_rationale(shown[d], rationale[d])
            ],
        }
        rows.append(row)
        if n % 20 == 0:
            print(f"{n}/{len(claims)}", flush=True)
    right = [r for r in rows if r["right_paper"]]
    offered = sum(len(r["cite_offered"]) for r in rows)
    return {
        "set": set_name(f"scifact:{args.part}", args),
        "asked": len(rows),
        "rationale_first": share(sum(r["rationale_first"] for r in rows), len(rows)),
        "right_paper": share(len(right), len(rows)),
        "rationale_first_given_right_paper": share(
            sum(r["rationale_first"] for r in right), len(right)
        ),
        "cite_rationale": share(sum(len(r["cite_rationale"]) for r in rows), offered),
        "first_role": dict(Counter(r["role"] for r in right)),
        "fragments": sum(r["fragment"] for r in rows),
        "rows": rows,
    }


def seeds(args: argparse.Namespace) -> dict[str, Any]:
    settings = Settings(index_dir=Path(args.index))
    index = Index(settings)
    by_author = {p.authors[0] if p.authors else "": p for p in index.papers.values()}
    rows = []
    path = Path(args.questions) if args.questions else ROLE_QUESTIONS
    for q in (json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()):
        if args.split != "all" and q["split"] != args.split:
            continue
        q.setdefault("kind", "finding")
        answer = api.ask(q["q"], index=index, settings=settings, backend=backend_of(args))
        text, _ = first_line(answer, q["paper"])
        paper = by_author[q["paper"]]
        wanted = [q["want"], *q["also_ok"]]
        sents = [s for s, _ in sentence_roles(paper.abstract)]
        got = closest(text, sents) if text else -1
        ok = got >= 0 and any(closest(w, sents) == got for w in wanted)
        rows.append(
            {
                "id": q["id"],
                "kind": q["kind"],
                "first": text,
                "ok": ok,
                "role": role_of(text, paper.abstract) if text else "none",
                "fragment": is_fragment(text),
            }
        )
    kinds = sorted({r["kind"] for r in rows})
    return {
        "set": set_name(f"{path.stem if args.questions else 'seeds'}:{args.split}", args),
        "asked": len(rows),
        "wanted_first": share(sum(r["ok"] for r in rows), len(rows)),
        **{
            f"wanted_first_{k}": share(
                sum(r["ok"] for r in rows if r["kind"] == k), sum(r["kind"] == k for r in rows)
            )
            for k in kinds
        },
        "first_role": dict(Counter(r["role"] for r in rows)),
        "fragments": sum(r["fragment"] for r in rows),
        "rows": rows,
    }


@dataclass
class Case:
    """One question as the composer saw it, for the labelled paper, and the wanted sentences."""

    question: str
    evidence: Any  # rag.answer.evidence.Evidence of the labelled paper
    relevance: Any  # rag.answer.relevance.RelevanceCheck of the answer
    targets: set[str]


def captured(
    index: Index, question: str, history: list[Any] | None = None
) -> tuple[list[Any], Any, str] | None:
    """Answer `question` (after `history`); return the evidence, relevance check and question
    (as searched: corrected, condensed) its composer was given."""
    seen: list[tuple[list[Any], Any, str]] = []
    original = pipeline.compose

    def spy(q: str, evidence: list[Any], checker: Any, relevance: Any, **kw: Any) -> Any:
        seen.append((evidence, relevance, q))
        return original(q, evidence, checker, relevance, **kw)

    pipeline.compose = spy  # type: ignore[assignment]
    try:
        api.ask(question, index=index, settings=index.settings, backend=None, history=history)
    finally:
        pipeline.compose = original  # type: ignore[assignment]
    return seen[0] if seen else None


def seed_cases(index: Index, split: str, path: Path = ROLE_QUESTIONS) -> list[Case]:
    cases = []
    for q in (json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()):
        if q["split"] != split or (got := captured(index, q["q"])) is None:
            continue
        for ev in got[0]:
            if ev.hit.paper.authors and ev.hit.paper.authors[0] == q["paper"]:
                sents = paper_sentences(ev.hit.paper)
                targets = {sents[closest(w, sents)] for w in [q["want"], *q["also_ok"]]}
                cases.append(Case(got[2], ev, got[1], targets))
    return cases


def list_questions(split: str) -> dict[str, list[dict[str, Any]]]:
    """The list questions of bench/data/list_lines.jsonl in `split` ("all": both), each with its
    labelled lines (a need's label holds for each of its `LIST_PHRASINGS`)."""
    if not LIST_LINES.exists():
        return {}
    needs = {
        n["need"]: n
        for n in (json.loads(x) for x in PHRASING_NEEDS.read_text(encoding="utf-8").splitlines())
    }
    asked: dict[str, list[dict[str, Any]]] = {}
    for line in (json.loads(x) for x in LIST_LINES.read_text(encoding="utf-8").splitlines()):
        if split != "all" and line["split"] != split:
            continue
        texts = (
            [needs[line["id"]]["phrasings"][f] for f in LIST_PHRASINGS]
            if line["form"] == "need"
            else [line["q"]]
        )
        for text in texts:
            asked.setdefault(text, []).append(line)
    return asked


def wanted_index(line: dict[str, Any], sents: list[str]) -> set[int]:
    """The places in `sents` of a labelled line's wanted and acceptable sentences."""
    return {closest(w, sents) for w in [line["want"], *line["also_ok"]]}


Places = Callable[[dict[str, Any], list[str]], set[int]]  # `wanted_index` or `covered`


def labelled_cases(
    got: tuple[list[Any], Any, str], lines: list[dict[str, Any]], places: Places
) -> list[Case]:
    """The cases of the labelled `lines` whose paper is among a `captured` answer's evidence."""
    labelled = {line["paper"]: line for line in lines}
    cases = []
    for ev in got[0]:
        line = labelled.get(ev.hit.paper.authors[0] if ev.hit.paper.authors else "")
        if line is not None:
            sents = paper_sentences(ev.hit.paper)
            cases.append(Case(got[2], ev, got[1], {sents[i] for i in places(line, sents)}))
    return cases


def line_rows(
    answer: api.Answer,
    lines: list[dict[str, Any]],
    by_author: dict[str, Any],
    places: Places,
    asked: dict[str, str],
) -> list[dict[str, Any]]:
    """For each labelled line, the answer's line for its paper and whether it is a labelled one;
    `asked` (the question, and what came before it) opens each row."""
    rows = []
    for line in lines:
        text, _ = first_line(answer, line["paper"])
        sents = [s for s, _ in sentence_roles(by_author[line["paper"]].abstract)]
        got = closest(text, sents) if text else -1
        rows.append(
            {
                **asked,
                "paper": line["paper"],
                "line": text,
                "cited": bool(text),
                "ok": got >= 0 and got in places(line, sents),
                "fragment": is_fragment(text),
            }
        )
    return rows


def line_result(name: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The share of cited labelled papers whose line is a labelled one, with the rows."""
    cited = [r for r in rows if r["cited"]]
    return {
        "set": name,
        "labelled_lines": len(rows),
        "cited": len(cited),
        "wanted_line_given_cited": share(sum(r["ok"] for r in cited), len(cited)),
        "fragments": sum(r["fragment"] for r in cited),
        "rows": rows,
    }


def list_cases(index: Index, split: str) -> list[Case]:
    """The labelled line of each relevant paper of a list question (bench/data/list_lines.jsonl:
    the paper's sentence on the question's topic), for the papers the answer uses."""
    cases = []
    for question, lines in list_questions(split).items():
        if (got := captured(index, question)) is not None:
            cases += labelled_cases(got, lines, wanted_index)
    return cases


def lists(args: argparse.Namespace) -> dict[str, Any]:
    """Each list question asked; for every labelled paper the answer cites, is its line the
    labelled sentence (or an acceptable one)?"""
    settings = Settings(index_dir=Path(args.index))
    index = Index(settings)
    by_author = {p.authors[0] if p.authors else "": p for p in index.papers.values()}
    rows = []
    for question, lines in list_questions(args.split).items():
        answer = api.ask(question, index=index, settings=settings, backend=None)
        rows += line_rows(answer, lines, by_author, wanted_index, {"q": question})
    return line_result(f"seed lists:{args.split}", rows)


def covered(line: dict[str, Any], sents: list[str]) -> set[int]:
    """The places in `sents` of the sentences a labelled line's wanted and acceptable ones hold
    whole: a label copied from the raw abstract may span two of the product's sentences."""
    labels = [words(w) for w in [line["want"], *line["also_ok"]]]
    return {
        i
        for i, s in enumerate(sents)
        if any(len(a & words(s)) >= 0.9 * max(1, len(words(s))) for a in labels)
    }


def aspect_sessions(split: str) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The labelled lines of bench/data/aspect_lines.jsonl in `split` ("all": both), by session
    (first question, follow-up); lines whose paper does not address the follow-up are left out."""
    if not ASPECT_LINES.exists():
        return {}
    sessions: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for line in (json.loads(x) for x in ASPECT_LINES.read_text(encoding="utf-8").splitlines()):
        if (split == "all" or line["split"] == split) and line["want"]:
            sessions.setdefault((line["first"], line["q"]), []).append(line)
    return sessions


def aspect_cases(index: Index, split: str) -> list[Case]:
    """The labelled line of each paper a generic follow-up's answer uses (see `followups`)."""
    cases = []
    for (first, question), lines in aspect_sessions(split).items():
        before = api.ask(first, index=index, settings=index.settings, backend=None)
        if (got := captured(index, question, [(first, before)])) is not None:
            cases += labelled_cases(got, lines, covered)
    return cases


def followups(args: argparse.Namespace) -> dict[str, Any]:
    """Each generic follow-up asked after its first question; for every labelled paper the
    second answer cites, is its line the sentence on the asked aspect?"""
    settings = Settings(index_dir=Path(args.index))
    index = Index(settings)
    by_author = {p.authors[0] if p.authors else "": p for p in index.papers.values()}
    rows = []
    for (first, question), lines in aspect_sessions(args.split).items():
        before = api.ask(first, index=index, settings=settings, backend=None)
        answer = api.ask(
            question, index=index, settings=settings, backend=None, history=[(first, before)]
        )
        rows += line_rows(answer, lines, by_author, covered, {"first": first, "q": question})
    return line_result(f"aspect follow-ups:{args.split}", rows)


def scifact_cases(index: Index, parts: tuple[str, ...]) -> list[Case]:
    sentences = stance_data.load_sentences()
    cases = []
    for claim in stance_data.load_claims():
        if not claim.evidence or claim.part not in parts:
            continue
        if (got := captured(index, claim.text)) is None:
            continue
        rationale = {
            ev.doc_id: [sentences[ev.doc_id][i] for i in ev.rationale] for ev in claim.evidence
        }
        for ev in got[0]:
            doc = str(ev.hit.paper.external_id or ev.hit.paper.id)
            if doc in rationale:
                sents = paper_sentences(ev.hit.paper)
                targets = {s for s in sents if is_rationale(s, rationale[doc])}
                cases.append(Case(got[2], ev, got[1], targets))
                break
    return cases


def share(a: int, b: int) -> float:
    return round(a / b, 3) if b else 0.0


def report(_: argparse.Namespace) -> None:
    lines = [
        "# Does the answer open with the finding? (`bench/answers/finding_first.py`)",
        "",
        "| tag | set | asked | wanted / rationale first | given the right paper | cite match "
        "is rationale | opening role (right paper) | fragments |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for path in sorted(RESULTS.glob("finding_first_*.json")):
        for result in json.loads(path.read_text()):
            first = result.get(
                "rationale_first",
                result.get("wanted_first", result.get("wanted_line_given_cited")),
            )
            roles = ", ".join(f"{k} {v}" for k, v in sorted(result.get("first_role", {}).items()))
            lines.append(
                f"| {path.stem.removeprefix('finding_first_')} | {result['set']} | "
                f"{result.get('asked', result.get('cited'))} | {first:.3f} | "
                f"{result.get('rationale_first_given_right_paper', '')} | "
                f"{result.get('cite_rationale', '')} | {roles} | {result['fragments']} |"
            )
    (RESULTS / "finding_first.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    for name, fn in (
        ("scifact", scifact),
        ("aims", aims),
        ("seeds", seeds),
        ("lists", lists),
        ("followups", followups),
    ):
        p = sub.add_parser(name)
        p.add_argument("tag")
        p.add_argument("--index", required=True)
        p.add_argument("--part", default="held_out", choices=("tune", "held_out"))
        p.add_argument("--split", default="heldout", choices=("fit", "heldout", "all"))
        p.add_argument("--limit", type=int, default=0)
        p.add_argument("--questions", default="", help="seeds: another set of role_questions' form")
        p.add_argument(
            "--backend",
            default="extractive",
            choices=("extractive", "local"),
            help="seeds, scifact: who writes the answer (local: the bundled SmolLM2, seconds each)",
        )
        p.set_defaults(fn=fn)
    sub.add_parser("report").set_defaults(fn=report)
    args = parser.parse_args()
    if args.cmd == "report":
        args.fn(args)
        return
    if args.cmd == "scifact" and not stance_data.available():
        sys.exit("SciFact claims not found in ../shared/data: skipped.")
    result = args.fn(args)
    path = RESULTS / f"finding_first_{args.tag}.json"
    old = (
        [r for r in json.loads(path.read_text()) if r["set"] != result["set"]]
        if path.exists()
        else []
    )
    path.write_text(json.dumps([*old, result], indent=1, ensure_ascii=False) + "\n")
    print({k: v for k, v in result.items() if k != "rows"})


if __name__ == "__main__":
    main()
