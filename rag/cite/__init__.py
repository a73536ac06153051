"""Citations for a literature review: which papers support a claim, and their references.

Owns claim lookup (`claims`: `cite`, `cite_draft`, `find_paper`), nearest papers
(`similar`) and reference export (`export`: BibTeX, RIS, CSL-JSON).

May import: the shared ground, `rag.index`, `rag.ingest` (labels and keys) and `rag.stance`.
Not `rag.answer`, `rag.api` or any face. (`rag.cite` the function is `rag.api.cite`;
`rag/__init__.py` keeps that name pointing at the function.)
"""
