#!/usr/bin/env python3
"""Stdlib-only loader for ndb's tokenizer.json (see tokenizer/trace-tokenizer.ts).

Encodes and decodes exactly like the Rust `tokenizers` library does for this configuration
(Debian's Python has no `tokenizers` package):
  1. split on the added (special) tokens, each one id, never merged with anything;
  2. cut the text between them with the Split pre-tokenizer's regex (matches and the gaps
     between them are pieces);
  3. map each piece's UTF-8 bytes to GPT-2's byte-level characters;
  4. merge with the BPE merge queue of the Rust model, lowest rank first, then leftmost.
The regex uses only explicit ASCII classes, so Python's `re` splits like Oniguruma does.

    python3 training/bpe.py TOKENIZER_DIR --encode < text.txt    prints the ids as JSON
    python3 training/bpe.py TOKENIZER_DIR --decode < ids.json    prints the text
"""

import argparse
import heapq
import json
import re
import sys
from pathlib import Path

_CACHE_LIMIT = 100_000


def _byte_to_char() -> list[str]:
    """GPT-2's map of the 256 bytes to printable characters."""

    def printable(b: int) -> bool:
        return 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF

    chars, extra = [], 256
    for b in range(256):
        if printable(b):
            chars.append(chr(b))
        else:
            chars.append(chr(extra))
            extra += 1
    return chars


_BYTE_TO_CHAR = _byte_to_char()

# tokenizer/trace-tokenizer.ts's STRING_LITERAL_PATTERN: where tokenizer_config.json sets
# ndb_split_strings, every character of a one-line single-quoted literal is its own piece;
# the other matches (triple-quoted, and a JSON-escaped double-quoted repr) stay ordinary text.
_STRING_LITERAL = re.compile(
    r'"""[\s\S]*?"""' "|" r"'''[\s\S]*?'''" "|" r'\\"(?:[^"\\\n]|\\[^"\n])*\\"' "|" r"'(?:[^'\\\n]|\\[^\n])*(?:'|(?![\s\S]))"
)


def _merge_pair(merge) -> tuple[str, str]:
    if isinstance(merge, str):
        parts = merge.split(" ")
        if len(parts) != 2:
            raise ValueError(f"tokenizer: bad merge {merge!r}")
        return parts[0], parts[1]
    return merge[0], merge[1]


def _check_config(config: dict) -> None:
    """The configuration this module implements; anything else fails here, not silently later."""
    try:
        split, byte_level = config["pre_tokenizer"]["pretokenizers"]
        model = config["model"]
        ok = (
            config["normalizer"] is None
            and config["pre_tokenizer"]["type"] == "Sequence"
            and split["type"] == "Split"
            and split["behavior"] == "Isolated"
            and split["invert"] is False
            and "Regex" in split["pattern"]
            and byte_level["type"] == "ByteLevel"
            and byte_level["add_prefix_space"] is False
            and byte_level["use_regex"] is False
            and config["decoder"]["type"] == "ByteLevel"
            and model["type"] == "BPE"
            and model["dropout"] is None
            and model["continuing_subword_prefix"] is None
            and model["end_of_word_suffix"] is None
            and not model.get("ignore_merges", False)
        )
    except (KeyError, TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError("tokenizer: not the configuration ndb writes (Split regex + ByteLevel, plain BPE)")


class BPETokenizer:
    def __init__(self, folder: str | Path):
        config = json.loads((Path(folder) / "tokenizer.json").read_text(encoding="utf-8"))
        _check_config(config)
        hf_config = Path(folder) / "tokenizer_config.json"
        self.splits_strings = hf_config.exists() and json.loads(hf_config.read_text(encoding="utf-8")).get("ndb_split_strings", False) is True
        model = config["model"]
        self.vocab: dict[str, int] = dict(model["vocab"])
        char_to_byte = {c: b for b, c in enumerate(_BYTE_TO_CHAR)}
        self._bytes: dict[int, bytes] = {i: bytes(char_to_byte.get(c, 0) for c in t) for t, i in self.vocab.items()}
        self.special: dict[str, int] = {}
        for added in config["added_tokens"]:
            self.vocab[added["content"]] = added["id"]
            self.special[added["content"]] = added["id"]
            self._bytes[added["id"]] = added["content"].encode("utf-8")
        self.vocab_size = max(self._bytes) + 1
        # (left id, right id) -> rank; _new_id[rank] is the merged token.
        self._rank: dict[tuple[int, int], int] = {}
        self._new_id: list[int] = []
        for rank, merge in enumerate(model["merges"]):
            a, b = _merge_pair(merge)
            self._rank[(self.vocab[a], self.vocab[b])] = rank
            self._new_id.append(self.vocab[a + b])
        self._byte_id = [self.vocab[c] for c in _BYTE_TO_CHAR]
        # Longest first: where two special tokens start at the same place, the longer wins.
        specials = sorted(self.special, key=len, reverse=True)
        self._special_split = re.compile("|".join(map(re.escape, specials)))
        self._piece_split = re.compile(config["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"])
        self._cache: dict[str, list[int]] = {}

    def token_id(self, token: str) -> int:
        return self.vocab[token]

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        last = 0
        for m in self._special_split.finditer(text):
            self._encode_ordinary(text[last : m.start()], ids)
            ids.append(self.special[m.group()])
            last = m.end()
        self._encode_ordinary(text[last:], ids)
        return ids

    def decode(self, ids: list[int]) -> str:
        """Invalid UTF-8 (a cut-off character) decodes to U+FFFD, as in Rust's from_utf8_lossy."""
        return b"".join(self._bytes[i] for i in ids).decode("utf-8", errors="replace")

    def _encode_ordinary(self, text: str, ids: list[int]) -> None:
        if not self.splits_strings:
            return self._encode_pieces(text, ids)
        last = 0
        for m in _STRING_LITERAL.finditer(text):
            lit = m.group()
            if lit[0] != "'" or lit.startswith("'''"):
                continue  # left in the ordinary text around it
            self._encode_pieces(text[last : m.start()], ids)
            for char in lit:
                self._encode_piece(char, ids)
            last = m.end()
        self._encode_pieces(text[last:], ids)

    def _encode_pieces(self, text: str, ids: list[int]) -> None:
        last = 0
        for m in self._piece_split.finditer(text):
            if m.start() > last:
                self._encode_piece(text[last : m.start()], ids)
            if m.group():
                self._encode_piece(m.group(), ids)
            last = m.end()
        if last < len(text):
            self._encode_piece(text[last:], ids)

    def _encode_piece(self, piece: str, ids: list[int]) -> None:
        merged = self._cache.get(piece)
        if merged is None:
            merged = self._merge(piece)
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[piece] = merged
        ids.extend(merged)

    def _merge(self, piece: str) -> list[int]:
        """The Rust BPE model's merge loop (Word::merge_all): a queue of adjacent pairs by
        (rank, position); pop the best, skip it if the pair at that position has changed since,
        else merge it and queue the new pairs it forms with its neighbours."""
        sym = [self._byte_id[b] for b in piece.encode("utf-8")]
        n = len(sym)
        prev = list(range(-1, n - 1))
        nxt = list(range(1, n)) + [-1]
        alive = [True] * n
        queue = [(self._rank[pair], i) for i, pair in enumerate(zip(sym, sym[1:])) if pair in self._rank]
        heapq.heapify(queue)

        def enqueue(pos: int, right: int) -> None:
            rank = self._rank.get((sym[pos], sym[right]))
            if rank is not None:
                heapq.heappush(queue, (rank, pos))

        while queue:
            rank, pos = heapq.heappop(queue)
            right = nxt[pos]
            if not alive[pos] or right == -1:
                continue
            current = self._rank.get((sym[pos], sym[right]))
            new_id = self._new_id[rank]
            if current is None or self._new_id[current] != new_id:
                continue  # a stale entry
            sym[pos] = new_id
            alive[right] = False
            nxt[pos] = nxt[right]
            if nxt[pos] != -1:
                prev[nxt[pos]] = pos
            if prev[pos] != -1:
                enqueue(prev[pos], pos)
            if nxt[pos] != -1:
                enqueue(pos, nxt[pos])
        return [s for s, keep in zip(sym, alive) if keep]


def main() -> None:
    parser = argparse.ArgumentParser(description="Encode or decode with ndb's tokenizer (stdin -> stdout).")
    parser.add_argument("folder", help="the folder holding tokenizer.json")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--encode", action="store_true", help="text on stdin -> JSON ids")
    mode.add_argument("--decode", action="store_true", help="JSON ids on stdin -> text")
    args = parser.parse_args()
    tok = BPETokenizer(args.folder)
    # Bytes in and out: text-mode stdin would turn \r\n into \n.
    data = sys.stdin.buffer.read().decode("utf-8")
    if args.encode:
        sys.stdout.write(json.dumps(tok.encode(data)) + "\n")
    else:
        sys.stdout.buffer.write(tok.decode(json.loads(data)).encode("utf-8"))


if __name__ == "__main__":
    main()
