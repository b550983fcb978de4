"""The suite's own cost rules (docs/testing.md, "How the test suite keeps its
cost down"): the bundled sample drops are built once per session, as the
shared demo warehouse, and never again by a module of its own."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import LONGEST_MODULES, module_rank

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


def test_the_longest_modules_are_modules_and_collected_first():
    modules = {path.stem for path in TESTS.glob("test_*.py")}
    assert set(LONGEST_MODULES) <= modules, "a module listed in LONGEST_MODULES is gone or renamed"
    assert len(set(LONGEST_MODULES)) == len(LONGEST_MODULES)
    ranks = [module_rank(name) for name in (*LONGEST_MODULES, "test_docs")]
    assert ranks == sorted(ranks) and ranks[-1] == len(LONGEST_MODULES)


def test_make_test_keeps_collection_order():
    makefile = (TESTS.parent / "Makefile").read_text(encoding="utf-8")
    (command,) = re.findall(r"^\t.*-m pytest -n 2 .*$", makefile, flags=re.MULTILINE)
    assert "--dist loadfile" in command and "--no-loadscope-reorder" in command
