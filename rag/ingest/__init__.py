"""Ingest: from paper files to records in the index.

Owns the parsers (`parsers/`, one module per format), how a paper is cut into passages
(`chunking`), labels and citation keys (`naming`), the LaTeX tables the BibTeX reader shares
with the exporter (`latex`), and the pipeline that reads files and stores them (`pipeline`:
`ingest`, `remove`).

May import: the shared ground and `rag.index`. Knows nothing of answers, citations or faces.
(`rag.ingest` the function is `rag.api.ingest`; `rag/__init__.py` keeps that name pointing at
the function.)
"""
