"""Bookmarks and notes on transcript entries and on whole sessions (issue 16).

Kept in SQLite in sessionscope's own data folder (`core.config.data_dir()`), never in the cache
(which may be deleted) nor in an agent's folder. A bookmark names its entry by what survives an
index rebuild, a deleted cache and a growing transcript: the session's agent, id and file path,
and the entry's own id when the format has a stable one (a uuid, a message id), else its line
number and a short hash of its content. Its text (masked) is saved too, so a bookmark whose entry
is gone still lists, saying so.

    store      the Bookmark record and the SQLite store (add, edit the note, remove, list)
    anchor     an entry's anchor (id, line, content hash) and finding it again in a session
    transfer   the JSON export and the merging import (no duplicates; counts; bad files)

Beside live/, brief/, demo and export/; may import the layers below it: core's foundation
modules, core.read and core.catalog.
"""
