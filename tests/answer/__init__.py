"""Tests of rag.answer: the answer pipeline, composition, follow-ups and checks."""
