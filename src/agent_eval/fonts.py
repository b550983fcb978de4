"""The Korean font every chart and viewer page is set in (NanumGothic).

One lookup shared by the PNG charts (agent_eval.charts) and the web viewer,
which serves the same file to the browser so Korean renders without any
font installed on the reader's machine (and without a CDN).
"""

from __future__ import annotations

import functools
import importlib.util
import io
from pathlib import Path

FONT_PACKAGE = "koreanize_matplotlib"
FONT_FILE = Path("fonts") / "NanumGothic.ttf"


def font_path() -> Path:
    """The TrueType file (NanumGothic) that koreanize-matplotlib ships.

    Located without importing koreanize_matplotlib: importing it restyles
    matplotlib globally, which the charts do not want.
    """
    spec = importlib.util.find_spec(FONT_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    path = Path(locations[0]) / FONT_FILE if locations else None
    if path is None or not path.is_file():
        raise FileNotFoundError(
            f"the chart font {FONT_FILE.name} was not found; install the project's "
            "dependencies (pip install -e .), which include koreanize-matplotlib"
        )
    return path


# Tables a browser's font sanitizer (Chromium's OTS) refuses: NanumGothic
# carries Microsoft VTT hinting sources (TSI0-TSI5), one of them empty, and
# Chromium then drops the whole font ("OTS parsing error: TSI3: zero-length
# table"). They are authoring data, not used to render.
WEB_UNSAFE_TABLES = ("TSI0", "TSI1", "TSI2", "TSI3", "TSI5")


@functools.lru_cache(maxsize=1)
def web_font_bytes() -> bytes:
    """The font as the viewer serves it: the same glyphs, without the tables
    browsers refuse (made once per process, about 0.2 s)."""
    from fontTools.ttLib import TTFont

    font = TTFont(str(font_path()))
    for tag in WEB_UNSAFE_TABLES:
        if tag in font:
            del font[tag]
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()
