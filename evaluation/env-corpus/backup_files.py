import os
import shutil
from pathlib import Path


def make_backup_dir(name):
    target = Path(name)
    target.mkdir(exist_ok=True)
    return target


def copy_matching(source, target, suffix):
    copied = []
    for entry in sorted(os.listdir(source)):
        if entry.endswith(suffix):
            shutil.copy(os.path.join(source, entry), target / entry)
            copied.append(entry)
    return copied


def total_size(folder):
    size = 0
    for path in folder.iterdir():
        size += path.stat().st_size
    return size


def main():
    target = make_backup_dir("backup")
    copied = copy_matching("notes", target, ".txt")
    size = total_size(target)
    print(f"copied {copied} ({size} bytes)")


main()
