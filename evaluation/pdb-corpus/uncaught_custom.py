class ConfigError(Exception):
    def __init__(self, key, reason):
        super().__init__(f"{key}: {reason}")
        self.key = key


REQUIRED = ["name", "version", "entry"]


def check_version(text):
    parts = text.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ConfigError("version", f"expected X.Y.Z, got {text!r}")
    return tuple(int(p) for p in parts)


def load_config(pairs):
    config = dict(pairs)
    for key in REQUIRED:
        if key not in config:
            raise ConfigError(key, "missing")
    config["version"] = check_version(config["version"])
    return config


def main():
    good = load_config([("name", "tool"), ("version", "1.4.2"), ("entry", "run")])
    print("loaded", good)
    bad = load_config([("name", "tool"), ("version", "1.4"), ("entry", "run")])
    print("loaded", bad)


main()
