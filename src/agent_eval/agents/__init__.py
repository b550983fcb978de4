"""The agents' packages, one per registered agent (agent_eval.registry
reads the registry and imports them by name). Nothing here: an agent's
package imports nothing from above the registry (tests/test_agents.py)."""
