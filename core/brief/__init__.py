"""Briefs: retrieval within a budget, candidate findings and their generators, the brief text, the model assist.

    retrieval    the task's terms, the search rounds and the sessions read, within the budget
    finding      the Finding record: types, evidence labels, its source ref
    ref          a source ref read back (`sessionscope read REF` imports this alone)
    patterns     what the rules match, and the text helpers they read messages with
    episodes     a session's tool runs, messages and interventions; the keys runs compare by
    findings     SessionReader: the sentence rules applied to a session's episodes
    generators   the findings only a sequence of episodes shows (failure chains, slips, ...)
    merge        across sessions: conflicts, duplicates, what memory notes already say
    tree_check   "checked now": the files and symbols a finding names, in the current tree
    compose      scoring, the evidence labels, composing and rendering the brief
    assist       the opt-in model assist and the checks on what it proposes

May import: the layers below it: core's foundation modules, core.read, core.catalog, core.memory
and core.search (not core.live or core.demo, beside it).
"""
