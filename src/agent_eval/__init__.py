"""Agent evaluation warehouse."""
