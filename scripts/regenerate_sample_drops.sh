#!/usr/bin/env bash
# Rewrite the bundled sample drops (data/drops) from the deterministic
# generator. Run after changing src/agent_eval/samples*.py; the test suite
# fails while the committed sample and the generator disagree.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf data/drops
.venv/bin/agent-eval samples --out data/drops
