"""Tests of rag.cite and rag.stance: claim lookup, stance, references and export."""
