"""Ingest: from paper files to records in the index.

Owns the parsers (`parsers/`, one module per format), how a paper is cut into passages
(`chunking`), labels and citation keys (`naming`), the LaTeX tables the BibTeX reader shares
with the exporter (`latex`), the role of each abstract sentence (`sections` for a structured
abstract's own headings, `roles` for the model; stored at ingest) and which sentence answers a
question or a claim (`wanted`: the question's terms and the fitted sentence choice, read by
answers and citations alike), and the pipeline that reads files and stores them (`pipeline`:
`ingest`, `remove`).

May import: the shared ground and `rag.index`. Knows nothing of answers, citations or faces.
(`rag.ingest` the function is `rag.api.ingest`; `rag/__init__.py` keeps that name pointing at
the function.)
"""
