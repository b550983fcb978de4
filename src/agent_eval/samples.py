"""Deterministic sample drops with realistic Korean content.

``write_sample_drops`` writes the small bundled sample (``data/drops``): each
registered agent's samples module (agent_eval.registry) writes its own files,
in the registry's order. Same seed, same bytes.
"""

from __future__ import annotations

from pathlib import Path

from agent_eval import registry


def write_sample_drops(drops_dir: Path) -> list[Path]:
    """The bundled sample of every registered agent (``data/drops``)."""
    written: list[Path] = []
    for agent in registry.registered():
        part = agent.part("samples")
        if part is not None:
            written += part.write_samples(drops_dir)
    return written
