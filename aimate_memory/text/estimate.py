"""Token estimates, one function per purpose, because "a token" is not one thing:

- :func:`embedding_tokens` — tokens of the **embedding models** (MiniLM's WordPiece, USE's SentencePiece):
  what a chunk may hold before the model truncates it (index/chunking.py, ``MAX_TOKENS``) and where a long
  query is cut for USE (embedding/use_provider.py). It errs high on purpose so nothing is truncated
  silently: on English prose it is within ~10 % of MiniLM's tokenizer.
- :func:`prompt_tokens` — tokens of the **assistant's LLM** (a BPE tokenizer: Claude's, GPT's): what a
  context block costs against ``--budget`` (context/budget.py) and what a session's turns fill of its
  window (sessions/). No LLM tokenizer ships offline, so it uses the same count; BPE vocabularies hold more
  whole English words than WordPiece, so this errs high too, which a budget wants (a context block that
  comes in under its budget, never over).

Both count the same pieces today: each CJK character = 1 token, each punctuation character = 1, each
letter run = 1 + len//6, each digit run = 1 + len//3. Whitespace ends every piece, so the count of two
texts joined by whitespace is the sum of theirs (context/render.py relies on it). Two names keep the two
purposes apart: tuning one (say, for a model with a different tokenizer) must not move the other."""

from __future__ import annotations

import re
from typing import Final

# The pieces both estimates count (index/chunking.py also cuts an overlong sentence between them).
TOKEN_PIECES: Final = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"  # one CJK char
    r"|\d+"  # digit run
    r"|[^\W\d_]+"  # letter run
    r"|[^\w\s]",  # punctuation / symbol
)


def _pieces_estimate(text: str) -> int:
    pieces = TOKEN_PIECES.findall(text)
    # Every piece is at least one token; digit runs add one per 3 digits, letter runs one per 6 letters.
    return len(pieces) + sum(len(p) // (3 if p[0].isdigit() else 6) for p in pieces if len(p) > 2)


def embedding_tokens(text: str) -> int:
    """Estimated MiniLM/USE tokens of `text` (an over-estimate; see the module docstring)."""
    return _pieces_estimate(text)


def prompt_tokens(text: str) -> int:
    """Estimated LLM prompt tokens of `text`, for budgets (an over-estimate; see the module docstring)."""
    return _pieces_estimate(text)
