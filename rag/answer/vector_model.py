"""Linear models fitted over the bundled MiniLM's vectors of a text (a message, a word)."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag.index.model_files import BUNDLED_MODEL
from rag.index.paper_index import Index


def vector_logit(index: Index, text: str, coef: Sequence[float], intercept: float) -> float | None:
    """Return a linear model's logit over `text`'s vector from the bundled MiniLM (None: the
    index embeds with another model, or at another size, which the weights cannot read)."""
    return vectors_logit(index, [text], coef, intercept)


def vectors_logit(
    index: Index, texts: Sequence[str], coef: Sequence[float], intercept: float
) -> float | None:
    """Return a linear model's logit over the vectors of `texts`, end to end (None as above)."""
    if index.settings.embedding_model != BUNDLED_MODEL:
        return None
    weights = np.array(coef)
    vector = np.concatenate(list(index.embedder.embed(list(texts))))
    if vector.shape != weights.shape:  # an embedder of another size (tests, a custom one)
        return None
    return float(vector @ weights + intercept)


@functools.cache
def fitted_weights(path: Path) -> dict[str, Any]:
    """A fitted model's weights file (JSON), read once per process."""
    return dict(json.loads(path.read_text(encoding="utf-8")))
