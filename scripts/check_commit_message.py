#!/usr/bin/env python3
"""Check a commit message against the house rules (CONTRIBUTING.md).

A subject of at most 72 characters, a blank line before any body, and no
issue numbers: a message says what the change does and why. Usable as a
git ``commit-msg`` hook (git passes the message file's path):

    scripts/check_commit_message.py .git/COMMIT_EDITMSG

Exit 0 when the message keeps the rules; 1 with one line per problem.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SUBJECT_MAX = 72
# an issue or pull-request reference: "issue", "issues", "PR" or "pull
# request" followed by a number (with or without "#"), a "#" and a number
# standing alone, or a "#" and a number right after a repository's name
ISSUE_NUMBER = re.compile(
    r"\bissues?[ \t]*#?[ \t]*\d+"
    r"|\b(?:PR|pull request)[ \t]*#?[ \t]*\d+"
    r"|(?:^|(?<=[\s(\[]))#\d+\b"
    r"|\b[A-Za-z][\w.-]*(?:/[\w.-]+)?#\d+\b",
    re.I | re.M,
)


def problems(message: str) -> list[str]:
    """What breaks the rules in a commit message (git's comment lines, which
    git strips, are left out)."""
    lines = [line for line in message.splitlines() if not line.startswith("#")]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines or not lines[0].strip():
        return ["the subject line is empty"]
    found = []
    subject = lines[0]
    if len(subject) > SUBJECT_MAX:
        found.append(f"the subject is {len(subject)} characters; at most {SUBJECT_MAX}")
    if len(lines) > 1 and lines[1].strip():
        found.append("the subject is not followed by a blank line (put details in the body)")
    for match in ISSUE_NUMBER.finditer("\n".join(lines)):
        found.append(f"issue number {match.group(0).strip()!r}: say what it means instead")
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: check_commit_message.py <message file>", file=sys.stderr)
        return 2
    found = problems(Path(argv[0]).read_text(encoding="utf-8"))
    for problem in found:
        print(f"commit message: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
