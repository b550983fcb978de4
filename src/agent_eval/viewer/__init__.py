"""The web viewer over the published warehouse file (`agent-eval serve`)."""

from agent_eval.viewer.app import create_app

__all__ = ["create_app"]
