"""The drop kinds the loader knows: the registered agents' (agent_eval.registry), and matching a file path to one."""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_eval import registry
from agent_eval.drop_kinds import DropKind


def kinds() -> tuple[DropKind, ...]:
    """Every drop kind of the registered agents (agent_eval.registry: each
    agent's module defines its kinds), in the registry's order."""
    return tuple(kind for agent in registry.registered() for kind in agent.module.KINDS)


def kind_named(name: str) -> DropKind:
    for kind in kinds():
        if kind.name == name:
            return kind
    raise KeyError(f"no registered agent reads drop kind {name!r} (seeds/registry/agents.csv)")


def match_kind(relative: str, among: Sequence[DropKind] | None = None) -> DropKind | None:
    """The kind whose pattern ``relative`` matches, of ``among`` (default:
    ``kinds()``; a scan of many files passes them once, as looking them up
    imports every agent's module)."""
    for kind in kinds() if among is None else among:
        if kind.pattern.fullmatch(relative):
            return kind
    return None


def match_kind_ignoring_case(relative: str) -> DropKind | None:
    """The kind whose file name pattern ``relative`` matches when letter
    case is ignored (``Resume_Agent_x.CSV``): a misnamed drop file."""
    for kind in kinds():
        if re.fullmatch(kind.pattern.pattern, relative, re.IGNORECASE):
            return kind
    return None
