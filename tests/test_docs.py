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
CONTRIBUTING = PROJECT_DIR / "CONTRIBUTING.md"
DECISIONS = PROJECT_DIR / "docs" / "decisions"
DOCS = sorted((PROJECT_DIR / "docs").glob("*.md")) + sorted(DECISIONS.glob("*.md"))
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
    for page in [README, CONTRIBUTING, *DOCS]:
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


def load_commit_message_script():
    spec = importlib.util.spec_from_file_location(
        "check_commit_message", PROJECT_DIR / "scripts" / "check_commit_message.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# where an issue number must not appear: code, models, scripts and docs
NO_ISSUE_NUMBERS = ["src", "macros", "models", "scripts", "docs", "README.md", "CONTRIBUTING.md", "BENCHMARKS.md"]


def issue_numbers_in(root: Path, places: list[str]) -> list[str]:
    """Each issue-number reference under ``places`` of ``root``, as
    ``path:line: text``; vendored third-party files and binaries skipped."""
    pattern = load_commit_message_script().ISSUE_NUMBER
    found = []
    for place in places:
        top = root / place
        for path in sorted([top] if top.is_file() else top.rglob("*")):
            if not path.is_file() or "vendor" in path.parts or "__pycache__" in path.parts:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # images, fonts
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(root)}:{line}: {match.group(0).strip()}")
    return found


def test_no_issue_numbers_in_code_or_docs():
    """Code and docs say what a thing is and why, not which ticket asked
    for it: an issue number tells a reader nothing without the tracker."""
    assert issue_numbers_in(PROJECT_DIR, NO_ISSUE_NUMBERS) == []


def test_the_issue_number_check_finds_each_form(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text(
        '"""The registry (issue 18)."""\n'
        'COLOUR = "#313695"  # a colour, not an issue\n'
        "# fixed in #12, see dbt-duckdb#616 and Issues 14 and 15\n",
        encoding="utf-8",
    )
    (tmp_path / "src" / "b.html").write_text("<p>&#34;quoted&#34; PR 7</p>\n", encoding="utf-8")
    (tmp_path / "src" / "vendor").mkdir()
    (tmp_path / "src" / "vendor" / "lib.js").write_text("// issue 3\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("Targets 7 and 8 hold; step 2 of 3.\n", encoding="utf-8")
    assert issue_numbers_in(tmp_path, ["src", "README.md"]) == [
        "src/a.py:1: issue 18",
        "src/a.py:3: #12",
        "src/a.py:3: dbt-duckdb#616",
        "src/a.py:3: Issues 14",
        "src/b.html:1: PR 7",
    ]


def test_a_commit_message_has_a_short_subject_a_blank_line_and_no_issue_number():
    problems = load_commit_message_script().problems
    assert problems("Move the loader into a package\n\nWhy, in the body.\n# a git comment, issue 9\n") == []
    assert problems("x" * 72) == []
    assert problems("x" * 73) == ["the subject is 73 characters; at most 72"]
    assert problems("Fix the lock\nbody right after the subject") == [
        "the subject is not followed by a blank line (put details in the body)"
    ]
    assert problems("Fix the lock (issue 17)") == ["issue number 'issue 17': say what it means instead"]
    assert problems("\n\n") == ["the subject line is empty"]


DECISION_SECTIONS = ["## Context", "## Decision", "## Consequences", "## Measurement"]


def test_every_decision_record_has_its_parts_and_a_line_in_the_index():
    records = sorted(DECISIONS.glob("[0-9][0-9][0-9][0-9]-*.md"))
    assert records, "docs/decisions holds the records"
    numbers = [int(path.name[:4]) for path in records]
    assert numbers == list(range(1, len(records) + 1)), "numbered 0001, 0002, ... without gaps or repeats"
    index = (DECISIONS / "README.md").read_text(encoding="utf-8")
    for path in records:
        assert re.fullmatch(r"[0-9]{4}-[a-z0-9]+(?:-[a-z0-9]+)*\.md", path.name), path.name
        lines = path.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith(f"# {path.name[:4]}. "), path.name
        assert "Status: accepted" in lines, path.name
        headings = [line for line in lines if line.startswith("## ")]
        assert headings == DECISION_SECTIONS, path.name
        assert f"]({path.name})" in index, path.name
    linked = re.findall(r"\]\(([0-9]{4}-[^)]+\.md)\)", index)
    assert sorted(linked) == [path.name for path in records]
    assert not (PROJECT_DIR / "docs" / "decisions.md").exists()


def test_contributing_is_short_and_linked_from_the_readme_and_the_docs():
    assert len(CONTRIBUTING.read_text(encoding="utf-8").splitlines()) <= 80
    assert "(CONTRIBUTING.md)" in README.read_text(encoding="utf-8")
    assert "CONTRIBUTING.md" in (DECISIONS / "README.md").read_text(encoding="utf-8")
