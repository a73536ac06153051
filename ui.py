"""The Gradio chat UI's entry point: `python ui.py` serves it, as `rag serve` does.

The app lives in `rag.ui` (`rag.ui.app.build_app`, `main`); this file only starts it.
"""

from __future__ import annotations

import sys

from rag.errors import RagError
from rag.ui.app import build_app, main

__all__ = ["build_app", "main", "serve"]


def serve() -> int:
    """Serve the chat; a RagError (no index yet, a bad setting) is one line on stderr and exit
    code 1, as `rag serve` gives it, not a traceback."""
    try:
        main()
    except RagError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(serve())
