from pathlib import Path


def collect(root, pattern):
    files = []
    for path in Path(root).glob(pattern):
        if path.is_file():
            files.append((path.name, path.stat().st_size))
    return sorted(files)


def human(size):
    units = ["B", "KB", "MB"]
    value = float(size)
    for unit in units:
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def table(files):
    rows = []
    for name, size in files:
        rows.append(f"{name:<14}{human(size):>10}")
    return rows


def main():
    files = collect(".", "*.csv")
    rows = table(files)
    biggest = max(files, key=lambda f: f[1])
    print("\n".join(rows))
    print("biggest:", biggest[0])


main()
