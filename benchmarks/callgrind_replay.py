"""Replay every match of a JSON Lines corpus once with ``replay_match``: the input of a callgrind
comparison of two builds of the engine (docs/performance.md, "The replayer by phase").

The lines are parsed and grouped by match first, so that collecting only inside ``replay_match``
counts the replay alone:

    PYTHONHASHSEED=0 valgrind --tool=callgrind \\
        --toggle-collect='CPyDef_replay___replayer___replay_match' \\
        V/bin/python benchmarks/callgrind_replay.py /tmp/gdan-replay-golden/corpus.jsonl

(the corpus of ``check_replay_output.py --save``; ``V`` a venv where the engine is compiled). It
prints whether the compiled engine ran and the matches by status.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from check_replay_output import events_by_match

from replay.native import is_compiled
from replay.replayer import replay_match


def matches(corpus: Path) -> list[list[dict[str, Any]]]:
    """The corpus's events grouped by match, as the output guard groups them."""
    return list(events_by_match(corpus.read_bytes().splitlines()).values())


def main() -> None:
    statuses: dict[str, int] = {}
    for events in matches(Path(sys.argv[1])):
        status = replay_match(events).status
        statuses[status] = statuses.get(status, 0) + 1
    print("compiled" if is_compiled() else "SOURCES", statuses)


if __name__ == "__main__":
    main()
