import hashlib
import uuid
from pathlib import Path


def checksum(path):
    digest = hashlib.sha256()
    data = Path(path).read_bytes()
    digest.update(data)
    return digest.hexdigest()[:12]


def manifest(paths):
    entries = []
    for path in paths:
        size = Path(path).stat().st_size
        entries.append({"file": path, "size": size, "sha": checksum(path)})
    return entries


def tag_run(entries):
    run_id = uuid.uuid4()
    short = str(run_id)[:8]
    return {"run": short, "files": len(entries), "bytes": sum(e["size"] for e in entries)}


def main():
    entries = manifest(["config.json", "sales.csv", "app.log"])
    tag = tag_run(entries)
    print(tag, entries[0]["sha"])


main()
