"""The Gradio chat UI's entry point: `python ui.py` serves it, as `rag serve` does.

The app lives in `rag.ui` (`rag.ui.app.build_app`, `main`); this file only starts it.
"""

from __future__ import annotations

from rag.ui.app import build_app, main

__all__ = ["build_app", "main"]

if __name__ == "__main__":
    main()
