"""Readable abstracts, sentence splitting and accent-insensitive matching."""

# The expected outputs contain Unicode dashes, symbols and CJK punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

import pytest

from rag.text import clean_markup, fold, split_sentences


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (r"we propose \textbf{CalM}, a model", "we propose CalM, a model"),
        ("We propose **Zero Sum SVD** (**ZS-SVD**)", "We propose Zero Sum SVD (ZS-SVD)"),
        ("**Me**ta **Po**st-Refinement (MePo)", "Meta Post-Refinement (MePo)"),
        ("a *global* and _relative_ and __bold__ `code`", "a global and relative and bold code"),
        (r"margins of 10.4\% and 14.2\%", "margins of 10.4% and 14.2%"),
        (r"R\&D on a\_b costs \$5", "R&D on a_b costs $5"),
        (r"\emph{\textbf{Self-Compression}}: when", "Self-Compression: when"),
        (
            r"Repres\underline{e}ntation, \texttt{x}, \url{http://a.org/b_c}",
            "Representation, x, http://a.org/b_c",
        ),
        (r"scale as $O(T^2)$ and $O(T^{3/2})$", "scale as O(T^2) and O(T^(3/2))"),
        (r"mismatch ($\pi_{\text{roll}} \neq \pi_\theta$)", "mismatch (pi_roll ≠ pi_theta)"),
        (r"3.8$\times$ fewer, $80.6\%$ exact, $\alpha$", "3.8× fewer, 80.6% exact, alpha"),
        (r"see Fig.~3 and Avg.\ Gap", "see Fig. 3 and Avg. Gap"),
        (
            "dataset--architecture and indices---effectively",
            "dataset–architecture and indices—effectively",
        ),
        ("form alternative ``views'' of", "form alternative “views” of"),
        (r"Caf\'e and na\"ive \cite{x}.", "Café and naïve."),
        ("a  line\n  break\tand tab", "a line break and tab"),
    ],
)
def test_clean_markup_makes_markup_readable(raw: str, clean: str) -> None:
    assert clean_markup(raw) == clean


@pytest.mark.parametrize(
    "text",
    [
        "Our code is at https://anonymous.4open.science/r/cure_9C6E/ and www.x.org/a--b~c.",
        "Devriş İşler, Oğuz Yüksel and 周欣 study Jelinek–Mercer smoothing (“quoted”).",
        "It costs $5 and $10, runs snake_case_name, and 2 * 3 * 4 = 24; a ~5x speedup.",
        "Rate: 15.10%, 13.36%, and 12.56% on CIFAR-100 (e.g., Sup-21/1K).",
    ],
)
def test_clean_markup_leaves_ordinary_text_alone(text: str) -> None:
    assert clean_markup(text) == text


def test_split_sentences_respects_abbreviations_and_decimals() -> None:
    text = (
        "We use e.g. Transformers and i.e. GPT. Gains are 10.4% on average vs. baselines. "
        "As Smith et al. showed in Fig. 3, the U.S. Army agrees! Does it? "
        "Yes. (1) A list item. “Quoted” starts here. [3] showed it. 2024 was good."
    )
    assert split_sentences(text) == [
        "We use e.g. Transformers and i.e. GPT.",
        "Gains are 10.4% on average vs. baselines.",
        "As Smith et al. showed in Fig. 3, the U.S. Army agrees!",
        "Does it?",
        "Yes.",
        "(1) A list item.",
        "“Quoted” starts here.",
        "[3] showed it.",
        "2024 was good.",
    ]


def test_split_sentences_does_not_split_before_lower_case() -> None:
    assert split_sentences("The model (approx. two layers) works. it is fine.") == [
        "The model (approx. two layers) works. it is fine."
    ]


def test_split_sentences_ends_at_a_journals_reference_numbers() -> None:
    # BMJ-style abstracts in SciFact: "ovulation.1 It is ...", "reported.2 3 A recent study"
    text = (
        "Clomifene is widely used for inducing ovulation.1 It is related to DES. Links have been "
        "reported.2 3 A recent study found a risk.4–6 Its half life is 5.5 days. Version 2.1 Beta "
        "was used."
    )
    assert split_sentences(text) == [
        "Clomifene is widely used for inducing ovulation.1",
        "It is related to DES.",
        "Links have been reported.2 3",
        "A recent study found a risk.4–6",
        "Its half life is 5.5 days.",
        "Version 2.1 Beta was used.",
    ]


def test_split_sentences_handles_chinese() -> None:
    assert split_sentences("我们提出了一种新方法。实验表明它有效！Code is public.") == [
        "我们提出了一种新方法。",
        "实验表明它有效！",
        "Code is public.",
    ]


def test_split_sentences_of_blank_text_is_empty() -> None:
    assert split_sentences("  \n ") == []


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("yuksel", "Oğuz Yüksel"),
        ("isler", "Devriş İşler"),
        ("lukasz", "Łukasz"),
        ("soren", "Søren"),
        ("strasse", "Straße"),
        ("mai", "Xiaoyi MAI"),
    ],
)
def test_fold_matches_without_case_or_accents(query: str, name: str) -> None:
    assert fold(query) in fold(name)


def test_fold_keeps_cjk() -> None:
    assert fold("周欣") == "周欣"


@pytest.mark.parametrize(
    ("latex", "clean"),
    [
        (r"M{\"u}ller", "Müller"),
        (r"M\"uller", "Müller"),
        (r"M\"{u}ller", "Müller"),
        (r"Erd\H{o}s", "Erdős"),
    ],
)
def test_accent_forms_of_bibtex(latex: str, clean: str) -> None:
    assert clean_markup(latex) == clean
