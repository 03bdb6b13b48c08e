"""Token estimates, one function per purpose, because "a token" is not one thing:

- :func:`embedding_tokens` — tokens of the **embedding models** (MiniLM's WordPiece, USE's SentencePiece):
  what a chunk may hold before the model truncates it (index/chunking.py, ``MAX_TOKENS``) and where a long
  query is cut for USE (embedding/use_provider.py). It errs high on purpose so nothing is truncated
  silently: on English prose it is within ~10 % of MiniLM's tokenizer.
- :func:`prompt_tokens` — tokens of the **assistant's LLM** (a BPE tokenizer: Claude's, GPT's): what a
  context block costs against ``--budget`` (context/budget.py) and what a session's turns fill of its
  window (sessions/). No LLM tokenizer ships with the package, so it uses the same count.

Measured on MADial-Bench's memories and dialogues (scripts/research/token_estimates.py, 888 English and 901
Chinese texts, 2026-11-26), estimate ÷ real count, median (p5–p95):

| | English | Chinese |
|---|---|---|
| embedding_tokens ÷ MiniLM WordPiece | 1.17 (1.04–1.33), never under | 1.00 (1.00–1.03), never under |
| prompt_tokens ÷ a BPE LLM tokenizer (¹) | 1.22 (1.07–1.37), never under | 0.91 (0.79–1.05), under on 82 % |

(¹) the legacy Claude tokenizer.json the anthropic SDK once shipped.

(Before a letter run stopped at CJK characters, Chinese with an English name attached — "Lisa从…" — had
p5 0.47 against MiniLM and 0.39 against the LLM.) So a prompt budget holds for English with room to spare
and can be exceeded by ~10 % on Chinese, where a BPE tokenizer spends more than a token on many
characters: tuning :func:`prompt_tokens` for CJK is its own change.

Both count the same pieces today: each CJK character = 1 token, each punctuation character = 1, each
letter run = 1 + len//6, each digit run = 1 + len//3. Whitespace ends every piece, so the count of two
texts joined by whitespace is the sum of theirs (context/render.py relies on it). Two names keep the two
purposes apart: tuning one (say, for a model with a different tokenizer) must not move the other."""

from __future__ import annotations

import re
from typing import Final

# The pieces both estimates count (index/chunking.py also cuts an overlong sentence between them).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
TOKEN_PIECES: Final = re.compile(
    rf"[{_CJK}]"  # one CJK char
    r"|\d+"  # digit run
    # A letter run stops at a CJK character: CJK characters are letters too, and "Lisa从爷爷奶奶那里…" had been
    # one run, ~6 tokens where MiniLM counts 27 (a quarter of the real count, scripts/research/token_estimates.py).
    rf"|[^\W\d_{_CJK}]+"  # letter run
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
