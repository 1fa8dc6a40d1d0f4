"""core/onuse.py: `orjson` imported when an attribute of it is first asked for, and the real
module's attributes from then on."""
from __future__ import annotations

import subprocess
import sys


def test_orjson_is_imported_at_its_first_use_and_then_is_the_real_one() -> None:
    code = """if True:
        import sys
        from sessionscope.core.onuse import OnUse, orjson
        print("orjson" in sys.modules)
        print(orjson.dumps({"a": [1, "é"]}).decode(), "orjson" in sys.modules)
        import orjson as real
        print(orjson.loads is real.loads, issubclass(orjson.JSONDecodeError, ValueError))
        lazy = OnUse("json")
        print(lazy.dumps([1]), lazy.loads is __import__("json").loads)
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["False", '{"a":[1,"é"]} True', "True True", "[1] True"]


def test_compact_json_writes_what_orjson_wrote_for_the_small_documents() -> None:
    """A snapshot's signature and the index's synced note were orjson's bytes: the standard
    library's compact form is the same for their shapes (ASCII strings, ints, bools, None, lists)."""
    import orjson

    from sessionscope.core.onuse import compact_json

    doc = [3, [0, [0, 27]], [".jsonl", ".json"], [["/home/u/.claude/projects", "claude", True, None, False, ""]],
           {"cap": 4000, "stems": True}, 1.5]
    assert compact_json(doc) == orjson.dumps(doc).decode()
