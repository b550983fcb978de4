"""The suite's own cost rules (docs/testing.md, "How the test suite keeps its
cost down"): the bundled sample drops are built once per session, as the
shared demo warehouse, and never again by a module of its own."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).parent
# a warehouse of the sample drops built outside the shared fixtures
OWN_SAMPLE_BUILD = re.compile(r"add_fixture\(\s*[\"']samples[\"']\s*\)|drops_dir\s*=\s*SAMPLE_DROPS")


def test_no_module_builds_the_sample_drops_itself():
    found = {
        path.name: OWN_SAMPLE_BUILD.findall(path.read_text(encoding="utf-8"))
        for path in sorted(TESTS.glob("test_*.py"))
        if path.name != Path(__file__).name
    }
    assert {name: hits for name, hits in found.items() if hits} == {}, (
        "use the demo_warehouse (read only) or demo_warehouse_copy fixture"
    )


def test_the_pattern_finds_both_ways_of_building_the_samples():
    assert OWN_SAMPLE_BUILD.search('    wh.add_fixture("samples")\n')
    assert OWN_SAMPLE_BUILD.search("        drops_dir=SAMPLE_DROPS,\n")
    assert not OWN_SAMPLE_BUILD.search('    wh.add_fixture("samples_extra")\n')
    assert not OWN_SAMPLE_BUILD.search('    raw = (SAMPLE_DROPS / "2026-11-01").read_bytes()\n')
