import json
import os
import zlib


def load_flags(path):
    with open(path) as f:
        flags = json.load(f)
    override = os.environ.get("FLAGS_OVERRIDE", "")
    for item in filter(None, override.split(",")):
        name, _, value = item.partition("=")
        flags[name] = value == "on"
    return flags


def rollout_percent(value):
    if isinstance(value, str) and value.endswith("%"):
        return int(value[:-1])
    return 100 if value is True else 0


def enabled_for(flags, name, user_id):
    percent = rollout_percent(flags.get(name, False))
    bucket = zlib.crc32(f"{name}:{user_id}".encode()) % 100
    return bucket < percent


def main():
    flags = load_flags("flags.json")
    users = [101, 202, 303]
    beta = [u for u in users if enabled_for(flags, "beta_search", u)]
    checkout = enabled_for(flags, "new_checkout", 101)
    print(beta, checkout, flags["max_items"])


main()
