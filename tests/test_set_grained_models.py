"""Set-grained marts are plain selects (docs/architecture.md, "Set-grained
models"): the set_incremental materialization deletes replaced and withdrawn
sets itself, and each input is read through unbuilt(), so a model carries no
delete pre-hook, no `-- depends_on:` comment and no pasted set predicate.
What the materialization does with them is tested where it matters: a
replaced file (test_nightly_inputs), a withdrawn delivery (test_bad_inputs),
an unchanged night (test_write_checks)."""

from __future__ import annotations

import re

from conftest import PROJECT_DIR

MODELS = PROJECT_DIR / "models"
SET_INCREMENTAL = re.compile(r"materialized='set_incremental'")
INPUT_FILTER = re.compile(r"\b(unbuilt|unbuilt_item_sets)\(\s*ref\(")


def model_sql() -> dict[str, str]:
    return {path.stem: path.read_text(encoding="utf-8") for path in sorted(MODELS.rglob("*.sql"))}


def test_set_grained_models_are_plain_selects():
    set_models = {name: sql for name, sql in model_sql().items() if SET_INCREMENTAL.search(sql)}
    # every agent's set-grained marts and the history's item marts
    assert {"resume_set_scores", "engagement_run_scores", "lm_eval_item_scores", "history_items"} <= set(set_models)
    for name, sql in set_models.items():
        assert "-- depends_on:" not in sql, name
        assert "delete_replaced" not in sql, name
        assert "incremental_strategy" not in sql, name
        assert "is_unbuilt_set" not in sql and "in_sets(" not in sql and "{% set" not in sql, name
        assert INPUT_FILTER.search(sql), name


def test_only_set_incremental_models_read_unbuilt_sets():
    for name, sql in model_sql().items():
        if INPUT_FILTER.search(sql) or "lm_eval_in_unbuilt_sets" in sql:
            assert SET_INCREMENTAL.search(sql), name
