import re
import urllib.request
from urllib.parse import urljoin

BASE_URL = "http://127.0.0.1:8000"
HREF = re.compile(r'<a href="([^"]+)">([^<]+)</a>')


def fetch_text(path):
    with urllib.request.urlopen(BASE_URL + path, timeout=5) as response:
        charset = response.headers.get_content_charset() or "utf-8"
        return response.read().decode(charset)


def page_title(html):
    m = re.search(r"<title>(.*?)</title>", html)
    return m.group(1) if m else ""


def links(html, base):
    result = []
    for href, label in HREF.findall(html):
        if href.startswith("mailto:"):
            continue
        result.append((label, urljoin(base, href)))
    return result


def main():
    html = fetch_text("/page.html")
    title = page_title(html)
    found = links(html, BASE_URL + "/page.html")
    internal = [url for _, url in found if url.startswith(BASE_URL)]
    print(title, len(found), len(internal))


main()
