"""Answers: from a question to a short answer whose every sentence cites a retrieved paper.

In the order a question meets them: `language` (detect, translate), `condense` (rewrite a follow-up
that depends on the history, from `history` (its turns and their papers), `references` (how it
points back) and `rewrite` (the rule); `continuation` for one with words but no pronoun, `topicless`
for one that asks about the collection or nothing, `unanswered` for one on papers an abstention
listed), `people` and `named_papers` (a question naming authors, or papers, is asked of
their papers), `overview` (the answer to a question that names no topic), `abstention` (does the
collection hold the question's terms? acronyms as `rag.text` reads them; `topic_words` tells which
absent words name no topic; `nearest`, which papers an abstention lists), `paper_choice` (which
retrieved papers address it), `evidence` (the
best sentences per paper), `relevance` (is a sentence about the question?), `compose` (the answer's
layout; `shown_form` and `discourse` make a quoted sentence stand alone), `citations` (each sentence
retrieved and supported), `model_sentences` (which of a model's sentences are shown), and
`pipeline`, which runs them (`answer_stream`; `resolution` reads a follow-up against the history,
`papers_used` and `paper_sets` choose the papers, `rendering` numbers the citations of the
`Answer`).
`vector_model` reads the fitted linear models over a text's MiniLM vectors.

May import: the shared ground, `rag.backends`, `rag.index`, `rag.ingest` (labels and method
names) and `rag.stance`. Not `rag.cite`, `rag.api` or any face.
"""
