"""A night executes only what its files can change: the shared relations
every agent reads (the manifest, the file versions, the current sets) are
versioned by input kind, and an agent's models read their kinds' versions
(docs/decisions/0059-versions-by-input-kind.md). Each test builds one night
on the demo warehouse (every agent's samples) and reads dbt's
run_results.json: which models executed, and to which agent's folder each
belongs (dbt's manifest)."""

from __future__ import annotations

import json
import shutil

from agent_eval import registry, withdraw
from conftest import FIXTURES, Warehouse

NEW_PROMPTFOO = "2026-11-05/promptfoo/greetings_v2.json"
WITHDRAWN_RESUME = "2026-11-02/resume_agent_nightly.csv"


def executed_by_agent(wh: Warehouse) -> dict[str | None, set[str]]:
    """The models tonight's build executed (not REUSED), by the agent whose
    folder holds them (models/<layer>/<agent>/; None: shared)."""
    target = wh.paths.dbt_work_dir / "target"
    results = json.loads((target / "run_results.json").read_text())["results"]
    nodes = json.loads((target / "manifest.json").read_text())["nodes"]
    agents = set(registry.by_name())
    found: dict[str | None, set[str]] = {}
    for result in results:
        uid = result["unique_id"]
        if not uid.startswith("model.") or result["message"] == "REUSED":
            continue
        fqn = nodes[uid]["fqn"]
        agent = fqn[2] if len(fqn) > 3 and fqn[2] in agents else None
        found.setdefault(agent, set()).add(uid.split(".")[-1])
    return found


def test_a_file_of_one_agent_executes_no_model_of_another(demo_warehouse_copy):
    wh = demo_warehouse_copy
    target = wh.drops / NEW_PROMPTFOO
    target.parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "promptfoo" / "drops" / "2026-11-04" / "promptfoo" / "greetings_v2.json", target)
    assert wh.build(data_tests=False) == wh.exit_code
    executed = executed_by_agent(wh)
    assert set(executed) - {None} == {"promptfoo"}, executed
    assert "promptfoo_runs" in executed["promptfoo"]
    # the manifest and the current sets are shared: they execute
    assert {"raw_drop_files", "int_sets__current"} <= executed[None]
    # and the new sets (one per prompt, <file>#<prompt index>) are in the
    # marts, beside the other agents' sets
    prompts = len(json.loads(target.read_text(encoding="utf-8"))["results"]["table"]["head"]["prompts"])
    new_sets = [(f"{NEW_PROMPTFOO}#{index}",) for index in range(prompts)]
    for mart in ("promptfoo_runs", "eval_runs"):
        assert wh.query(f"select set_id from marts.{mart} where set_id like ? order by 1", [f"{NEW_PROMPTFOO}#%"]) == (
            new_sets
        )


def test_a_withdrawal_rebuilds_its_agent_and_no_other(demo_warehouse_copy):
    wh = demo_warehouse_copy
    sets = "select count(*) from marts.resume_set_scores where set_id = ?"
    assert wh.query(sets, [WITHDRAWN_RESUME]) == [(1,)]
    withdraw.record(wh.paths.db_path, WITHDRAWN_RESUME, reason="a test", user="owner-test")
    assert wh.build(data_tests=False) == wh.exit_code
    executed = executed_by_agent(wh)
    assert set(executed) - {None} == {"resume_agent"}, executed
    assert wh.query(sets, [WITHDRAWN_RESUME]) == [(0,)]
    assert wh.query("select count(*) from marts.resume_item_scores where set_id = ?", [WITHDRAWN_RESUME]) == [(0,)]
