"""The exceptions `rag` raises; every message says what happened and what to do.

RagError
├── ConfigError          bad setting, flag or config file
├── IndexNotFoundError   no index where one was expected
├── IndexMismatchError   index built with another embedding model
├── IndexBusyError       another process is writing the embedded index
├── ParseError           a file or record that cannot be read (carries file and line)
├── PaperNotFoundError   no paper with that key or id
├── FilterMatchesNothingError  a filter that no paper satisfies
└── BackendError         an answer backend failed (missing key, unreachable, timeout)
"""

from __future__ import annotations


class RagError(Exception):
    """Base of every error `rag` raises on purpose."""


class ConfigError(RagError):
    """A setting, flag or config file is invalid."""


class IndexNotFoundError(RagError):
    """There is no index at the configured location."""


class IndexMismatchError(RagError):
    """The index was built with a different embedding model."""


class IndexBusyError(RagError):
    """Another process holds the write lock of an embedded index."""


class PaperNotFoundError(RagError):
    """No paper in the index has the given citation key or id."""


class FilterMatchesNothingError(RagError):
    """A search filter that no paper in the index satisfies."""


class BackendError(RagError):
    """An answer backend could not produce an answer."""


class ParseError(RagError):
    """A file or one record in it could not be parsed.

    Args:
        path: the file.
        line: 1-based line where the bad record starts, when there is one.
        reason: what is wrong, in words a user can act on.
    """

    def __init__(self, path: str, reason: str, line: int | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {reason}")
