import json
import os

DEFAULTS = {"debug": True, "workers": 1, "timeout": 10.0, "log_level": "INFO"}


def load_config(path):
    with open(path) as f:
        raw = json.load(f)
    config = dict(DEFAULTS)
    config.update(raw)
    return config


def apply_env(config):
    level = os.environ.get("APP_LOG_LEVEL", config["log_level"])
    config["log_level"] = level.upper()
    workers = os.environ.get("APP_WORKERS")
    if workers is not None:
        config["workers"] = int(workers)
    return config


def describe(config):
    hosts = ", ".join(config["hosts"])
    limit_total = sum(config["limits"].values())
    return f"{config['app']} on {hosts} ({config['workers']} workers, limit {limit_total})"


def main():
    config = load_config("config.json")
    config = apply_env(config)
    summary = describe(config)
    print(summary)
    return summary


main()
