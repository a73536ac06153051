"""The index: where papers are stored and found again.

Owns the `Index` (`paper_index`) over a Chroma collection (`store`, `chroma_client`, the
read-only `chroma_reader`), the BM25 index (`lexical`), the local copy of the records
(`catalog`), the embedders (`embedding`, `onnx_embedding`, `onnx_export`, `onnx_cache`,
`model_files`), passage vectors pooled from one encoder pass (`late_chunking`), stored
sentence vectors (`vector_cache`), and hybrid search over all of it (`retrieve`), which answers
and citations both use.

May import: the shared ground (`rag.errors`, `rag.settings`, `rag.records`, `rag.text`).
Knows nothing of files, answers, citations or faces.
"""
