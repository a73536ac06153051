"""Family names, method names, labels and citation keys."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rag.ingest.naming import (
    ascii_slug,
    assign_keys,
    author_phrase,
    citation_key,
    clean_abstract,
    derive_label,
    family_name,
    method_name,
    shown_family_name,
    split_authors,
    unique_keys,
)
from rag.ingest.parsers import parse_path
from rag.records import Paper

SEEDS = sorted((Path(__file__).parents[2] / "seeds").glob("*.txt"))


def _seed_papers() -> list[Paper]:
    return [paper for path in SEEDS for paper in parse_path(path).papers]


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("Jean-Michel Loubes", "Loubes"),
        ("Tse-Hsun (Peter) Chen", "Chen"),
        ("Xiaoyi MAI", "MAI"),
        ("周欣", "周"),
        ("欧阳修", "欧阳"),
        ("wenlong deng", "deng"),
        ("Xia Xuanzhi", "Xuanzhi"),
        ("van der Berg, Jan", "van der Berg"),
        ("Ludwig van Beethoven", "van Beethoven"),
        ("Martin Luther King Jr.", "King"),
        ("John Smith III", "Smith"),
        ("Rahul G. Krishnan", "Krishnan"),
        ("Francesco D'Angelo", "D'Angelo"),
        ("Devriş İşler", "İşler"),
        ("Plato", "Plato"),
    ],
)
def test_family_name(name: str, family: str) -> None:
    assert family_name(name) == family


def test_split_authors_handles_separators_and_et_al() -> None:
    assert split_authors("A. Smith, B. Jones and C. Wu") == (
        ["A. Smith", "B. Jones", "C. Wu"],
        False,
    )
    assert split_authors("Berg, Jan; Smith, Ann") == (["Berg, Jan", "Smith, Ann"], False)
    assert split_authors("张三, 李四 等") == (["张三", "李四"], True)


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Yüksel", "yuksel"),
        ("İşler", "isler"),
        ("D'Angelo", "dangelo"),
        ("van der Berg", "vanderberg"),
    ],
)
def test_ascii_slug_transliterates(text: str, slug: str) -> None:
    assert ascii_slug(text) == slug


def test_ascii_slug_of_cjk_is_a_stable_short_hash() -> None:
    slug = ascii_slug("周")
    assert re.fullmatch(r"x[0-9a-f]{6}", slug)
    assert slug == ascii_slug("周") != ascii_slug("王")


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        ("In this paper we propose a novel approach called ICGNN that uses graphs.", "ICGNN"),
        ("To this end, we introduce CalM, a self-supervised model.", "CalM"),
        ("We propose Zero Sum SVD (ZS-SVD), a post-training method.", "ZS-SVD"),
        ("Here, a method dubbed LoRA-X is shown.", "LoRA-X"),
        ("We study scaling. GPT-4, a novel model, is evaluated.", "GPT-4"),
        (
            "We find a phenomenon, termed Self-Compression: when. We propose ConPress (Learning",
            "ConPress",
        ),
        ("To this end, we propose a novel VTR framework that rectifies distortions.", None),
        ("Large Language Models (LLMs) are strong. We study their limits.", None),
    ],
)
def test_method_name(abstract: str, name: str | None) -> None:
    assert method_name(abstract) == name


def test_method_name_finds_icgnn_in_the_wei_ju_seed() -> None:
    (paper,) = [p for p in _seed_papers() if p.authors[0] == "Wei Ju"]
    assert method_name(paper.abstract) == "ICGNN"
    assert paper.label == "Ju et al. — ICGNN"


@pytest.mark.parametrize(
    ("authors", "truncated", "label"),
    [
        (["Oğuz Yüksel"], False, "Yüksel"),
        (["Xiaoyi MAI", "Jean-Michel Loubes"], False, "MAI & Loubes"),
        (["Chuxue Cao", "Jinluan Yang", "Haoran Li"], False, "Cao et al."),
        (["Chuxue Cao", "Jinluan Yang"], True, "Cao et al."),
    ],
)
def test_derive_label(authors: list[str], truncated: bool, label: str) -> None:
    assert derive_label(authors, "We study fairness in general.", truncated) == label


def test_derive_label_appends_method() -> None:
    abstract = "we propose a novel approach called ICGNN that works"
    assert derive_label(["Wei Ju", "Wei Zhang", "Siyu Yi"], abstract, False) == "Ju et al. — ICGNN"


def test_citation_key_forms() -> None:
    icgnn = "we propose a novel approach called ICGNN that works"
    assert citation_key(["Wei Ju"], 2024, None, icgnn) == "ju2024icgnn"
    assert citation_key(["Wei Ju"], None, None, icgnn) == "ju_icgnn"
    assert citation_key(["Wei Ju"], 2024, "Towards the Robust GNNs", icgnn) == "ju2024robust"
    assert citation_key(["Oğuz Yüksel"], None, None, "We study transformers.") == "yuksel"
    assert citation_key(["Oğuz Yüksel"], 2025, None, "We study transformers.") == "yuksel2025"


def test_unique_keys_suffixes_later_duplicates() -> None:
    assert unique_keys(["li", "wang", "li", "li"]) == ["li", "wang", "lib", "lic"]
    # A suffixed key never takes a key that appears bare elsewhere in the input.
    assert unique_keys(["ju2024", "ju2024", "ju2024b"]) == ["ju2024", "ju2024c", "ju2024b"]


def test_seed_keys_are_unique_ascii_and_stable() -> None:
    first = assign_keys(_seed_papers())
    again = assign_keys(list(reversed(_seed_papers())))
    keys = [p.citation_key for p in first]
    assert len(set(keys)) == len(keys) == 40
    assert all(re.fullmatch(r"[a-z0-9_]+", key) for key in keys)
    assert {p.id: p.citation_key for p in first} == {p.id: p.citation_key for p in again}
    by_author = {p.authors[0]: p.citation_key for p in first}
    assert by_author["Wei Ju"] == "ju_icgnn"
    assert by_author["Oğuz Yüksel"] == "yuksel"


def test_unique_keys_avoid_keys_already_in_the_index() -> None:
    assert unique_keys(["li", "wang"], taken=["li", "lib"]) == ["lic", "wang"]


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("wenlong deng", "Deng"),
        ("ludwig van beethoven", "van Beethoven"),
        ("Ludwig van Beethoven", "van Beethoven"),
        ("Xia Xuanzhi", "Xuanzhi"),
        ("欧阳修", "欧阳"),
    ],
)
def test_a_name_written_in_lower_case_is_shown_capitalised(name: str, shown: str) -> None:
    assert shown_family_name(name) == shown
    assert author_phrase([name], truncated=False) == shown


def test_an_authors_macro_for_the_method_reads_as_the_name_the_abstract_introduces() -> None:
    # TreePO's seed abstract says "the performance gain of \\modelname on a set reasoning
    # benchmarks", which answers quoted as "the performance gain of modelname on ...".
    raw = (
        r"In this work, we introduce FastTree, a rollout algorithm. We validate the gain of "
        r"\modelname on three benchmarks, and \ours{} needs less compute than \textbf{PPO}."
    )
    assert clean_abstract(raw) == (
        "In this work, we introduce FastTree, a rollout algorithm. We validate the gain of "
        "FastTree on three benchmarks, and FastTree needs less compute than PPO."
    )


def test_a_macro_that_names_no_method_or_an_abstract_without_a_name_is_left_as_a_word() -> None:
    assert clean_abstract(r"We study \eg pruning.") == "We study eg pruning."
    assert clean_abstract(r"The gain of \modelname is large.") == "The gain of modelname is large."


def test_the_seed_abstract_with_a_method_macro_names_its_method() -> None:
    (tree,) = [p for p in _seed_papers() if "TreePO" in p.abstract]
    assert "performance gain of TreePO on" in tree.abstract
    assert "modelname" not in tree.abstract


def test_a_bibtex_abstract_with_a_method_macro_names_its_method(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{li2025,\n  author = {Li, Yizhi},\n  title = {Tree Search for RL},\n"
        "  abstract = {We propose \\textsc{TreeRL}, a sampler. Gains of \\method{} hold.},\n}\n",
        encoding="utf-8",
    )
    (paper,) = parse_path(bib).papers
    assert paper.abstract.endswith("Gains of TreeRL hold.")


def test_a_name_the_authors_define_and_then_propose_is_the_method_name() -> None:
    # A new user (stop 63): the PoLar paper was labelled "Li et al." beside three other
    # "Li et al.", though its abstract names PoLar; a field's acronym ("While visual token
    # reduction (VTR) strategies ...", then "we propose a novel VTR framework") is no name.
    polar = (
        'We reveal the wide existence of dynamic "program-of-layers (PoLar)", where layers are '
        "skipped. To achieve PoLar in practice, we propose a lightweight PoLar prediction "
        "network, which learns programs."
    )
    assert method_name(polar) == "PoLar"
    vtr = (
        "While visual token reduction (VTR) strategies have been explored, they distort. "
        "To this end, we propose a novel VTR framework that rectifies the distortions."
    )
    assert method_name(vtr) is None
    compared = (
        "We compare backpropagation (BP) with forward-mode AD (FmAD). We present a comparison "
        "of BP and FmAD for training."
    )
    assert method_name(compared) is None
    # The review: "we propose that" states a hypothesis, whose genes are no method (SciFact)
    hypothesis = "We identify the kinase (PAD) in cells. We propose that PAD and IFI16 bind DNA."
    assert method_name(hypothesis) is None
