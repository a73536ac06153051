"""Tests of rag.index: the Chroma store and reader, BM25, embedders, search, evaluation."""
