"""The Gradio chat UI (`rag serve`, `ui.py`).

Owns the app and its wiring (`app`), the page layout (`layout`), the tabs (`tabs`), the chat
turn (`chat`), how answers and sources render (`render`) and the page's CSS and script
(`assets`). Formats what `rag.api` returns; no retrieval or answer logic of its own.

May import: `rag.api` and everything below it. Not another face.
"""
