"""The README as a guide and the docs it points to: its shape, its two
commands (the second is what CI runs), links that resolve, and the
screenshot script's small PNGs. No dbt: part of `make test-fast`."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from PIL import Image

from agent_eval import cli
from conftest import PROJECT_DIR

README = PROJECT_DIR / "README.md"
DOCS = sorted((PROJECT_DIR / "docs").glob("*.md"))
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
INLINE_CODE = re.compile(r"`[^`\n]*`")


def prose(path: Path) -> str:
    """A markdown file without its fenced code blocks."""
    return FENCE.sub("", path.read_text(encoding="utf-8"))


def github_anchors(path: Path) -> set[str]:
    """The anchors GitHub gives a file's headings: lower case, punctuation
    dropped, spaces to hyphens, a repeated heading numbered -1, -2, ..."""
    seen: dict[str, int] = {}
    anchors = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *$", prose(path), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def code_blocks_after(text: str, marker: str) -> str:
    """The first fenced block after ``marker``, without its fences."""
    rest = text[text.index(marker) :]
    block = re.search(r"^```[a-z]*\n(.*?)^```", rest, re.S | re.M)
    assert block, marker
    return block.group(1).strip()


def test_readme_is_a_short_guide_with_the_viewer_at_the_top():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    first_section = next(i for i, line in enumerate(lines) if line.startswith("## "))
    images = [(i, m.group(1)) for i, line in enumerate(lines) for m in re.finditer(r"!\[[^\]]*\]\(([^)]+)\)", line)]
    assert images, "the README shows the viewer"
    first_line, first_image = images[0]
    assert first_line < first_section, "the screenshot comes with the first paragraph"
    assert first_image == "docs/img/viewer_overview.png"
    assert (PROJECT_DIR / first_image).is_file()
    sections = [line[3:] for line in lines if line.startswith("## ")]
    assert sections[:2] == ["The two commands", "Nightly use"]
    assert "Where the results are" in sections and "Reference" in sections


def test_readme_keeps_no_log():
    """Figures live in BENCHMARKS.md, history in git: the README holds no
    commit hashes, issue numbers or measured times."""
    text = prose(README)
    hashes = [w for w in re.findall(r"\b[0-9a-f]{7,40}\b", text) if re.search(r"\d", w) and re.search(r"[a-f]", w)]
    assert hashes == []
    assert re.findall(r"\bissues? \d+", text, re.I) == []
    assert re.findall(r"\b\d+(?:\.\d+)? ?(?:ms|s|min|minutes|seconds|MiB|MB)\b", text) == []
    assert "BENCHMARKS.md" in text


def test_ci_runs_the_readmes_test_command_and_make_has_both():
    text = README.read_text(encoding="utf-8")
    first = code_blocks_after(text, "**1. ")
    second = code_blocks_after(text, "**2. ")
    assert (first, second) == ("make demo", "make test")
    ci = [
        line.strip()
        for line in (PROJECT_DIR / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert ci[-1] == second
    makefile = (PROJECT_DIR / "Makefile").read_text(encoding="utf-8")
    for target in ("demo", "test", "test-fast", "serve"):
        assert re.search(rf"^{re.escape(target)}:", makefile, re.M), target


def test_every_relative_link_of_the_readme_and_docs_resolves():
    broken = []
    for page in [README, *DOCS]:
        for target in LINK.findall(INLINE_CODE.sub("", prose(page))):
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto
            file_part, _, anchor = target.partition("#")
            linked = (page.parent / file_part).resolve() if file_part else page
            if not linked.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in github_anchors(linked):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def test_help_points_at_the_doc_that_holds_the_exit_codes():
    named = re.search(r"docs/[\w-]+\.md", cli.EXIT_CODES)
    assert named, cli.EXIT_CODES.splitlines()[0]
    doc = (PROJECT_DIR / named.group(0)).read_text(encoding="utf-8")
    table = doc[doc.index("### Exit codes of `agent-eval build`") :]
    for code in range(5):
        assert f"\n| {code} |" in table, code


def load_screenshot_script():
    spec = importlib.util.spec_from_file_location("viewer_screenshot", PROJECT_DIR / "scripts" / "viewer_screenshot.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_screenshots_are_stored_with_a_palette(tmp_path):
    # a 300 x 200 RGB picture of 60,000 distinct colours, as a screenshot's
    # anti-aliased text has thousands
    image = Image.new("RGB", (300, 200))
    image.putdata([(x % 256, y, (x * y) % 256) for y in range(200) for x in range(300)])
    png = tmp_path / "shot.png"
    image.save(png)
    before = png.stat().st_size
    load_screenshot_script().shrink_png(png)
    with Image.open(png) as shrunk:
        assert shrunk.mode == "P"
        assert shrunk.size == (300, 200)
        assert len(shrunk.getcolors(maxcolors=65536)) <= 256
    assert png.stat().st_size < before
