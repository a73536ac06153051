"""Generation backends behind one small interface (`base.Backend.generate`).

Owns the interface and prompt type (`base`), the registry that finds a backend by name
(`registry.get_backend`), and the backends themselves: `local` (SmolLM2 through llama.cpp)
and `openai_compat` (any OpenAI-compatible endpoint).

May import: the shared ground only.
"""
