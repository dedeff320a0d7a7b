import os
import tempfile


def write_notes(folder, notes):
    paths = []
    for i, note in enumerate(notes):
        path = os.path.join(folder, f"note_{i}.txt")
        with open(path, "w") as f:
            f.write(note + "\n")
        paths.append(path)
    return paths


def read_back(paths):
    lengths = {}
    for path in paths:
        with open(path) as f:
            text = f.read()
        lengths[os.path.basename(path)] = len(text)
    return lengths


def main():
    with tempfile.TemporaryDirectory() as folder:
        paths = write_notes(folder, ["first draft", "second thoughts", "final"])
        lengths = read_back(paths)
        existing = len(os.listdir(folder))
    print(lengths, existing, os.path.exists(folder))


main()
