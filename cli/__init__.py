"""The command line: `sessionscope` and its subcommands.

`main` is the entry point (`sessionscope.cli.main:main`): it assembles the parser from each
command group's `add_*parser` hooks and runs a command through the `COMMANDS` table, which
imports a command's module only when it runs (opening the app imports cli/app.py alone).
`common` holds what every command shares (CliError and exit code 2, `emit` for --json, warnings,
opening the library and the search index, the demo corpus). One module per command group:

    sessions    sessions, read, recent          search      search, index
    roots       roots                           watch       watch
    memory      memory save|load-last|list      brief       context
    brief_app   brief (the composer)            mcp         mcp (the MCP server on stdio)
    app         no command: the app

A new command: a module with `add_parser(sub, common)` and a function taking the parsed args and
returning the exit code, listed in `build_parser` and `COMMANDS`.

May import: sessionscope.core (any subpackage) and, to open the app,
sessionscope.tui. Nothing in core/ or tui/ imports the command line.
"""
