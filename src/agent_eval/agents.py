"""The agents the warehouse evaluates, in one place (issue 18).

What the Python side must know of each agent - its name, how its owners say
it, the drop kinds it reads, its set-level mart, where its reports go - is
written here once; the report renderers, charts, samples, the morning page
and the viewer look agents up here instead of keeping lists of their own.
``tests/test_agents.py`` checks that every registered agent has a renderer,
charts, trend metrics, a sample writer and drop kinds, and that no module
knows an agent this registry does not.

Imports nothing of the package (the dbt loader models import ``ingest``,
which must stay light).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Agent:
    name: str
    # as the agent's owners say it (Korean): the morning page, the viewer
    label: str
    # the drop kinds (agent_eval.ingest.KINDS) whose files are this agent's input
    kinds: tuple[str, ...]
    # the mart with one row per set: what `agent-eval report --set` may name
    set_table: str
    # a set is one file (<date>/<file name>) or one run folder (<date>/engagement/<run id>)
    set_is_run_folder: bool = False

    def report_path(self, reports_dir: Path, set_id: str) -> Path:
        """Where the agent's renderer writes the report of ``set_id``:
        reports/<agent>/<date>/<file stem>.md, or for a run folder
        reports/<agent>/<date>/<run id>.md."""
        if self.set_is_run_folder:
            drop_date, _, run_id = set_id.split("/", 2)
            return reports_dir / self.name / drop_date / f"{run_id}.md"
        return reports_dir / self.name / Path(set_id).with_suffix(".md")


# In the order reports are rendered and samples written.
AGENTS: tuple[Agent, ...] = (
    Agent("resume_agent", "지원자 관리", ("resume_agent",), "marts.resume_set_scores"),
    Agent("recruit_agent", "H.채용", ("recruit_agent",), "marts.recruit_set_scores"),
    Agent(
        "engagement",
        "좋아요/댓글 유사도",
        ("engagement_actions", "engagement_expected"),
        "marts.engagement_run_scores",
        set_is_run_folder=True,
    ),
    Agent("summary", "보험 요약", ("summary",), "marts.summary_set_scores"),
)

BY_NAME: dict[str, Agent] = {agent.name: agent for agent in AGENTS}

# agent name -> label, for templates
LABELS: dict[str, str] = {agent.name: agent.label for agent in AGENTS}


def label(name: str) -> str:
    """The agent's label; the name itself for an agent not registered."""
    return LABELS.get(name, name)
