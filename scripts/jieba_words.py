"""Write ``src/ctxkeep/extract/data/jieba-words.txt`` from jieba's ``dict.txt``.

    python scripts/jieba_words.py PATH/TO/jieba/dict.txt

jieba's dictionary is the one rjieba builds into its extension (jieba 0.42.1's
``jieba/dict.txt``, MIT; ``pip download jieba --no-binary :all:`` fetches it). The file
written keeps the words made of CJK characters only, the only ones a CJK run can hold,
sorted by their UTF-8 bytes, one ``word frequency`` per line, after a header line with
the total frequency of every word of the dictionary: jieba scores a cut against that
total (see ``ctxkeep.extract._segmenter``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ctxkeep.extract._text import CJK_RUN

OUT = Path(__file__).resolve().parent.parent / "src/ctxkeep/extract/data/jieba-words.txt"


def main(dictionary: Path) -> None:
    frequencies: dict[str, int] = {}
    for line in dictionary.read_text(encoding="utf-8").splitlines():
        word, frequency = line.split()[:2]
        frequencies[word] = int(frequency)  # one word is listed twice, with one frequency
    total = sum(frequencies.values())
    kept = sorted((w.encode(), f) for w, f in frequencies.items() if CJK_RUN.fullmatch(w))
    with OUT.open("wb") as out:
        out.write(b"# total %d\n" % total)
        out.writelines(word + b" %d\n" % frequency for word, frequency in kept)
    print(f"{OUT}: {len(kept):,} of {len(frequencies):,} words, total {total:,}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
