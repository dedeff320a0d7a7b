import configparser


def read_settings(path):
    parser = configparser.ConfigParser()
    parser.read(path)
    return parser


def server_address(parser):
    host = parser.get("server", "host")
    port = parser.getint("server", "port")
    debug = parser.getboolean("server", "debug")
    return f"{host}:{port}", debug


def database(parser):
    section = parser["database"]
    pool = int(section["pool"])
    timeout = float(section.get("timeout", "5"))
    name = section["url"].rsplit("/", 1)[-1]
    return {"name": name, "pool": pool, "timeout": timeout}


def main():
    parser = read_settings("settings.ini")
    address, debug = server_address(parser)
    db = database(parser)
    sections = parser.sections()
    print(address, debug, db, sections)


main()
