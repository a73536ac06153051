"""Stance: whether a paper's sentences support a claim, contradict it, or neither.

Shared by answers (the citation check) and citations (`rag cite`), so it sits below both.
Owns the trained judge (`judge`, its model in `model/`), the judge that asks a generation
backend (`llm_judge`), and the choice between them (`choose.judge_for`).

May import: the shared ground and `rag.backends`.
"""
