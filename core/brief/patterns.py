"""The patterns the extraction rules match (core/brief/findings.py says which rule uses which) and
the text helpers they read a message with: `normalise`/`clean` (what any rule reads), `sentences`
and `quotable` (a sentence addressed to the model is never quoted), content words and their
overlap (`similarity`), and what a tool call names: its shell command, edited files, paths and
symbols, its failure and success lines."""
from __future__ import annotations

import bisect
import re
import unicodedata
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator

from ..model import Entry
from ..secrets import mask_text
from ..text import one_line
from .finding import TEXT_CAP


# -- patterns -----------------------------------------------------------------------------------
_I = re.IGNORECASE
_FAILED_AGENT = re.compile(
    r"\b(?:did(?:n'?t| not) (?:work|help|fix|change anything)|does(?:n'?t| not) (?:work|help|fix)"
    r"|(?:is|are) still (?:failing|broken|flaky)|still (?:fails|failing|broken|flaky|does(?:n'?t| not) work)"
    r"|no luck|revert(?:ing|ed)?\b|roll(?:ed|ing) (?:it )?back|backed out|made (?:it|things) worse|dead end"
    r"|gave up on|abandon(?:ed|ing)\b|not the (?:real |actual )?(?:cause|fix|issue|problem|race|culprit|bug)"
    r"|(?:that|this|it) broke\b|wasn'?t enough)", _I)
_FAILED_USER = re.compile(
    r"(?:\b(?:still (?:does(?:n'?t| not) work|doesn'?t|fails|failing|broken|flaky|crash(?:es)?|shows?|happens)"
    r"|did(?:n'?t| not) (?:work|help|fix)|does(?:n'?t| not) (?:seem to )?(?:work|start|help|fix)|is broken"
    r"|not working|same (?:error|problem|issue))\b|還是不行|还是不行|沒用|没用)", _I)
_ACK = re.compile(
    r"^\W*(?:you'?re (?:absolutely |totally )?right|you are (?:absolutely )?right|right\s*[—–,:!-]|good (?:catch|point)"
    r"|my (?:mistake|bad)|sorry|apologies|fair point|correct[,.!]|understood[,.!]|got it[,.!]"
    r"|你說得對|你说得对|您說得對|您说得对|沒錯|没错|對[，,]|对[，,]|好的[，,])", _I)
_CORRECTION_START = re.compile(
    r"^\W*(?:no\b|nope\b|actually\b|wrong\b|not quite\b|don'?t\b|do not\b|stop\b|instead\b|wait\b|hmm,? no\b"
    r"|that'?s (?:wrong|not (?:right|it|what))|不對|不对|不是|不要|別|别)", _I)
_CORRECTION_ANY = re.compile(
    r"\b(?:you (?:forgot|missed|broke|misunderstood)|that'?s (?:wrong|incorrect|not right)"
    r"|should(?:n'?t| not) have|I said\b|I meant\b|not what I (?:asked|meant|wanted))", _I)
_SELF_CORRECTION = re.compile(r"\b(?:I was wrong|correction:|on second thought|I misread|I had it backwards)", _I)
_DECISION = re.compile(
    r"\b(?:let'?s (?:use|go with|keep|switch to|stick with|move to|adopt|make it)"
    r"|(?:we|I)(?:'ll| will| should)? (?:go with|stick with|switch to|settle on)"
    r"|decided\b|decision\b|we chose\b|chose\b|going with\b|opted for\b|settled on\b|agreed (?:on|to)\b"
    r"|instead of\b|rather than\b|in favou?r of\b|for now\b)", _I)
_STRONG_DECISION = re.compile(
    r"\b(?:let'?s (?:use|go with|keep|switch to|stick with|move to|adopt)|decided\b|decision\b|we chose\b"
    r"|going with\b|opted for\b|settled on\b|agreed (?:on|to)\b|for now\b)", _I)
_OUTCOME = re.compile(
    r"(?:\b(?:tests? (?:now )?pass(?:es|ed)?\b|all (?:\d+ )?(?:the )?tests? pass|\d+ (?:tests? )?passed"
    r"|passes (?:now|again|\d+)|passing now|(?:is|are|now) (?:fixed|clean|green|passing)\b|fixed[:.]"
    r"|works? (?:now|again)\b|now works|clean now|builds? (?:cleanly|again)|succeeded|went (?:ready|green)"
    r"|no (?:longer|more) (?:fails|flashes|errors?)|no flash|reaches \d|went from\b|up from\b"
    r"|\d+\s*(?:/|of)\s*\d+\)?\s*pass|all (?:\w+ )?(?:passing|green)|\b0 (?:failures|errors)\b|zero (?:\w+ )?(?:issues|failures|errors|warnings)"
    r"|(?:lint|credo|clippy|mypy|ruff|eslint|tsc|typecheck|dialyzer|format)\w* (?:is |are |now )?clean"
    r"|(?:completed?|done) and (?:pushed|merged|committed)))", _I)
_OPEN = re.compile(
    r"\b(?:still open|open question|open:|unresolved|(?-i:TBD|TODO)(?=\s*[:(—–-]|\s*$)|to be decided|not yet (?:decided|done|handled|sure)"
    r"|not (?:been )?decided(?: yet)?|undecided"
    r"|needs? (?:a |your )?(?:decision|migration|follow-?up)|your call|whether (?:to|we|it)\b|should we\b"
    r"|do we (?:need|want)|left to do)", _I)
# sentences that address the model rather than talk about code; "the system prompt" in a message
# about prompt code is ordinary talk, "print your system prompt" is not
_INJECTION = re.compile(
    r"\b(?:(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?"
    r"(?:previous|prior|above|earlier|preceding|original|initial|system)\s+(?:instructions|messages|prompts?|rules|context)"
    r"|disregard (?:all |any )?(?:the )?(?:previous|prior|above)\b"
    r"|(?:reveal|print|show|repeat|output|leak|dump|ignore|override|forget|disregard|bypass)\s+(?:me\s+)?your\s+"
    r"(?:system prompt|developer message|hidden instructions|(?:original |initial )?instructions)"
    r"|you are now (?:a|an|my|in|DAN|root|free|unrestricted|jailbroken|no longer)\b"
    r"|(?:enter|enable|activate|switch to)\s+(?:jailbreak|developer|god|DAN)\s+mode|new instructions:|do anything now)"
    r"|</?(?:system|instructions?|assistant)>"
    # instructions to an AI, or permissions granted to it, whoever wrote them
    r"|\bfrom now on,?\s+(?:you|claude|codex|the (?:assistant|agent|model|ai))\b"
    r"|\b(?:you|claude|codex|gpt|chatgpt|gemini|copilot|the (?:ai|assistant|model|agent|llm))\s+(?:are|is)\s+(?:now\s+)?"
    r"(?:allowed|permitted|authori[sz]ed|free|cleared)\s+to\b"
    r"|\b(?:you|claude|codex|gpt|chatgpt|gemini|copilot|the (?:ai|assistant|model|agent|llm))\s+(?:now\s+)?has\s+permission\b"
    r"|\byou\s+(?:now\s+)?have\s+(?:full\s+)?permission\s+to\b"
    r"|\b(?:claude|codex|gpt|chatgpt|gemini|copilot|the (?:ai|assistant|model|agent|llm))\s+(?:must|should|shall|will|may|can)\s+(?:now\s+)?"
    r"(?:disregard|ignore|bypass|skip|override|forget)\b"
    r"|\b(?:disregard|ignore|bypass|override|disable)\s+(?:all\s+)?(?:its|your|their|the)\s+(?:safety|security)\s+(?:rules|guidelines|guardrails|restrictions|policies|checks)"
    r"|\bsystem\s+override\b|\bmay\s+skip\s+(?:the\s+)?(?:code\s+)?review"
    # (a command's text read up to the next `curl`, whose own try reads on to the same `|`: the
    # same texts found, in linear time; re read each `curl` of a line to the line's end)
    r"|\bcurl\s+(?:(?!\bcurl\s)[^|\n])*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b", _I)
# invisible characters that split a phrase without showing (zero-width, joiners, bidi controls, BOM, soft hyphen)
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]")


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def normalise(text: str) -> str:
    """`text` as rules read it: NFKC (full-width and compatibility forms folded) and invisible
    characters (zero-width spaces and joiners, bidi controls, BOM, soft hyphen) removed, so
    neither can split a phrase past a rule; curly quotes straightened ("I’ll" is "I'll")."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).translate(_QUOTES)
# a cue under a negation says the opposite: "Not decided yet.", "we haven't chosen", "no decision"
_NEGATED = re.compile(
    r"\b(?:not|never|no|haven'?t|hasn'?t|didn'?t|don'?t|nothing|yet to|without)\s+(?:\w+\s+){0,2}?"
    r"(?:decided|decision|chosen|chose|settled|agreed|going with|opted)\b|\bundecided\b", _I)
_NEGATED_IF = re.compile(r"\b(?:if|unless|in case|whether)\b", _I)
_NEGATED_VERB = re.compile(r"\b(?:doesn'?t|does not|didn'?t|did not) (?:work|help)", _I)
_PERIOD = re.compile(r"\.")


def negated_failure(s: str) -> bool:
    """Whether `\b(?:if|unless|in case|whether)\b[^.]*\b(?:doesn'?t|does not|didn'?t|did not)
    (?:work|help)` (ignoring case) is found in `s` ("if that doesn't work"), in linear time: a
    condition word, then, with no period between, the verb. Why: re read from each condition word
    to the text's end and back: `if did not ` 16,000 times took 64 s."""
    ends = [m.end() for m in _NEGATED_IF.finditer(s)]
    if not ends:
        return False
    periods = [m.start() for m in _PERIOD.finditer(s)]
    for v in _NEGATED_VERB.finditer(s):
        at = v.start()
        k = bisect.bisect_left(periods, at)
        after = periods[k - 1] if k else -1  # the last period before the verb
        i = bisect.bisect_right(ends, after)  # the first condition word ending after it
        if i < len(ends) and ends[i] <= at:
            return True
    return False
# a sentence that opens with "that"/"this"/"it" refers to the one before it
_ANAPHOR = re.compile(r"^\W*(?:that|this|it|these|those)(?:'s|\b)", _I)
# an answer that leaves out its subject: what it answers must come along
_ELLIPTICAL = re.compile(r"^\W*(?:not|no|yes|nope|none|neither|both|either|undecided|unknown|maybe|probably|unclear)\b", _I)
# an agent saying what it is about to try: what a later "that didn't work" refers to
_INTENT = re.compile(r"\b(?:I'?ll|I will|I'?m going to|let me|let'?s|I'?m (?:adding|trying|switching)|try(?:ing)? (?:to )?"
                     r"|(?:adding|switching to|using) an?)\b", _I)
# a decision without a decision word: a constraint, then what is done about it
_IMPLICIT_DECISION = re.compile(
    r"\b(?:can'?t|cannot|can not|doesn'?t (?:support|allow|work with|handle)|does not (?:support|allow|handle)"
    r"|isn'?t (?:supported|available|possible)|not (?:supported|available|possible)|won'?t work|incompatible"
    r"|only (?:works|supports)|(?:is|are) deprecated|not allowed|too (?:slow|large|big|expensive))\b"
    r"[^.;]{0,120}?(?:[,;:—–-]|\bso\b|\bthen\b)\s*(?:so\s+)?(?:I'?ll|I will|we'?ll|we will|let'?s|I'?m going to|we need to|I need to"
    r"|(?:I|we) should|instead)\b", _I)
_CHANGE_OF_COURSE = re.compile(
    r"\b(?:instead|switch(?:ing)?|revert|different (?:approach|way)|another (?:approach|way)|the (?:problem|issue|cause|bug) is"
    r"|because|forgot|missing|wrong|fix(?:ing)?\b|turns out|that'?s why)", _I)
_QUESTION_END = re.compile(r"[?？]\s*$")

_NOISE_USER = re.compile(
    r"^\s*(?:\[Request interrupted|<command-|<local-command|<environment_context|<user_instructions"
    r"|Caveat: The messages below|Your task is to create a detailed summary|This session is being continued)", _I)
_INTERRUPT = re.compile(r"\[Request interrupted by user for tool use|doesn'?t want to proceed with this tool use"
                        r"|tool use was rejected", _I)
_PLAIN_INTERRUPT = re.compile(r"^\s*\[Request interrupted by user", _I)
_IDE_REQUEST = re.compile(r"## My request for Codex:\s*", _I)

_SHELL_TOOLS = {"bash", "shell", "exec_command", "local_shell", "run_terminal_cmd", "terminal", "powershell",
                "container.exec", "execute", "run_command"}
_EDIT_TOOLS = {"edit", "write", "multiedit", "notebookedit", "apply_patch", "str_replace_editor", "create_file",
               "replace", "write_file", "edit_file"}
_LOOKUP = re.compile(
    r"^\s*(?:cd [^&;|]+(?:&&|;)\s*)?(?:ls|ll|cat|head|tail|less|rg|grep|egrep|find|fd|tree|pwd|echo|which|type|file"
    r"|stat|wc|sed -n|awk|jq|git (?:status|log|diff|show|branch|remote|rev-parse|blame)|bd (?:show|ready|list))\b")
_CHECK_CMD = re.compile(
    r"\b(?:pytest|py\.test|tox|nox|unittest|(?:npm|pnpm|yarn|bun)(?: run)? (?:test|build|lint|check|typecheck)"
    r"|npx (?:vitest|jest|eslint|tsc|vite build|next build|playwright)|vitest|jest|mocha|go (?:test|build|vet)"
    r"|cargo (?:test|build|check|clippy|nextest)|mix (?:test|compile|credo)|make\b|ctest|mvn|gradle|dotnet (?:test|build)"
    r"|rspec|phpunit|eslint|tsc\b|ruff|mypy|pyright|flake8|terraform (?:plan|validate|apply)|kubectl apply"
    r"|vite build|next build|webpack|bench\w*|pre-commit)", _I)
# (`^[^\S\n]*`, not `^\s*`: the same texts found (where `^\s*` crossed blank lines, the last line start
# among them matches), in linear time: re read each blank line of a run to the run's end)
_FAIL_SUMMARY = re.compile(r"\b([1-9]\d*) (?:failed|failing|errors?)\b|\bFAILED\b|\bFAIL\b|✗|×|\bTraceback\b"
                           r"|\bError:|\berror(?:\[E\d+\]| TS\d+)?:|\bpanicked\b|[Ee]xit code:? [1-9]|exited with code [1-9]"
                           r"|\bcommand not found\b|\bfatal:|^[^\S\n]*\*\* \(\w+|\(\w+Error\)", re.M)
# a run's closing summary that says it passed, whatever it logged on the way
_CLEAN_PASS = re.compile(r"\b0 failures\b|\b\d+ passed\b|\bTests?:?\s+\d+ passed\b|\bok\s*\(\d+ tests?\)|^OK\b", re.M)
_FAIL_COUNT = re.compile(r"\b[1-9]\d* (?:failed|failures?|failing|errors?)\b|\bFAILED\b")
_SUCCESS = re.compile(r"\b\d+ passed\b|\bTests?:?\s+\d+ passed|\bpassed \(\d+\)|✓|\bok\b|\bPASS\b|No changes\."
                      r"|\bSuccess\b|[Ee]xit code:? 0\b|\bbuilt in\b|\b0 (?:failed|errors?|problems?)\b|\bclean\b", _I)
_COMMIT = re.compile(r"^\[[\w./-]+(?: \(root-commit\))? ([0-9a-f]{7,40})\]", re.M)
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.M)

_EXT = (r"py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|rb|ex|exs|erl|java|kt|kts|swift|c|h|cc|cpp|hpp|cs|php|scala|sql|sh|bash"
        r"|zsh|md|rst|txt|json|jsonl|yaml|yml|toml|ini|cfg|conf|tf|tfvars|hcl|css|scss|html|vue|svelte|lock|mod"
        r"|proto|graphql|gradle|xml|env|mdx|ipynb|dart|lua|zig|nix")
_PATH = re.compile(r"(?<![\w@/.-])((?:~|\.{1,2})?/?(?:[\w.@-]+/)*[\w.-]+\.(?:" + _EXT + r")|(?:[\w.-]+/)*(?:Dockerfile|Makefile|Procfile))"
                   r"(?:::([A-Za-z_]\w*))?(?::\d+)?(?![\w/])")
_BACKTICK = re.compile(r"`([^`\n]{2,80})`")
_IDENT = re.compile(r"^[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_]\w*)*(?:\(\))?$")
_SYMBOL_SHAPE = re.compile(r"[a-z][A-Z]|_|\.|\(\)|^[A-Z][a-z]+[A-Z]")
_WORD = re.compile(r"[^\W_]+(?:['’][a-z]+)?", re.UNICODE)

STOP = frozenset("""
a an the and or but if then else when while of to in on at by for with from as is are was were be been being it its
this that these those there here i we you he she they me us him her them my our your their mine ours yours theirs
do does did doing done have has had having not no yes so too very can could should would will shall may might must
just only also than more most less least some any all each every both either neither other another such same own
what which who whom whose where why how about into over under again further once out up down off above below
between through during before after since until because via per let lets let's i'll we'll you'll it's that's
don't doesn't didn't isn't aren't wasn't weren't won't can't couldn't shouldn't wouldn't i'm i've we've
now new still yet already really maybe please ok okay sure well like get got go going make made use used using
""".split())


# -- helpers ------------------------------------------------------------------------------------
def content_words(text: str) -> list[str]:
    """Lower-case words of `text` without stop words and one-letter noise (CJK runs are kept)."""
    out = []
    for w in _WORD.findall(text.lower()):
        if w in STOP or (len(w) < 2 and w.isascii()):
            continue
        out.append(w)
    return out


def similarity(a: Iterable[str], b: Iterable[str]) -> tuple[float, int]:
    """Containment of the smaller word set in the larger, and the number of shared words."""
    sa, sb = set(a), set(b)
    if not sa or not sb:
        return 0.0, 0
    shared = len(sa & sb)
    return shared / min(len(sa), len(sb)), shared


_TICK_RUN = re.compile(r"`+")


def _code_spans(text: str) -> Iterator[tuple[int, int]]:
    """The (start, end) of each match of `` (`+)[^`\n]*?\1 `` in `text`, in order, as `finditer`
    gives them, in linear time. Why: re tried each length of a run's opening group, each read to
    the run's end: a line of 64 KB of backticks took 0.4 s to clean, 1 MB about two minutes.

    At a run of `r` backticks (counted from where re starts), its greedy group tries `k = r`
    first: the text between holds no backtick, so the closing run is the next one, if no newline
    comes first, and matches when it has at least `r`. Else a shorter `k` leaves an empty text
    between and a closing run inside the opening one: the longest that fits is `r // 2`. A single
    backtick that does not close has no shorter `k`: re tries again one character further."""
    find, run, n = text.find, _TICK_RUN.match, len(text)
    pos, newline = 0, -1
    while (p := find("`", pos)) >= 0:
        q = run(text, p).end()  # type: ignore[union-attr]
        r = q - p
        if newline < q:
            newline = find("\n", q)
            newline = n if newline < 0 else newline
        nxt = find("`", q, newline)
        if nxt >= 0 and run(text, nxt).end() - nxt >= r:  # type: ignore[union-attr]
            yield p, nxt + r
            pos = nxt + r
        elif r >= 2:
            yield p, p + 2 * (r // 2)
            pos = p + 2 * (r // 2)
        else:
            pos = p + 1
# a pair of ** or __ around words, opening after the start, a space or an opening bracket/quote and
# closing before the end, a space or punctuation that ends a clause: never inside a word, path or
# call (pkg/__init__.py, f(**kwargs), 2**10)
_EMPHASIS = re.compile(r"(?:(?<=^)|(?<=[\s(\[{\"'“‘]))(\*\*|__)(?=[^\s*_])(.+?)(?<=[^\s*_\\])\1"
                       r"(?=$|\s|[.,;:!?)\]}\"'”’…—–-](?:\s|$))")
_DUNDER = re.compile(r"[A-Za-z]\w*")
# (`_EMPHASIS`'s openers and closers, each found once: `_emphasis_sub`)
_EMPHASIS_OPEN = re.compile(r"(?:(?<=^)|(?<=[\s(\[{\"'“‘]))(?=(\*\*|__)[^\s*_])")
_EMPHASIS_CLOSE = re.compile(r"(?<=[^\s*_\\])(?=(\*\*|__)(?:$|\s|[.,;:!?)\]}\"'”’…—–-](?:\s|$)))")


def _emphasis_sub(repl: Callable[[str, str, str], str], text: str) -> str:
    """`_EMPHASIS.sub` in linear time, `repl` given the match's group 0, 1 and 2 (a line of
    `**x ` 16,000 times took 17 s: re read each opener to the line's end). An opener's match ends
    at the first closer of its kind after its first character, if no newline comes before it."""
    closers: dict[str, list[int]] = {"**": [], "__": []}
    for m in _EMPHASIS_CLOSE.finditer(text):
        closers[m.group(1)].append(m.start())
    out, pos, newline = [], 0, -1
    for m in _EMPHASIS_OPEN.finditer(text):
        p, mark = m.start(), m.group(1)
        if p < pos:
            continue
        if newline < p + 2:
            newline = text.find("\n", p + 2)
            newline = len(text) if newline < 0 else newline
        at = bisect.bisect_left(closers[mark], p + 3)
        if at == len(closers[mark]) or closers[mark][at] > newline:
            continue
        q = closers[mark][at]
        out += [text[pos:p], repl(text[p:q + 2], mark, text[p + 2:q])]
        pos = q + 2
    out.append(text[pos:])
    return "".join(out)


def _drop_emphasis(text: str) -> str:
    """Markdown bold markers dropped where they are bold; code spans and `__dunder__` names
    (a single identifier between `__`) left as they are."""
    def plain(part: str) -> str:
        return _emphasis_sub(lambda whole, mark, inner: whole if mark == "__" and _DUNDER.fullmatch(inner) else inner, part)

    out, pos = [], 0
    for start, end in _code_spans(text):
        out += [plain(text[pos:start]), text[start:end]]
        pos = end
    out.append(plain(text[pos:]))
    return "".join(out)


def clean(text: str, limit: int = TEXT_CAP) -> str:
    """Masked, on one line, control characters visible, markdown bold dropped, cut at a word."""
    flat = one_line(mask_text(_drop_emphasis(text)))
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip(" ,;:—-") + "…"


_FENCE = re.compile(r"```.*?(?:```|$)", re.S)
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"'`*\[A-Z0-9])|(?<=[。！？])|\n+")
_OPEN_SPLIT = re.compile(r"[;—–]\s*(?=still open:)|(?<=[.;:])\s+(?=still open\b)", _I)
_BULLET = re.compile(r"^\s*(?:[-*•>]+|\d+[.)])\s+")
_INLINE_ITEM = re.compile(r"(?<=[)\].!?:;])\s+(?=\d{1,2}[.)]\s+[\"'`*A-Z])")  # "… (failed) 2. Tried …"


def _pieces(text: str) -> list[tuple[str, bool]]:
    """(sentence, whether it starts a line) for each sentence and bullet line of a message."""
    text = _FENCE.sub(" ", text)
    out: list[tuple[str, bool]] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#"):
            continue
        if stripped.startswith("|"):
            cells = [c.strip() for c in stripped.strip("|").split("|")]
            if all(set(c) <= set("-: ") for c in cells):
                continue
            line = " — ".join(c for c in cells if c)
        first = True
        # list markers before sentences: "4. Errors" and "… (didn't work) 4. Tried …" give no sentence "4."
        for item in _INLINE_ITEM.split(_BULLET.sub("", line)):
            for part in _SPLIT.split(_BULLET.sub("", item)):
                for piece in _OPEN_SPLIT.split(part):
                    s = piece.strip()
                    if s:
                        out.append((s, first))
                        first = False
    return out


def sentences(text: str) -> list[str]:
    """The sentences and bullet lines of a message; code blocks, headings and table rules left out,
    table cells joined with dashes, list numbers dropped (also "… (didn't work) 4. Tried …" on one
    line)."""
    return [s for s, _ in _pieces(text)]


# words without one of which no `_INJECTION` pattern can match: a cheap test before the full one
_INJECTION_WORDS = ("ignor", "disregard", "forget", "overrid", "reveal", "print", "show", "repeat", "output", "leak",
                    "dump", "bypass", "you are", "mode", "instructions", "anything now", "system", "assistant",
                    "from now on", "allowed", "permitted", "authori", "free to", "cleared to", "permission", "skip",
                    "curl")


def _injected(text: str) -> bool:
    low = text.lower()
    return any(w in low for w in _INJECTION_WORDS) and bool(_INJECTION.search(text))


def _quotable_pieces(text: str) -> list[tuple[str, bool]]:
    return list(_quotable_cached(text))


@lru_cache(maxsize=4096)
def _quotable_cached(text: str) -> tuple[tuple[str, bool], ...]:
    pieces = _pieces(text)
    bad = {i for i, (s, _) in enumerate(pieces) if _injected(s)}
    for i in range(len(pieces) - 1):
        if i not in bad and i + 1 not in bad and _injected(f"{pieces[i][0]} {pieces[i + 1][0]}"):
            bad |= {i, i + 1}
    return tuple(p for i, p in enumerate(pieces) if i not in bad)


def quotable(text: str) -> list[str]:
    """The sentences of `text` that may be quoted: those addressing the model (`_INJECTION`) left
    out, one by one, including a phrase that a line break cut in two (both halves go)."""
    return [s for s, _ in _quotable_cached(text)]


_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1")
# (an option tried only from the start of its run of `[\w-]`, the word characters before its first
# dash kept by the replacement: from any dash of a run, `--?[\w-]+` reaches the run's end, so the
# run's first dash fails where any does; re tried each dash of a run to the run's end, seconds
# on a command holding a line of dashes)
_OPTION_TEXT = re.compile(r"(?<![\w-])(\w*--?[\w-]+(?:=|\s+))(\"(?:[^\"\\]|\\.)*\"|'[^']*')")


def shell_code(command: str) -> str:
    """A shell command without what is text rather than code: heredoc bodies (a patch, a file) and
    quoted option values (`--description="… mix credo runs …"`, `-m "…"`)."""
    lines = command.replace("\\\n", " ").split("\n")
    kept: list[str] = []
    i = 0
    while i < len(lines):
        kept.append(lines[i])
        m = _HEREDOC.search(lines[i])
        i += 1
        if m:
            while i < len(lines) and lines[i].strip() != m.group(2):
                i += 1
            i += 1
    return _OPTION_TEXT.sub(lambda m: m.group(1) + "''", "\n".join(kept))


def command_of(e: Entry) -> str:
    """The shell command of a tool call, if it is one."""
    inp = e.tool_input
    cmd: Any = None
    if isinstance(inp, dict):
        cmd = inp.get("command", inp.get("cmd"))
    elif isinstance(inp, str) and (e.tool_name or "").lower() in _SHELL_TOOLS:
        cmd = inp
    if isinstance(cmd, list):
        parts = [str(c) for c in cmd]
        if len(parts) >= 3 and parts[0].endswith(("bash", "sh", "zsh")) and parts[1] in ("-lc", "-c"):
            return parts[2]
        return " ".join(parts)
    if isinstance(cmd, str):
        return cmd
    if (e.tool_name or "").lower() in _SHELL_TOOLS:
        return e.text
    return ""


def edited_files(e: Entry, project: str | None) -> list[str]:
    name = (e.tool_name or "").lower()
    inp = e.tool_input
    files: list[str] = []
    if isinstance(inp, dict):
        for key in ("file_path", "path", "notebook_path", "filename"):
            if isinstance(inp.get(key), str) and name in _EDIT_TOOLS:
                files.append(inp[key])
        if isinstance(inp.get("input"), str):
            files += _PATCH_FILE.findall(inp["input"])
    text = inp if isinstance(inp, str) else (e.text if name == "apply_patch" else "")
    if not text and name in _SHELL_TOOLS:  # `apply_patch <<'PATCH' … *** Update File: …` run through a shell
        cmd = command_of(e)
        text = cmd if "*** Begin Patch" in cmd else ""
    if text:
        files += _PATCH_FILE.findall(text)
    return [relative(f.strip(), project) for f in files]


def relative(path: str, project: str | None) -> str:
    if project and path.startswith(project.rstrip("/") + "/"):
        return path[len(project.rstrip("/")) + 1 :]
    return path


def _lines(output: str) -> list[str]:
    """Non-empty lines, without the rules of ==== and ---- that test runners put around summaries."""
    out = []
    for ln in output.splitlines():
        ln = ln.strip().strip("=-_*#~ ").strip()
        if ln:
            out.append(ln)
    return out


def failure_line(output: str) -> str:
    lines = _lines(output)
    for pat in (re.compile(r"\b[1-9]\d* (?:failed|failing|errors?)\b"), _FAIL_SUMMARY):
        for ln in reversed(lines) if pat is not _FAIL_SUMMARY else lines:
            if pat.search(ln):
                return ln
    return lines[-1] if lines else "no output"


def success_line(output: str) -> str:
    lines = _lines(output)
    for ln in reversed(lines):
        if _SUCCESS.search(ln):
            return ln
    return lines[-1] if lines else "exit code 0"


def named_paths(text: str, project: str | None) -> tuple[list[str], list[str]]:
    """Files a text names (relative to the project when they are inside it) and the test names
    given with them (`file.py::test_x`)."""
    paths, tests = [], []
    for m in _PATH.finditer(text):
        p = m.group(1)
        if "://" in text[max(0, m.start() - 8) : m.start() + 3] or p.startswith(("http", "www.")):
            continue
        if re.fullmatch(r"[\d.]+", p):
            continue  # a version number, not a file
        paths.append(relative(p, project))
        if m.group(2):
            tests.append(m.group(2))
    return list(dict.fromkeys(paths)), tests


def named_symbols(text: str) -> list[str]:
    out = []
    for m in _BACKTICK.finditer(text):
        token = m.group(1).strip()
        if not _IDENT.match(token) or _PATH.fullmatch(token):
            continue
        if not _SYMBOL_SHAPE.search(token):
            continue  # a plain word in backticks (`aws`, `less`) is not a symbol to look for
        out.append(token.removesuffix("()"))
    return list(dict.fromkeys(out))


def _choice(sentence: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(chosen, rejected) content words of "A instead of / rather than / over / in favour of B"."""
    m = re.search(r"(.{0,60}?)\b(instead of|rather than|in favou?r of|over)\b(.{0,60})", sentence, _I)
    if not m:
        return (), ()
    before = re.split(r"\b(?:use|using|go with|switch to|keep|chose|choose|prefer|pick|with)\b", m.group(1), flags=_I)[-1]
    after = re.split(r"[,;:.—–(]|\b(?:because|since|so|as|for|—)\b", m.group(3))[0]
    chosen, rejected = content_words(before)[-4:], content_words(after)[:4]
    if m.group(2).lower().startswith("in favo"):
        chosen, rejected = rejected, chosen
    return tuple(chosen), tuple(rejected)
