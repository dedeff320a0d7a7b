RAW = """
# server settings
host = example.org
port = 8080
workers = four
timeout = 30
debug = yes
"""

DEFAULTS = {"port": 80, "workers": 2, "timeout": 10}
INTEGER_KEYS = ("port", "workers", "timeout")


def parse_pair(line):
    key, _, value = line.partition("=")
    return key.strip(), value.strip()


def convert(key, value):
    if key not in INTEGER_KEYS:
        return value
    try:
        return int(value)
    except ValueError:
        print(f"bad value for {key}: {value!r}, using default")
        return DEFAULTS.get(key)


def parse_config(text):
    settings = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, value = parse_pair(line)
        settings[key] = convert(key, value)
    return settings


def main():
    settings = parse_config(RAW)
    workers = settings.get("workers", 1)
    debug = settings.get("debug") == "yes"
    print(settings["host"], settings["port"], workers, debug)


main()
