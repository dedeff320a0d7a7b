from pathlib import Path


def text_files(root):
    found = []
    for path in sorted(Path(root).iterdir()):
        if path.suffix in (".txt", ".md"):
            found.append(path)
    return found


def word_count(path):
    text = path.read_text()
    words = text.split()
    return len(words)


def summarize(paths):
    counts = {}
    for path in paths:
        counts[path.name] = word_count(path)
    largest = max(counts, key=counts.get)
    return counts, largest


def main():
    paths = text_files("notes")
    counts, largest = summarize(paths)
    total = sum(counts.values())
    print(f"{len(paths)} files, {total} words, largest {largest}")


main()
