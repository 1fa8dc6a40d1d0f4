"""`sessionscope export` and core/export/ (issue 16): a session with its subagents inline, tool
calls folded, diffs, thinking optional, secrets masked on request, in Markdown, HTML and JSON;
and transcript text inert in every format (the injection cases below)."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helpers import DATA, isolate
from hostile import HOSTILE, raw_controls

from sessionscope.cli.main import main
from sessionscope.core.catalog.library import Library
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.export.document import export_session
from sessionscope.core.export.render import inert_markdown, render, to_html, to_markdown
from sessionscope.core.read.discovery import Root

SID = "export-evil-0001"
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
# Each a way transcript text could try to become live in an exported page.
INJECTIONS = [
    "<script>alert('s1')</script>",
    "<img src=x onerror=alert('s2')>",
    "<svg onload=alert('s3')></svg>",
    "[click me](javascript:alert('s4'))",
    "[click me](JaVaScRiPt:alert('s5'))",
    "[click me](java&#x73;cript:alert('s6'))",
    "<javascript:alert('s7')>",
    "[ref]\n\n[ref]: javascript:alert('s8')",
    "<a href=\"javascript:alert('s9')\">a</a>",
    "[v](vbscript:msgbox('s10'))",
    "[d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "</details></summary><script>alert('s11')</script>",
    "<!-- --><iframe src=\"https://evil.example\"></iframe>",
    "![x](https://evil.example/track.png)",
    "```\nan unclosed fence, then <script>alert('s12')</script>",
]


def _evil_session(root: Path) -> Path:
    lines: list[dict[str, object]] = [
        {"session_id": SID, "agent_id": "my-agent", "started_at": "2026-03-01T09:00:00Z",
         "project": "/w/proj", "title": "<script>alert('title')</script> " + HOSTILE}]
    t = 0

    def ts() -> str:
        nonlocal t
        t += 1
        return f"2026-03-01T10:{t:02d}:00Z"

    for i, text in enumerate(INJECTIONS):
        lines.append({"role": "user" if i % 2 == 0 else "assistant", "content": text, "timestamp": ts()})
    lines.append({"role": "assistant", "content": "escapes: " + HOSTILE + f" token {SECRET}", "timestamp": ts()})
    lines.append({"role": "assistant", "kind": "thinking", "content": "a private thought", "timestamp": ts()})
    lines.append({"role": "assistant", "kind": "tool_use", "tool_name": "Bash", "tool_use_id": "c1",
                  "tool_input": {"command": "echo '</pre><script>alert(13)</script>' \x1b[2J " + SECRET},
                  "content": "", "timestamp": ts()})
    lines.append({"role": "tool", "tool_use_id": "c1", "timestamp": ts(),
                  "content": "<script>alert('s14')</script>\x1b]52;c;SGVsbG8=\x07 ``` ````"})
    lines.append({"role": "assistant", "kind": "tool_use", "tool_name": "Edit", "tool_use_id": "c2",
                  "tool_input": {"file_path": "/w/proj/a.py", "old_string": "x = 1\n", "new_string": "x = 2  # <b onclick=alert(15)>\n"},
                  "content": "", "timestamp": ts()})
    lines.append({"role": "tool", "tool_use_id": "c2", "content": "updated", "timestamp": ts()})
    path = root / "evil.jsonl"
    root.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def _library(root: Path) -> Library:
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(None))
    lib.scan()
    return lib


@pytest.fixture
def evil(tmp_path: Path) -> Library:
    _evil_session(tmp_path / "root")
    return _library(tmp_path / "root")


class _Tags(HTMLParser):
    """Every element and attribute of a page, as a browser's parser sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def live_parts(page: str) -> list[str]:
    """What in an HTML page could run or fetch: script-like elements, event-handler attributes,
    links or sources whose scheme runs code or loads data, and any external resource."""
    parser = _Tags()
    parser.feed(page)
    bad = []
    for tag, attrs in parser.tags:
        if tag in ("script", "iframe", "object", "embed", "form", "base", "link", "svg", "img", "meta") \
                and not (tag == "meta" and dict(attrs).keys() <= {"charset", "http-equiv", "content", "name"}):
            bad.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on"):
                bad.append(f"<{tag} {name}>")
            if name in ("href", "src", "action", "formaction", "xlink:href") and value is not None:
                scheme = re.sub(r"[\s\x00-\x1f]", "", value).lower()
                fetched = ("http:", "https:", "//") if name != "href" else ()  # a link is followed only if clicked
                if scheme.startswith(("javascript:", "vbscript:", "data:", "file:", *fetched)):
                    bad.append(f"<{tag} {name}={value}>")
    return bad


# -- inert in every format ---------------------------------------------------------------------------
def test_html_export_has_no_script_handler_or_dangerous_link_and_no_external_asset(evil: Library) -> None:
    page = to_html(export_session(evil, evil.find(SID)))
    assert live_parts(page) == []
    assert raw_controls(page) == []
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    # the text is all there, as text
    assert "&lt;script&gt;alert(&#x27;s1&#x27;)&lt;/script&gt;" in page or "&lt;script&gt;alert('s1')" in page
    assert "javascript:alert" in page  # shown, not linked
    assert "␛[2J" in page


def test_markdown_export_renders_inert_even_where_html_is_allowed(evil: Library) -> None:
    from markdown_it import MarkdownIt

    md = to_markdown(export_session(evil, evil.find(SID)))
    assert raw_controls(md) == []
    assert "\x1b" not in md and "␛]52;c;SGVsbG8=␇" in md
    # A renderer that lets raw HTML through (as GitHub does for <details>) and links what it may:
    # still nothing of the transcript's becomes live.
    page = MarkdownIt("commonmark", {"html": True, "linkify": False}).render(md)
    assert live_parts(page) == [], live_parts(page)
    # ... and with markdown-it's link check off (a renderer that links any scheme)
    loose = MarkdownIt("commonmark", {"html": True})
    loose.validateLink = lambda url: True  # type: ignore[method-assign]
    assert [p for p in live_parts(loose.render(md)) if "javascript" in p.lower() or "vbscript" in p.lower()
            or "script>" in p or " on" in p] == []
    # our own folds are balanced: the transcript's </details> closed none of them
    assert md.count("<details>") == md.count("</details>")


def test_inert_markdown_keeps_code_and_shows_the_same_text() -> None:
    from markdown_it import MarkdownIt

    text = "a < b && c\n\n`<tag>` stays\n\n```html\n<b>bold</b>\n```\n[x](javascript:go)"
    out = inert_markdown(text)
    assert "`<tag>`" in out and "<b>bold</b>" in out  # code untouched
    assert "a &lt; b &amp;&amp; c" in out
    rendered = MarkdownIt("commonmark").render(out)
    assert "a &lt; b &amp;&amp; c" in rendered  # shown as "a < b && c"
    assert live_parts(rendered) == [] and 'href="javascript:' not in rendered  # a harmless relative link at most


def test_json_export_escapes_controls_and_keeps_the_values(evil: Library) -> None:
    doc = export_session(evil, evil.find(SID))
    text = render(doc, "json")
    assert raw_controls(text) == []
    data = json.loads(text)
    assert data["format"] == "sessionscope-export"
    texts = [i["text"] for i in data["items"]]
    assert "escapes: " + HOSTILE + f" token {SECRET}" in texts  # the value itself, escaped in the file
    tool = next(i for i in data["items"] if i["kind"] == "tool" and i["tool_name"] == "Bash")
    assert tool["result"].startswith("<script>alert('s14')</script>\x1b]52")


# -- content ---------------------------------------------------------------------------------------
def test_tool_calls_fold_with_results_and_edits_show_as_diffs(evil: Library) -> None:
    doc = export_session(evil, evil.find(SID))
    md = to_markdown(doc)
    assert "<details><summary>Bash: echo" in md
    assert re.search(r"```diff\n-x = 1\n\+x = 2  # <b onclick=alert\(15\)>", md)  # in a fence: inert
    assert "Result:\n\n`````\n<script>alert('s14')</script>" in md  # a fence longer than its ````
    page = to_html(doc)
    assert page.count("<details") == page.count("</details>")
    assert "gd" in page and "gi" in page  # Pygments' deleted/inserted diff classes


def test_thinking_is_left_out_unless_asked_for(evil: Library) -> None:
    session = evil.find(SID)
    assert "a private thought" not in to_markdown(export_session(evil, session))
    assert "a private thought" in to_markdown(export_session(evil, session, thinking=True))


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_mask_secrets_masks_text_and_tool_input_in_every_format(evil: Library, fmt: str) -> None:
    session = evil.find(SID)
    assert SECRET in render(export_session(evil, session), fmt)
    masked = render(export_session(evil, session, mask=True), fmt)
    assert SECRET not in masked and "secret masked" in masked


@pytest.mark.parametrize("layout", ["inline", "sibling", "nested"])  # Claude Code <=1.0, 2.0, 2.1
def test_subagents_are_inline_under_the_call_that_started_them(layout: str) -> None:
    lib = _library(DATA / "subagents" / layout)
    main_session = next(s for s in lib.all_sessions() if s.kind.value == "main" and s.parent_id is None)
    doc = export_session(lib, main_session)
    calls = [b for b in doc.blocks if b.subagent is not None]
    assert len(calls) == 2 and doc.counts()[1] == 2
    for call in calls:
        assert call.subagent is not None and call.subagent.session.parent_id == main_session.id
        assert call.subagent.blocks and call.subagent.error is None
    md = to_markdown(doc)
    assert md.count("Subagent: ") == 2
    first_child_text = next(b.text for b in calls[0].subagent.blocks if b.kind == "message")  # type: ignore[union-attr]
    assert md.index(calls[0].summary) < md.index(first_child_text.split("\n")[0][:40])
    data = json.loads(render(doc, "json"))
    assert sum("subagent" in i for i in data["items"]) == 2


# -- the command -------------------------------------------------------------------------------------
@pytest.fixture
def cli_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    isolate(tmp_path, monkeypatch)
    root = tmp_path / "root"
    _evil_session(root)
    return root


def test_cli_writes_the_format_of_the_suffix_and_says_where(cli_root: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "out.html"
    assert main(["export", SID[:12], "--root", str(cli_root), "-o", str(out_file)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"wrote {out_file} (html: ") and err == ""
    assert out_file.read_text().startswith("<!DOCTYPE html>")
    assert main(["export", SID, "--root", str(cli_root), "--format", "json", "-o", str(tmp_path / "o.x"),
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["format"] == "json" and report["subagents"] == 0
    assert json.loads((tmp_path / "o.x").read_text())["session"]["session_id"] == SID


def test_cli_markdown_to_stdout_has_no_raw_escapes(cli_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", SID, "--root", str(cli_root)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# ") and raw_controls(out) == []


@pytest.mark.parametrize("argv, message", [
    (["export", "nosuch"], "nosuch"),
    (["export", SID, "--json"], "with --json give -o FILE"),
    (["export", SID, "-o", "/no/such/folder/x.md"], "no such folder: /no/such/folder"),
])
def test_cli_bad_input_is_one_line(cli_root: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                   message: str) -> None:
    assert main([*argv, "--root", str(cli_root)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_cli_never_writes_into_a_root(cli_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = cli_root / "export.md"
    assert main(["export", SID, "--root", str(cli_root), "-o", str(target)]) == 2
    assert "an agent's folder: sessionscope never writes there" in capsys.readouterr().err
    assert not target.exists()


# -- a project or a date range to a folder --------------------------------------------------------------
def _three_sessions(root: Path) -> None:
    from helpers import write_session

    write_session(root / "a.jsonl", "sess-alpha", ["alpha question", "alpha <script>alert(1)</script>"],
                  project="/w/alpha", day=1)
    write_session(root / "b.jsonl", "sess-beta", ["beta question", "beta answer"], project="/w/alpha", day=10)
    write_session(root / "c.jsonl", "sess-gamma", ["gamma question", "gamma answer"], project="/w/other", day=10)


@pytest.mark.parametrize("fmt", ["html", "md", "json"])
def test_a_project_exports_to_a_folder_with_an_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    isolate(tmp_path, monkeypatch)
    _three_sessions(tmp_path / "root")
    out = tmp_path / "out"
    assert main(["export", "--project", "alpha", "--format", fmt, "-o", str(out), "--root", str(tmp_path / "root")]) == 0
    assert "wrote 2 session(s)" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == sorted([f"index.{fmt}", f"sess-alpha.{fmt}", f"sess-beta.{fmt}"])
    index = (out / f"index.{fmt}").read_text()
    assert index.index("sess-beta") < index.index("sess-alpha")  # newest first
    assert "sess-gamma" not in index
    if fmt == "html":
        assert live_parts(index) == [] and 'href="sess-alpha.html"' in index
        assert live_parts((out / "sess-alpha.html").read_text()) == []
    if fmt == "json":
        assert [s["file"] for s in json.loads(index)["sessions"]] == ["sess-beta.json", "sess-alpha.json"]


def test_a_date_range_takes_the_sessions_active_within_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    isolate(tmp_path, monkeypatch)
    _three_sessions(tmp_path / "root")
    out = tmp_path / "out"
    assert main(["export", "--since", "2026-03-05", "--until", "2026-03-10", "-o", str(out), "--json",
                 "--root", str(tmp_path / "root")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert sorted(w["session_id"] for w in report["sessions"]) == ["sess-beta", "sess-gamma"]
    assert report["index"] == str((out / "index.html").resolve())
    assert main(["export", "--until", "2026-03-09", "-o", str(tmp_path / "early"), "--json",
                 "--root", str(tmp_path / "root")]) == 0
    assert [w["session_id"] for w in json.loads(capsys.readouterr().out)["sessions"]] == ["sess-alpha"]


@pytest.mark.parametrize("argv, message", [
    (["export", "--project", "alpha"], "give -o FOLDER"),
    (["export", "-o", "x"], "give a SESSION_ID, or --project, --since or --until"),
    (["export", "--since", "soon", "-o", "x"], "cannot read 'soon' as a date"),
    (["export", "--project", "nothing-here", "-o", "x"], "no session matches"),
])
def test_folder_export_bad_input_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    isolate(tmp_path, monkeypatch)
    _three_sessions(tmp_path / "root")
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--root", str(tmp_path / "root")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_folder_export_never_writes_into_a_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    isolate(tmp_path, monkeypatch)
    _three_sessions(tmp_path / "root")
    assert main(["export", "--project", "alpha", "-o", str(tmp_path / "root" / "exp"), "--root", str(tmp_path / "root")]) == 2
    assert "never writes there" in capsys.readouterr().err
    assert not (tmp_path / "root" / "exp").exists()
