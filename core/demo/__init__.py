"""The built-in demo corpus: agent session files kept as templates, and the small generator that
writes them out with times that sit in the three weeks before "now".

May import the foundation modules and `core.memory` (for `demo_memory`); nothing imports it but
the command line, the app and the tests.

What it holds (`data/`, package data): a transcript of each agent in its own on-disk format
(`claude/*.jsonl`, `codex/*.jsonl`; the few-MB one as `.jsonl.xz`), a subagent's `.meta.json`,
and the demo projects' memory (`memory/`: session notes, Claude Code auto-memory, a
CLAUDE.md/AGENTS.md pair). `data/manifest.json` lists every file in the order it is written:

    {"template": "codex/codex-exec.jsonl",      # under data/
     "path": "codex/sessions/{{d-11T06:17:44|%Y/%m/%d}}/rollout-....jsonl",   # under the root
     "mtime": "d-11T06:18:52.829943",           # a time (below); "|s": floored to the second
     "agent": "codex",                           # a transcript of this agent (else an extra file)
     "subagent": true, "mark": "exec", "memory": true}   # optional

Times are placeholders, in templates and in output paths alike: `{{TIME}}` or `{{TIME|FORMAT}}`.
TIME is `d-20T09:17:54.869123` (20 days before today's UTC midnight, at that time of day) or
`now-03:25:15.963` (relative to `now` itself); FORMAT is empty (ISO 8601 in UTC with
milliseconds and `Z`, as Claude Code and Codex write), `epoch` (whole seconds; write it as a JSON
string, `"{{...|epoch}}"`, and the quotes are dropped), `uuid7-7127-8a5d-c74362fdc3b7` (a UUIDv7
whose time is TIME, the rest as given) or a `strftime` pattern (`%Y-%m-%d`). Everything else,
ids included, is written exactly as the template has it: the same `now` gives the same bytes and
file times.

Adding a session of another agent: write one template per file the agent keeps on disk, in its
own format (copy a real file's shape, FORMATS.md), with its times as placeholders; put it under
`data/<agent>/`; add an entry for each file to the manifest (its path as the agent lays it out,
under a folder of the root named after the agent); give `DemoCorpus` and `demo_roots` (cli) the
new root if the agent has one of its own. `tests/core/test_demo.py` checks that every template
is listed and every placeholder well formed.
"""
from .generate import DemoCorpus, demo_memory, escape_project_dir, generate_demo, render

__all__ = ["DemoCorpus", "generate_demo", "escape_project_dir", "demo_memory", "render"]
