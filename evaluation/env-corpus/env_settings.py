import os

TRUE_WORDS = {"1", "true", "yes", "on"}


def env_bool(name, default=False):
    raw = os.environ.get(name)
    if raw is None:
        return default
    return raw.strip().lower() in TRUE_WORDS


def env_int(name, default):
    raw = os.environ.get(name, "")
    try:
        return int(raw)
    except ValueError:
        return default


def settings():
    home = os.environ.get("HOME", "/")
    lang = os.environ.get("LANG", "C")
    return {
        "home": home,
        "lang": lang.split(".")[0],
        "verbose": env_bool("APP_VERBOSE"),
        "retries": env_int("APP_RETRIES", 3),
        "has_path": "PATH" in os.environ,
    }


def main():
    conf = settings()
    keys = sorted(conf)
    print(len(keys), conf["lang"], conf["retries"], conf["verbose"])


main()
