"""The README's screenshot of the web viewer (`make readme-chart`).

Serves a published file on a free loopback port, opens the overview (or
another page: a third argument such as `/set?id=...`) in Debian's Chromium
through Playwright (as tests/test_viewer.py does) and writes a PNG of the
first screen. The PNG is stored with a palette of at most 256 colours: a
page of text and flat colours looks the same and the file committed under
docs/img/ stays small.

    .venv/bin/python scripts/viewer_screenshot.py warehouse/published/demo.duckdb docs/img/viewer_overview.png
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import waitress
from PIL import Image
from playwright.sync_api import sync_playwright

from agent_eval.viewer import create_app

FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def shrink_png(path: Path) -> None:
    """Store a screenshot with an adaptive palette of at most 256 colours,
    same size; PNG's optimizer on top."""
    with Image.open(path) as image:
        palette = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    palette.save(path, optimize=True)


def main(published: str, out: str, path: str = "/") -> None:
    server = waitress.create_server(create_app(Path(published)), host="127.0.0.1", port=0, threads=2)
    threading.Thread(target=server.run, daemon=True).start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS, headless=True)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"http://127.0.0.1:{server.effective_port}{path}")
            page.evaluate("document.fonts.load('16px NanumGothic', '지원자')")
            page.screenshot(path=out, full_page=False)
            browser.close()
    finally:
        server.close()
    shrink_png(Path(out))
    print(f"wrote {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
