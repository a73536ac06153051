"""LaTeX and BibTeX spellings of characters: read by the BibTeX parser, written by the exporter."""

# The tables are about Unicode look-alikes on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

# Characters special to LaTeX or BibTeX. Braces become text commands, not `\{`, because
# BibTeX counts `\{` as an opening brace and a lone one would unbalance the field.
SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
# Combining mark → LaTeX accent command.
ACCENTS = {
    "\u0301": "'", "\u0300": "`", "\u0308": '"', "\u0302": "^", "\u0303": "~", "\u0304": "=",
    "\u0307": ".", "\u0306": "u", "\u030c": "v", "\u030b": "H", "\u0327": "c", "\u0328": "k",
    "\u030a": "r", "\u0323": "d", "\u0331": "b",
}  # fmt: skip
# Letters without a decomposition, as LaTeX commands.
LETTERS = {
    "ß": "ss", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "å": "aa",
    "Å": "AA", "ł": "l", "Ł": "L", "ı": "i", "ȷ": "j",
}  # fmt: skip
# Punctuation and symbols that abstracts use, as LaTeX that pdfLaTeX typesets without packages.
SYMBOLS = {
    "–": "--", "—": "---", "“": "``", "”": "''", "‘": r"\textquoteleft{}",
    "’": r"\textquoteright{}", "…": r"\ldots{}",
    "\u00a0": "~", "·": r"\textperiodcentered{}", "§": r"\S{}", "©": r"\copyright{}",
    "×": r"$\times$", "±": r"$\pm$", "≤": r"$\leq$", "≥": r"$\geq$", "≠": r"$\neq$",
    "≈": r"$\approx$", "→": r"$\rightarrow$", "←": r"$\leftarrow$", "∞": r"$\infty$",
    "∈": r"$\in$", "∼": r"$\sim$", "≪": r"$\ll$", "≫": r"$\gg$", "∝": r"$\propto$",
    "α": r"$\alpha$", "β": r"$\beta$", "γ": r"$\gamma$", "δ": r"$\delta$", "ε": r"$\epsilon$",
    "θ": r"$\theta$", "λ": r"$\lambda$", "μ": r"$\mu$", "π": r"$\pi$", "σ": r"$\sigma$",
    "τ": r"$\tau$", "φ": r"$\phi$", "ω": r"$\omega$", "Δ": r"$\Delta$", "Σ": r"$\Sigma$",
    # the rest of the Greek letters (NF-kappa-B: Zotero writes "{$\kappa$}")
    "ζ": r"$\zeta$", "η": r"$\eta$", "ι": r"$\iota$", "κ": r"$\kappa$", "ν": r"$\nu$",
    "ξ": r"$\xi$", "ρ": r"$\rho$", "υ": r"$\upsilon$", "χ": r"$\chi$", "ψ": r"$\psi$",
    "Γ": r"$\Gamma$", "Θ": r"$\Theta$", "Λ": r"$\Lambda$", "Ξ": r"$\Xi$", "Π": r"$\Pi$",
    "Φ": r"$\Phi$", "Ψ": r"$\Psi$", "Ω": r"$\Omega$",
}  # fmt: skip
