"""Tests of rag.ingest: parsers, formats, the ingest pipeline, labels and keys."""
