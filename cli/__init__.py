"""The command line: `sessionscope` and its subcommands.

`main` holds the parser and the entry point (`sessionscope.cli.main:main`); each command group has
its module beside it. May import: sessionscope.core (any subpackage) and, to open the app,
sessionscope.tui. Nothing in core/ or tui/ imports the command line.
"""
