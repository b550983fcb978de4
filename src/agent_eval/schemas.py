"""The JSON Schemas shipped with the package (``agent_eval/schemas/*.json``).

``expected-schema.json`` describes an engagement ``expected.json`` (SPEC §5);
the loader rejects a file that does not conform, and ``agent-eval evaluate``
refuses it before computing anything. ``result-schema.json`` describes what
``agent-eval evaluate`` writes. The repository's ``schemas/`` folder links to
the same files.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

EXPECTED_SCHEMA = "expected-schema.json"
RESULT_SCHEMA = "result-schema.json"
ENGAGEMENT_METRICS: tuple[str, ...] = ("likeCount", "commentCount", "likeRate", "commentRate")


@cache
def load_schema(name: str) -> dict[str, Any]:
    text = resources.files("agent_eval").joinpath("schemas", name).read_text(encoding="utf-8")
    return json.loads(text)


def schema_problem(document: Any, name: str) -> str | None:
    """The first problem of ``document`` against schema ``name``, or None."""
    schema = load_schema(name)
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is None:
        return None
    return f"invalid against {name}: at {error.json_path}: {error.message}"


def expected_problem(document: Any) -> str | None:
    """Why an expected.json document cannot be used, or None when it can.

    The commonest mistake (no metric in ``expected``) gets its own message;
    everything else is reported as the schema's first error.
    """
    if isinstance(document, dict):
        expected = document.get("expected")
        if not isinstance(expected, dict) or not any(m in expected for m in ENGAGEMENT_METRICS):
            return (
                "no metric in 'expected': give at least one of "
                + ", ".join(ENGAGEMENT_METRICS)
                + f" ({EXPECTED_SCHEMA})"
            )
    return schema_problem(document, EXPECTED_SCHEMA)


def result_problem(document: Any) -> str | None:
    return schema_problem(document, RESULT_SCHEMA)
