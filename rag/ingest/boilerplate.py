"""What a publisher or database appends to an abstract and no author wrote as a finding.

Exports from Elsevier, Wiley, Scopus or PubMed often end an abstract with its copyright line
("© 2015 Elsevier Ltd. All rights reserved.", "Copyright © 2019 The Authors."), and IEEE's with
its index terms ("Index Terms—data mining, clustering"). Answers quoted them as part of the last
sentence ("... not identified in previous literature. © 2015 Elsevier Ltd [1]."). They are cut
at ingest, from where such a notice opens a sentence to the end of the abstract, when what is
cut is short enough to be a notice and not the rest of the abstract.
"""

from __future__ import annotations

import re

# A notice opens after the abstract's start or a sentence's end ("literature. © 2015 ...",
# "630-49. ©2016 AACR."), and runs to the end.
_NOTICE = re.compile(
    r"(?:^|(?<=[.!?)\]])\s*)"
    r"(?:(?:Copyright|\(c\)|©)\s*(?:©|\(c\))?\s*(?:(?:19|20)\d\d\b|[A-Z])"
    r"|This article is protected by copyright\b"
    r"|Index Terms\s*[-\u2014\u2013:|]"
    r"|Key\s?words\s*[-\u2014\u2013:|])"
    r".*$",
    re.DOTALL,
)
# The most a notice holds (the longest copyright lines carry a publisher's full name and a
# licence sentence); more would be the abstract's own text.
MAX_NOTICE = 400


def without_notices(abstract: str) -> str:
    """Return `abstract` without a copyright line or index terms at its end (see above)."""
    found = _NOTICE.search(abstract)
    if found is None or found.start() == 0 or len(found.group()) > MAX_NOTICE:
        return abstract
    return abstract[: found.start()].rstrip()
