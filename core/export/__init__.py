"""Exporting a session to a file: Markdown, self-contained HTML, JSON (issue 16).

Beside live/ and brief/ (above catalog/ and read/, which it reads through); nothing below it
imports it. Its modules:

    document   a session as plain export data: its items (tool calls with their results, diffs,
               thinking when asked for) and its subagents' transcripts inline, secrets masked
               when asked for
    render     that data as Markdown, HTML (markdown-it-py and Pygments, no script, no external
               asset) or JSON; transcript text stays inert in every format
    folder     a project or date range to a folder: a file per session and an index page
    write      writing the file (atomically, never inside a root); the app's exports folder
"""
