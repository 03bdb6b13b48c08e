"""Counted nouns and articles in messages: "1 result", "3 memories", "an AWS access key"."""

from __future__ import annotations

# Letters whose English name starts with a vowel sound: an initialism read letter by letter takes "an"
# before them ("an AWS key", "an SSH key", "a JWT").
_VOWEL_SOUND_LETTERS = "AEFHILMNORSX"
# Words spelt with a vowel that start with a consonant sound: "a user", "a unique key", "a one-time code".
_CONSONANT_SOUND_STARTS = ("uni", "us", "eu", "one")


def plural(count: int, singular: str, many: str | None = None) -> str:
    """`3 memories`, `1 memory`: the count and the noun that fits it (`many` when not just "+s")."""
    word = singular if count == 1 else (many or singular + "s")
    return f"{count} {word}"


def with_article(noun: str) -> str:
    """`a secret`, `an AWS access key`, `an email address`: "an" before a vowel sound."""
    first = noun.split(" ", 1)[0]
    initialism = len(first) > 1 and first.isupper()
    if initialism:
        vowel = first[0] in _VOWEL_SOUND_LETTERS
    else:
        vowel = first[:1].lower() in "aeiou" and not first.lower().startswith(_CONSONANT_SOUND_STARTS)
    return f"{'an' if vowel else 'a'} {noun}"
