TEXT = """the quick brown fox jumps over the lazy dog
The dog barks; the fox runs.
A quick fox, a lazy dog!"""


def normalize(word):
    word = word.lower()
    return word.strip(".,;!?")


def count_words(text):
    counts = {}
    for line in text.split("\n"):
        for raw in line.split():
            word = normalize(raw)
            if not word:
                continue
            counts[word] = counts.get(word, 0) + 1
    return counts


def top_words(counts, n):
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked[:n]


def main():
    counts = count_words(TEXT)
    best = top_words(counts, 3)
    for rank, (word, count) in enumerate(best, start=1):
        print(f"{rank}. {word} x{count}")


if __name__ == "__main__":
    main()
