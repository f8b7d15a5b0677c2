"""Mermaid flowchart text -> `FlowChart`.

A hand-written scanner over the whole text (not per line: markdown strings may span lines).
Statements end at a newline or a top-level ``;``. Two modes:

* ``strict=True`` (default): any malformed statement raises `MermaidSyntaxError` with the
  1-based line and column of the problem.
* ``strict=False``, for model output: code fences and chatter around the Mermaid are stripped,
  every statement that can be salvaged is kept (unterminated brackets closed at the end of the
  line, ``->`` read as ``-->``, a second header ignored, ...), every unparseable line is
  dropped, and each repair or drop is described in ``chart.warnings``. It never raises for a
  string.

Parsing time is linear in the input size (``eval/bench_parse.py`` measures it): no search runs
past the end of its line unless the syntax allows it, searches for a terminator that may sit on a
later line are remembered, and a lenient repair costs at most the rest of its line, with at most
`MAX_REPAIRS_PER_LINE` of them per line. Three limits bound the work and the memory a hostile
input can ask for: `MAX_INPUT_CHARS`, `MAX_EDGES_PER_STATEMENT` (``A0 & ... & A999 --> B0 & ...``
is a cross product) and `MAX_EDGES`. Strict mode raises `MermaidSyntaxError` naming the limit;
lenient mode drops what lies beyond it and says so in ``chart.warnings``.

The accepted language is a superset of Mermaid's: it also accepts brackets nested inside
unquoted labels (``A[f(x)]``) and quotes inside unquoted labels, which Mermaid rejects.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field
from typing import Any

from flowpath.errors import FlowPathError
from flowpath.graph.core import DIRECTIONS, Edge, FlowChart, Node, Subgraph
from flowpath.mermaid.syntax import (
    AT_SHAPES,
    IGNORED_KEYWORDS,
    LINK_END_RE,
    LINK_RE,
    LINK_START_RE,
    OPENERS,
    decode_quoted,
    decode_text,
)

__all__ = ["MermaidSyntaxError", "parse_mermaid", "ID_RE", "RESERVED_IDS", "MAX_INPUT_CHARS",
           "MAX_EDGES_PER_STATEMENT", "MAX_EDGES", "MAX_REPAIRS_PER_LINE"]

#: Longest text `parse_mermaid` reads, in characters (after ``\r\n`` is normalised). A
#: transcribed flowchart is a few KB; 2 M characters leave room for generated test charts.
MAX_INPUT_CHARS = 2_000_000
#: Most edges one statement may create: ``A & B --> C & D`` creates 4, a chain one per link.
MAX_EDGES_PER_STATEMENT = 1_000
#: Most edges in one chart (each edge costs a few hundred bytes).
MAX_EDGES = 100_000
#: Lenient mode: most repairs (unclosed labels, missing line breaks, ...) on one line; each may
#: scan the rest of its line, so the cap keeps a long line of broken statements linear.
MAX_REPAIRS_PER_LINE = 16


class MermaidSyntaxError(FlowPathError, ValueError):
    """Malformed Mermaid. ``line`` and ``column`` are 1-based and point at the problem.

    Args:
        message: what is wrong, in plain words.
        line: 1-based line number.
        column: 1-based column number.
        source_line: the offending line (or the part of a long line around the problem), shown
            under the message with a caret.
        caret: 0-based position of the caret in ``source_line``; ``column - 1`` when not given.
    """

    def __init__(self, message: str, line: int, column: int, source_line: str | None = None,
                 caret: int | None = None) -> None:
        self.message = message
        self.line = line
        self.column = column
        self.source_line = source_line
        self.caret = caret
        text = f"line {line}, column {column}: {message}"
        if source_line is not None:
            at = column - 1 if caret is None else caret
            text += f"\n    {source_line}\n    {' ' * max(0, at)}^"
        super().__init__(text)

    def __reduce__(self):  # keep pickling (multiprocessing) working with the extra arguments
        return (type(self), (self.message, self.line, self.column, self.source_line, self.caret))


#: A node id: word characters, with inner ``-``/``.`` allowed between them (``step-1``, ``a.b``).
ID_RE = re.compile(r"[\w$]+(?:[-.][\w$]+)*")
#: Words that cannot be node ids because a statement starting with them means something else.
#: Checked against Mermaid 11: these make its parser fail where a node id is expected.
RESERVED_IDS = frozenset({"end", "subgraph", "graph", "flowchart", "flowchart-elk", "classDef", "class",
                          "style", "linkStyle", "click", "call", "href", "interpolate"})

_HEADER_RE = re.compile(r"(?P<kw>flowchart-elk|flowchart|graph)\b[ \t]*(?P<dir>[A-Za-z]{2}\b|[<>^v](?![\w-]))?")
_OTHER_DIAGRAM_RE = re.compile(
    r"(sequenceDiagram|classDiagram|stateDiagram(-v2)?|erDiagram|gantt|pie|journey|gitGraph|mindmap"
    r"|timeline|quadrantChart|requirementDiagram|C4\w+|sankey(-beta)?|xychart(-beta)?|block(-beta)?"
    r"|packet(-beta)?|kanban|architecture(-beta)?)\b")
_FRONT_MATTER_RE = re.compile(r"^[ \t]*---[ \t]*$", re.M)
_DIR_ALIASES = {">": "LR", "<": "RL", "^": "BT", "v": "TB"}
_EDGE_ID_RE = re.compile(r"([\w-]+)@(?=[-=.~<xo])")
_CLASS_SUFFIX_RE = re.compile(r":::[\w-]+(?:,[\w-]+)*")
_KEYWORD_RE = re.compile(r"[A-Za-z]+")
# ``key: value`` in an ``@{ }`` body; a key starts only at the start of a word (linear search)
_AT_PROP_RE = re.compile(r"""(?<![\w-])([\w-]+)\s*:\s*("[^"]*"|'[^']*'|[^,\n}]*)""")
# Broken arrows models write; lenient mode reads them as the nearest real link.
_SLOPPY_LINK_RE = re.compile(r"(?P<tok>->|=>|—>|–>|→|⟶|⇒|-- >|- ->)")
# Sequence-diagram arrows in a flowchart: ``A -->> B``, ``A ->> B``.
_DOUBLE_HEAD_RE = re.compile(r"(?P<tok>-{1,3}>>)")
# what may follow "A --" when the arrow head is missing: one node and the end of the statement
_LONE_TARGET_RE = re.compile(r"[ \t]*[\w$]+(?:[-.][\w$]+)*(?:[ \t]*$|[ \t]*[;&]|[(\[{>]|:::)", re.M)
_FENCE_RE = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w-]*)[^\n]*$", re.M)
_HEADER_LINE_RE = re.compile(r"^[ \t]*(flowchart-elk|flowchart|graph)\b", re.M)
_SMART_OPEN = "\u201c\u201d\u201e\u00ab"
_SMART_CLOSE = "\u201c\u201d\u00bb"
_HEADER_ANYWHERE_RE = re.compile(r"\b(flowchart|graph)[ \t]+(TD|TB|BT|LR|RL)\b")



@functools.cache
def _emphasis_parser() -> Any:
    """CommonMark emphasis only (``*it*``, ``**bold**``, ``_it_``, ``__bold__``): what Mermaid
    renders in a markdown string. markdown-it pairs delimiters in linear time; the regexes used
    before were quadratic on runs of ``*`` (issue 12). Imported on first use: few labels are
    markdown strings."""
    from markdown_it import MarkdownIt

    return MarkdownIt("zero").enable(["emphasis"])


def _strip_markdown(raw: str) -> str:
    """A markdown-string label (``"`**bold** text`"``) -> its plain text, lines dedented."""
    lines = [ln.strip() for ln in raw.split("\n")]
    text = "\n".join(lines).strip("\n")
    if "*" not in text and "_" not in text:
        return text
    tokens = _emphasis_parser().parseInline(text)
    return "".join(t.content if t.type == "text" else "\n" for tok in tokens for t in tok.children or []
                   if t.type in ("text", "softbreak", "hardbreak"))


@dataclass
class _Frame:
    """An open ``subgraph`` block and the nodes mentioned inside it so far."""

    sg: Subgraph
    line: int
    column: int
    mentioned: dict[str, None] = field(default_factory=dict)


class _Parser:
    def __init__(self, text: str, strict: bool) -> None:
        self.s = text
        self.n = len(text)
        self.i = 0
        self.strict = strict
        # The chart is built at the end from these: the parser adds, updates and rolls back
        # nodes and edges of a failed statement here, in O(1) each, never via FlowChart edits.
        self.chart = FlowChart()
        self.nodes: dict[str, Node] = {}
        self.edges: list[Edge] = []
        self.created: list[str] = []  # nodes first created by the current statement
        self.stack: list[_Frame] = []
        self.assigned: set[str] = set()
        self.edge_ids: set[str] = set()
        self.subgraph_ids: set[str] = set()
        self.header_seen = False
        self.edges_in_statement = 0
        self.defined: set[str] = set()
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._found: dict[str, tuple[int, int]] = {}
        self._repairs = (-1, 0)  # (line index, repairs made on it)
        self._at_unclosed = False
        self.edge_limit_hit = False

    # -- positions and errors -----------------------------------------------------------------
    def line_index(self, i: int) -> int:
        return bisect.bisect_right(self._line_starts, i) - 1

    def pos(self, i: int) -> tuple[int, int]:
        li = self.line_index(i)
        return li + 1, i - self._line_starts[li] + 1

    def line_text(self, i: int) -> str:
        return self.s[self._line_starts[self.line_index(i)]: self.eol(i)]

    def error(self, message: str, i: int | None = None) -> MermaidSyntaxError:
        i = min(self.i if i is None else i, self.n)
        line, col = self.pos(i)
        start, end = self._line_starts[line - 1], self.eol(i)
        if end - start <= 200:
            return MermaidSyntaxError(message, line, col, self.s[start:end])
        # a long line: show 60 characters before the problem and 100 after it
        lo, hi = max(start, i - 60), min(end, i + 100)
        shown = ("..." if lo > start else "") + self.s[lo:hi] + ("..." if hi < end else "")
        return MermaidSyntaxError(message, line, col, shown, caret=i - lo + (3 if lo > start else 0))

    def count_repair(self, i: int) -> None:
        """Lenient mode: count a repair that may scan the rest of line ``i``; past
        `MAX_REPAIRS_PER_LINE` the rest of the line is dropped, keeping the work linear."""
        li = self.line_index(i)
        line, count = self._repairs
        count = count + 1 if line == li else 1
        self._repairs = (li, count)
        if count > MAX_REPAIRS_PER_LINE:
            raise self.error(f"more than {MAX_REPAIRS_PER_LINE} repairs on one line "
                             f"(MAX_REPAIRS_PER_LINE)", i)

    def find_ahead(self, sub: str, i: int) -> int:
        """``s.find(sub, i)`` for a terminator that may lie on a later line. The last answer is
        remembered: no ``sub`` starts in [searched from, found at), so a later search from inside
        that span has the same answer and repeated searches for a missing ``"`` or ``}``
        cost O(n) in all, not O(n) each."""
        hit = self._found.get(sub)
        if hit is not None and hit[0] <= i and (hit[1] < 0 or i <= hit[1]):
            return hit[1]
        j = self.s.find(sub, i)
        self._found[sub] = (i, j)
        return j

    def warn(self, message: str, i: int | None = None) -> None:
        line, _ = self.pos(min(self.i if i is None else i, self.n))
        self.chart.warnings.append(f"line {line}: {message}")

    def repair(self, message: str, i: int | None = None) -> None:
        """A fix only lenient mode may make: raise in strict mode, warn otherwise."""
        if self.strict:
            raise self.error(message, i)
        self.warn(message + " (repaired)", i)

    def describe(self, i: int) -> str:
        if i >= self.n:
            return "end of input"
        if self.s[i] == "\n":
            return "end of line"
        return repr(self.s[i: i + 12].split("\n")[0])

    # -- low-level scanning ---------------------------------------------------------------------
    def skip_ws(self) -> None:
        s, i, n = self.s, self.i, self.n
        while i < n and s[i] in " \t\r\f\v":
            i += 1
        self.i = i

    def at_eos(self) -> bool:
        """At the end of a statement: newline, ``;``, a ``%%`` comment or the end of input."""
        i = self.i
        return i >= self.n or self.s[i] in "\n;" or self.s.startswith("%%", i)

    def eol(self, i: int | None = None) -> int:
        """Index of the newline ending the line of ``i`` (or of the end of input); O(log lines),
        so a line of many statements is not rescanned once per statement."""
        i = self.i if i is None else i
        if i >= self.n:
            return self.n
        li = self.line_index(i)
        return self._line_starts[li + 1] - 1 if li + 1 < len(self._line_starts) else self.n

    def skip_to_eol(self) -> None:
        self.i = self.eol()

    def skip_statement_rest(self) -> None:
        """Skip an ignored statement up to ``;`` or newline, stepping over quoted strings."""
        s, i, n = self.s, self.i, self.n
        while i < n and s[i] not in "\n;":
            if s[i] == '"':
                j = s.find('"', i + 1, self.eol(i))
                if j < 0:
                    break
                i = j
            i += 1
        self.i = i

    # -- top level --------------------------------------------------------------------------------
    def parse(self) -> FlowChart:
        self.preamble()
        self.header()
        while self.i < self.n:
            self.skip_ws()
            if self.i >= self.n:
                break
            c = self.s[self.i]
            if c in "\n;":
                self.i += 1
                continue
            if self.s.startswith("%%", self.i):
                self.skip_to_eol()
                continue
            start = self.i
            n_edges = len(self.edges)
            self.edges_in_statement = 0
            self.created = []
            try:
                self.statement()
            except MermaidSyntaxError as exc:
                if self.strict:
                    raise
                self.rollback_nodes(n_edges)
                kept = len(self.edges) - n_edges
                snippet = self.s[start: min(self.eol(start), start + 61)].strip()
                if len(snippet) > 60:
                    snippet = snippet[:57] + "..."
                what = "kept what came before" if kept else "dropped it"
                self.chart.warnings.append(
                    f"line {exc.line}: could not parse {snippet!r} ({exc.message}); {what}")
                # drop the rest of the line (a broken statement may hide ';' in its labels)
                self.i = self.eol(max(start, self.i))
                if self.edge_limit_hit:
                    self.chart.warnings.append(f"line {exc.line}: stopped reading: the chart has "
                                               f"{MAX_EDGES} edges (MAX_EDGES)")
                    break
        if self.stack:
            frame = self.stack[-1]
            if self.strict:
                raise MermaidSyntaxError(f"subgraph {frame.sg.id!r} is never closed with 'end'",
                                         frame.line, frame.column, self.line_text(self._line_starts[frame.line - 1]))
            while self.stack:
                frame = self.stack[-1]
                self.chart.warnings.append(
                    f"line {frame.line}: subgraph {frame.sg.id!r} is never closed with 'end' (closed at the end)")
                self.close_subgraph()
        if not self.strict:
            self.drop_repeated_edges()
        for node in self.nodes.values():
            self.chart.add_node(node)
        for edge in self.edges:
            self.chart.add_edge(edge)
        return self.chart

    def rollback_nodes(self, n_edges: int) -> None:
        """After a failed statement (lenient), remove the bare nodes it created that no complete
        edge of it uses: ``This chart shows ...`` must not leave a node ``This`` behind, while
        ``A["Start"] -->`` (cut off) still keeps node A with its label. O(size of the statement)."""
        used = {x for e in self.edges[n_edges:] for x in (e.source, e.target)}
        for nid in self.created:
            if nid not in used and nid not in self.defined:
                self.nodes.pop(nid, None)
                if self.stack:
                    self.stack[-1].mentioned.pop(nid, None)

    def drop_repeated_edges(self) -> None:
        """Lenient mode: a model stuck in a repetition loop writes the same edge many times."""
        seen: set[tuple] = set()
        kept, dropped = [], []
        for e in self.edges:
            key = (e.source, e.target, e.label, e.stroke, e.head, e.tail)
            if key in seen:
                dropped.append(f"{e.source}->{e.target}")
            else:
                seen.add(key)
                kept.append(e)
        if dropped:
            self.edges = kept
            shown = list(dict.fromkeys(dropped))
            listed = ", ".join(shown[:20]) + (f", ... ({len(shown) - 20} more)" if len(shown) > 20 else "")
            self.chart.warnings.append(f"dropped {len(dropped)} repeated edge(s): {listed}")

    def preamble(self) -> None:
        """Skip blank lines, ``%%`` comments and directives, and a ``---`` front-matter block."""
        s = self.s
        while True:
            self.skip_ws()
            if self.i >= self.n:
                return
            if s[self.i] in "\n;":
                self.i += 1
            elif s.startswith("%%", self.i):
                if s.startswith("%%{", self.i):
                    end = self.find_ahead("}%%", self.i)
                    self.i = self.eol() if end < 0 else end + 3
                else:
                    self.skip_to_eol()
            elif _FRONT_MATTER_RE.match(s, self.i) and not self.header_seen:
                close = _FRONT_MATTER_RE.search(s, self.eol() + 1)
                if close is None:
                    if self.strict:
                        raise self.error("front matter opened with '---' is never closed")
                    self.warn("ignored a '---' line")
                    self.skip_to_eol()
                    continue
                self.i = close.end()
            else:
                return

    def header(self) -> None:
        m = _HEADER_RE.match(self.s, self.i)
        if m is None:
            other = _OTHER_DIAGRAM_RE.match(self.s, self.i)
            if other is not None:
                if self.strict:
                    raise self.error(f"not a flowchart: {other.group(1)!r} diagrams are not supported")
                self.warn(f"not a flowchart header {other.group(1)!r}; read the rest as a flowchart")
                self.skip_to_eol()
                return
            if self.i >= self.n:
                if self.strict:
                    raise self.error("empty input: expected a 'flowchart' or 'graph' header")
                self.warn("empty input")
                return
            if self.strict:
                raise self.error(f"expected a 'flowchart TD' or 'graph LR' header, found {self.describe(self.i)}")
            self.warn("no 'flowchart' header; assumed 'flowchart TD'")
            self.header_seen = True
            return
        self.header_seen = True
        self.set_direction(m, top=True)
        self.i = m.end()
        self.skip_ws()
        if not self.at_eos():
            if self.strict:
                raise self.error(f"unexpected {self.describe(self.i)} after the header")
            self.warn(f"ignored {self.s[self.i:self.eol()].strip()!r} after the header")
            self.skip_to_eol()

    def set_direction(self, m: re.Match[str], top: bool) -> None:
        raw = m.group("dir")
        if raw is None:
            return
        d = _DIR_ALIASES.get(raw, raw)
        if d not in DIRECTIONS:
            if d.upper() in DIRECTIONS:
                self.repair(f"direction {raw!r} should be upper case", m.start("dir"))
                d = d.upper()
            else:
                if self.strict:
                    raise self.error(f"unknown direction {raw!r}; expected one of {', '.join(DIRECTIONS)}",
                                     m.start("dir"))
                self.warn(f"unknown direction {raw!r}; kept {self.chart.direction}", m.start("dir"))
                return
        if top:
            self.chart.direction = d
        elif self.stack:
            self.stack[-1].sg.direction = d

    # -- statements -------------------------------------------------------------------------------
    def statement(self) -> None:
        s, i = self.s, self.i
        kw = _KEYWORD_RE.match(s, i)
        word = kw.group() if kw else ""
        after = kw.end() if kw else i
        nxt = s[after] if after < self.n else "\n"
        bare = nxt in " \t\n;" or after >= self.n
        if word in ("flowchart", "graph", "flowchart-elk") and _HEADER_RE.match(s, i):
            self.repair("a second flowchart header", i)
            self.skip_to_eol()
            return
        if word == "subgraph" and nxt in " \t\n;":
            self.i = after
            self.open_subgraph(i)
            return
        if word == "end" and bare and self.rest_is_blank(after):
            self.i = after
            if not self.stack:
                self.repair("'end' without an open subgraph", i)
                return
            self.close_subgraph()
            return
        if word == "direction" and nxt in " \t":
            m = re.compile(r"direction[ \t]+(?P<dir>\S+)").match(s, i)
            if m is not None and self.rest_is_blank(m.end()):
                if not self.stack:
                    self.set_direction(m, top=True)
                else:
                    self.set_direction(m, top=False)
                self.i = m.end()
                return
        if word in IGNORED_KEYWORDS and (
                re.compile(r"[ \t]*[:{]").match(s, after) if word.startswith("acc") else nxt in " \t"):
            if word == "accDescr" and s[after:].lstrip(" \t").startswith("{"):
                close = self.find_ahead("}", after)
                if close < 0:
                    raise self.error("'accDescr {' is never closed with '}'", i)
                self.i = close + 1
                return
            # Styling and interaction only: accepted, ignored for the graph.
            self.i = after
            self.skip_statement_rest()
            return
        self.node_edge_statement()

    def rest_is_blank(self, i: int) -> bool:
        s, n = self.s, self.n
        while i < n and s[i] in " \t\r":
            i += 1
        return i >= n or s[i] in "\n;" or s.startswith("%%", i)

    def node_edge_statement(self) -> None:
        prev = self.node_group()
        while True:
            self.skip_ws()
            if self.at_eos():
                return
            link_at = self.i
            link = self.link()
            if link is None:
                if not self.strict and self.edges_in_statement and self.starts_edge_statement():
                    # "A --> B C --> D": a line break lost between two edge statements
                    self.warn(f"missing line break before {self.describe(self.i)}; read as a new statement")
                    return
                raise self.error(f"expected a link such as '-->' or the end of the statement, "
                                 f"found {self.describe(self.i)}")
            self.skip_ws()
            if self.at_eos():
                raise self.error("this link has no target node", link_at)
            targets = self.node_group()
            new = len(prev) * len(targets)
            if self.edges_in_statement + new > MAX_EDGES_PER_STATEMENT:
                raise self.error(f"this statement makes more than {MAX_EDGES_PER_STATEMENT} edges "
                                 f"(MAX_EDGES_PER_STATEMENT); split it", link_at)
            if len(self.edges) + new > MAX_EDGES:
                self.edge_limit_hit = True
                raise self.error(f"the chart has more than {MAX_EDGES} edges (MAX_EDGES)", link_at)
            for src in prev:
                for dst in targets:
                    self.edges.append(Edge(src, dst, **link))
            self.edges_in_statement += new
            prev = targets

    _EDGE_STATEMENT_RE = re.compile(
        r"[\w$]+(?:[-.][\w$]+)*[ \t]*(?:[(\[{>][^\n]*?)?[ \t]*[xo<]?(?:-{2,}|={2,}|-?\.+-|~~~)")

    def starts_edge_statement(self) -> bool:
        """Whether an edge statement (``id[...] -->``) starts here (lenient line-break repair)."""
        self.count_repair(self.i)
        return self._EDGE_STATEMENT_RE.match(self.s, self.i, self.eol()) is not None

    def node_group(self) -> list[str]:
        ids = [self.node()]
        while True:
            save = self.i
            self.skip_ws()
            if self.i < self.n and self.s[self.i] == "&":
                self.i += 1
                self.skip_ws()
                ids.append(self.node())
            else:
                self.i = save
                return [i for i in ids if i is not None]

    # -- nodes ------------------------------------------------------------------------------------
    def node(self) -> str:
        m = ID_RE.match(self.s, self.i)
        if m is None:
            raise self.error(f"expected a node id, found {self.describe(self.i)}")
        nid = m.group()
        if nid in RESERVED_IDS:
            if self.strict:
                raise self.error(f"{nid!r} is a Mermaid keyword and cannot be a node id")
            self.warn(f"node id {nid!r} is a Mermaid keyword; kept it (to_mermaid cannot write it)")
        self.i = m.end()
        s = self.s
        shape: str | None = None
        text: str | None = None
        if s.startswith("@{", self.i):
            shape, text, edge_attrs = self.at_block(nid)
            if edge_attrs:
                return nid  # ``e1@{ animate: true }`` styles an edge, not a node
        elif self.i < self.n and s[self.i] in "([{>":
            shape, text = self.shape_text(nid)
        cm = _CLASS_SUFFIX_RE.match(s, self.i)
        if cm is not None:
            self.i = cm.end()
        if nid not in self.nodes:
            self.created.append(nid)
        if shape is None:
            if nid not in self.nodes:
                self.nodes[nid] = Node(nid, nid)
        else:  # a later definition refines a node first seen bare, as in Mermaid
            self.nodes[nid] = Node(nid, text if text is not None else nid, shape)
            self.defined.add(nid)
        if self.stack:
            self.stack[-1].mentioned[nid] = None
        return nid

    def shape_text(self, nid: str) -> tuple[str, str]:
        s, start = self.s, self.i
        found = next(((o, c) for o, c in OPENERS if s.startswith(o, start)), None)
        if found is None:  # pragma: no cover - guarded by the caller
            raise self.error("expected a node shape")
        opener, closers = found
        self.i = start + len(opener)
        j = self.i
        while j < self.n and s[j] in " \t":
            j += 1
        if s.startswith('"`', j):
            end = self.find_ahead('`"', j + 2)
            if end >= 0:
                hit = self.match_closer(end + 2, closers)
                if hit is not None:
                    self.i, shape = hit
                    return shape, _strip_markdown(decode_text(s[j + 2: end]))
        if j < self.n and s[j] == '"':
            line_end = self.eol(j)
            end = s.find('"', j + 1, line_end)
            if end >= 0:
                hit = self.match_closer(end + 1, closers)
                if hit is not None:
                    self.i, shape = hit
                    return shape, decode_quoted(s[j + 1: end])
            if self.strict:
                if end < 0:
                    raise self.error(f"unterminated string in the label of node {nid!r}", j)
                expected = " or ".join(repr(c) for c, _ in closers)
                k = end + 1
                while k < line_end and s[k] in " \t":
                    k += 1
                raise self.error(f"expected {expected} to close node {nid!r} after its quoted label "
                                 f"(use #quot; for a quote inside a label)", k)
            return self.salvage_label(nid, opener, closers, j, quoted=True)
        # unquoted: up to the closing bracket at nesting depth 0
        depth = 0
        k = self.i
        while k < self.n:
            c = s[k]
            if c == "\n":
                break
            if depth == 0:
                for closer, shape in closers:
                    if s.startswith(closer, k):
                        self.i = k + len(closer)
                        raw = self.smart_unquote(s[start + len(opener): k].strip(), start)
                        return shape, decode_text(raw)
            if c in "([{":
                depth += 1
            elif c in ")]}" and depth > 0:
                depth -= 1
            k += 1
        if self.strict:
            expected = " or ".join(repr(c) for c, _ in closers)
            raise self.error(f"node {nid!r}: {opener!r} is never closed with {expected}", start)
        return self.salvage_label(nid, opener, closers, self.i, quoted=False)

    def match_closer(self, k: int, closers: list[tuple[str, str]]) -> tuple[int, str] | None:
        while k < self.n and self.s[k] in " \t":
            k += 1
        for closer, shape in closers:
            if self.s.startswith(closer, k):
                return k + len(closer), shape
        return None

    # a run of closing brackets that ends the label: what follows is a link or the statement end
    _SALVAGE_CLOSE_AT = re.compile(r'"?[ \t]*[\])}>/\\]+(?=[ \t]*(?:$|;|&|:::|%%|[xo<]?(?:--|==|-\.|~~)))',
                                   re.M)
    # The same, searched for: the lookbehinds let a match start only where a run of blanks or
    # brackets starts (the leftmost match starts there anyway); trying every position inside a
    # long run is quadratic.
    _SALVAGE_CLOSE = re.compile(r'(?:"[ \t]*|(?<![ \t])[ \t]+|(?<![ \t\])}>/\\]))[\])}>/\\]+'
                                r'(?=[ \t]*(?:$|;|&|:::|%%|[xo<]?(?:--|==|-\.|~~)))', re.M)
    _SALVAGE_LINK = re.compile(r"(?<![ \t])[ \t]+[xo<]?(?:-{2,}[-xo>]|={2,}[=xo>]|-\.+-|~~~)")

    def salvage_label(self, nid: str, opener: str, closers: list[tuple[str, str]], j: int,
                      quoted: bool) -> tuple[str, str]:
        """Lenient mode: recover a label whose bracket or quote is never closed properly."""
        s = self.s
        self.count_repair(j)
        line_end = self.eol(j)
        body_start = j + 1 if quoted else j
        shape = closers[0][1]
        m = (self._SALVAGE_CLOSE_AT.match(s, body_start, line_end)
             or self._SALVAGE_CLOSE.search(s, body_start, line_end))
        link = self._SALVAGE_LINK.search(s, body_start, line_end)
        if m is not None and (link is None or m.start() <= link.start()):
            raw, self.i = s[body_start: m.start()], m.end()
            for closer, sh in closers:  # keep the shape if the right closer is in the run
                if closer in m.group():
                    shape = sh
        elif link is not None:
            raw, self.i = s[body_start: link.start()], link.start()
        else:
            raw, self.i = s[body_start:line_end], line_end
        raw = raw.strip()
        if quoted:
            raw = raw.strip('"')
        self.warn(f"node {nid!r}: closed an unterminated {opener!r} label", j)
        return shape, decode_text(raw)

    def at_block(self, nid: str) -> tuple[str | None, str | None, bool]:
        """``A@{ shape: diam, label: "Ok?" }`` -> (shape, text, is_edge_attrs)."""
        s = self.s
        start = self.i
        k = start + 2
        depth, quote = 1, ""
        # A body may span lines. After one never closed (lenient), later bodies are read within
        # their own line: a scan to the end of the input for each would be quadratic.
        stop = self.eol(start) if self._at_unclosed else self.n
        while k < stop:
            c = s[k]
            if quote:
                if c == quote:
                    quote = ""
            elif c in "\"'":
                quote = c
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        else:
            if self.strict:
                raise self.error(f"node {nid!r}: '@{{' is never closed with '}}'", start)
            self.warn(f"node {nid!r}: '@{{' is never closed; read to the end of the line", start)
            self._at_unclosed = True
            k = self.eol(start)
        body = s[start + 2: k]
        self.i = min(k + 1, self.n)
        props: dict[str, str] = {}
        for m in _AT_PROP_RE.finditer(body):
            val = m.group(2).strip()
            if len(val) >= 2 and val[0] == val[-1] and val[0] in "\"'":
                val = val[1:-1]
            props[m.group(1)] = val
        if nid in self.edge_ids or (not ({"shape", "label", "img", "icon"} & props.keys())
                                    and props.keys() & {"animate", "animation", "curve"}):
            return None, None, True
        shape = "rect"
        if "shape" in props:
            name = props["shape"].strip().lower()
            if name not in AT_SHAPES:
                if self.strict:
                    raise self.error(f"node {nid!r}: unknown shape {props['shape']!r} in '@{{ }}'", start)
                self.warn(f"node {nid!r}: unknown shape {props['shape']!r}; used rect", start)
            shape = AT_SHAPES.get(name, "rect")
        text = props.get("label")
        if text is not None:
            text = decode_text(text)  # backticks stay literal here, as Mermaid renders them
        elif nid in self.nodes:
            text = self.nodes[nid].text
        return shape, text, False

    # -- links ------------------------------------------------------------------------------------
    def link(self) -> dict | None:
        s = self.s
        em = _EDGE_ID_RE.match(s, self.i)
        if em is not None:
            self.edge_ids.add(em.group(1))
            self.i = em.end()
        label: str | None = None
        dh = None if self.strict else _DOUBLE_HEAD_RE.match(s, self.i)
        if dh is not None:
            self.repair(f"{dh.group('tok')!r} is not a flowchart link; read as '-->'")
            self.i = dh.end()
        m = None if dh is not None else LINK_RE.match(s, self.i)
        if dh is not None:
            attrs = {"stroke": "normal", "head": "arrow", "tail": "none", "length": 1}
        if dh is not None:
            pass
        elif m is not None:
            attrs = self._link_attrs(m)
            self.i = m.end()
        else:
            m2 = LINK_START_RE.match(s, self.i)
            if m2 is not None:
                kind = m2.group("kind")
                line_end = self.eol()
                end = LINK_END_RE[kind].search(s, m2.end(), line_end)
                if end is None and not self.strict and _LONE_TARGET_RE.match(s, m2.end(), line_end):
                    # "A -- B": the arrow head is missing, not the end of a "-- text -->" label
                    self.count_repair(self.i)
                    self.repair(f"link {m2.group()!r} has no arrow head; read as '-->'")
                    self.i = m2.end()
                    attrs = {"stroke": {"--": "normal", "==": "thick", "-.": "dotted"}[kind],
                             "head": "arrow", "tail": "none", "length": 1}
                elif end is None:
                    raise self.error(f"link text after {kind!r} is never closed by an arrow such as "
                                     f"{'-->' if kind == '--' else '==>' if kind == '==' else '.->'}",
                                     self.i)
                else:
                    raw = s[m2.end(): end.start()].strip()
                    label = self.unquote_label(self.smart_unquote(raw, m2.end()))
                    attrs = self._text_link_attrs(kind, m2.group("tail"), end)
                    self.i = end.end()
            else:
                sm = _SLOPPY_LINK_RE.match(s, self.i)
                if sm is None:
                    return None
                self.repair(f"{sm.group('tok')!r} is not a Mermaid link; read as '-->'")
                attrs = {"stroke": "normal", "head": "arrow", "tail": "none", "length": 1}
                self.i = sm.end()
        save = self.i
        self.skip_ws()
        if self.i < self.n and s[self.i] == "|":
            if label is not None:
                self.repair("a link with both '-- text -->' and '|text|' labels; kept the first")
                self.pipe_label()
            else:
                label = self.pipe_label()
        else:
            self.i = save
        attrs["label"] = label
        return attrs

    def pipe_label(self) -> str | None:
        s = self.s
        start = self.i
        j = start + 1
        while j < self.n and s[j] in " \t":
            j += 1
        line_end = self.eol()
        if j < self.n and s[j] == '"':
            q = s.find('"', j + 1, line_end)
            if q >= 0:
                k = q + 1
                while k < line_end and s[k] in " \t":
                    k += 1
                if k < line_end and s[k] == "|":
                    self.i = k + 1
                    return self.unquote_label(s[j: q + 1])
        end = s.find("|", start + 1, line_end)
        if end < 0:
            if self.strict:
                raise self.error("link label opened with '|' is never closed with '|'", start)
            # keep the first word-ish run as the label, the rest may still be the target
            self.count_repair(start)
            m = re.compile(r"\|\s*([^\s|]*)").match(s, start)
            self.i = m.end() if m else start + 1
            self.warn("link label opened with '|' is never closed; kept its first word", start)
            return self.unquote_label(m.group(1) if m else "")
        self.i = end + 1
        return self.unquote_label(self.smart_unquote(s[start + 1: end].strip(), start))

    def smart_unquote(self, raw: str, at: int) -> str:
        """Lenient mode: a label in typographic quotes (``A[“Go”]``, ``|“Yes”|``) loses them, as
        the model meant ``"``; inside a real ``"..."`` string they are text and never reach here."""
        if self.strict or len(raw) < 2 or raw[0] not in _SMART_OPEN or raw[-1] not in _SMART_CLOSE:
            return raw
        self.warn("read typographic quotes around a label as '\"'", at)
        return raw[1:-1]

    @staticmethod
    def unquote_label(raw: str) -> str | None:
        """Link text -> label: quotes removed (inner whitespace kept), markdown strings and
        entities decoded; ``None`` for a blank label."""
        if len(raw) >= 2 and raw[0] == raw[-1] == '"':
            raw = raw[1:-1]
            if len(raw) >= 2 and raw[0] == raw[-1] == "`":
                return _strip_markdown(decode_text(raw[1:-1]))
        text = decode_text(raw)
        return text if text.strip() else None

    @staticmethod
    def _link_attrs(m: re.Match[str]) -> dict:
        heads = {">": "arrow", "o": "circle", "x": "cross"}
        tails = {"<": "arrow", "o": "circle", "x": "cross", "": "none"}
        if m.group("n") is not None:
            return {"stroke": "normal", "tail": tails[m.group("nt")], "head": heads.get(m.group("nh"), "none"),
                    "length": len(m.group("n")) - 1}
        if m.group("t") is not None:
            return {"stroke": "thick", "tail": tails[m.group("tt")], "head": heads.get(m.group("th"), "none"),
                    "length": len(m.group("t")) - 1}
        if m.group("d") is not None:
            return {"stroke": "dotted", "tail": tails[m.group("dt")], "head": heads.get(m.group("dh"), "none"),
                    "length": len(m.group("d"))}
        return {"stroke": "invisible", "tail": "none", "head": "none", "length": len(m.group("i")) - 2}

    @staticmethod
    def _text_link_attrs(kind: str, tail: str, end: re.Match[str]) -> dict:
        heads = {">": "arrow", "o": "circle", "x": "cross"}
        tails = {"<": "arrow", "o": "circle", "x": "cross", "": "none"}
        body = end.group("body")
        head = heads.get(end.group("head"), "none")
        stroke = {"--": "normal", "==": "thick", "-.": "dotted"}[kind]
        # ``-- text -->`` : the closing token carries the length, as in a plain link
        length = len(body) if kind == "-." else max(1, len(body) - 1)
        return {"stroke": stroke, "tail": tails[tail], "head": head, "length": length}

    # -- subgraphs --------------------------------------------------------------------------------
    def open_subgraph(self, kw_at: int) -> None:
        s = self.s
        self.skip_ws()
        start = self.i
        sid: str | None = None
        title: str
        m = ID_RE.match(s, self.i)
        if s.startswith('"', self.i):
            end = s.find('"', self.i + 1, self.eol())
            if end < 0:
                raise self.error("unterminated subgraph title", self.i)
            title = decode_quoted(s[self.i + 1: end])
            self.i = end + 1
        elif m is not None:
            after = m.end()
            k = after
            while k < self.n and s[k] in " \t":
                k += 1
            if k < self.n and s[k] == "[":
                sid = m.group()
                j = k + 1
                while j < self.n and s[j] in " \t":
                    j += 1
                if s.startswith('"', j):
                    q = s.find('"', j + 1, self.eol())
                    close = s.find("]", q + 1 if q >= 0 else j, self.eol())
                    if q < 0 or close < 0 or s[q + 1: close].strip():
                        raise self.error(f"subgraph {sid!r}: malformed title", k)
                    title = decode_quoted(s[j + 1: q])
                else:
                    close = s.find("]", j, self.eol())
                    if close < 0:
                        raise self.error(f"subgraph {sid!r}: '[' is never closed with ']'", k)
                    title = decode_text(s[j:close].strip())
                self.i = close + 1
            elif self.rest_is_blank(after):
                sid = title = m.group()
                self.i = after
            else:  # ``subgraph Some title words``: Mermaid derives an id itself
                self.skip_statement_rest()
                title = decode_text(s[start: self.i].strip())
        elif self.at_eos():
            title = ""
        else:
            raise self.error(f"expected a subgraph id or title, found {self.describe(self.i)}")
        self.skip_ws()
        if not self.at_eos():
            raise self.error(f"unexpected {self.describe(self.i)} after the subgraph title")
        if sid is None:
            k = len(self.chart.subgraphs)
            while f"subGraph{k}" in self.subgraph_ids or f"subGraph{k}" in self.nodes:
                k += 1
            sid = f"subGraph{k}"
        self.subgraph_ids.add(sid)
        parent = self.stack[-1].sg.id if self.stack else None
        sg = Subgraph(id=sid, title=title, parent=parent)
        self.chart.subgraphs.append(sg)
        line, col = self.pos(kw_at)
        self.stack.append(_Frame(sg, line, col))

    def close_subgraph(self) -> None:
        frame = self.stack.pop()
        # Inner blocks close first and claim their nodes, as in Mermaid: a node belongs to the
        # innermost subgraph that mentions it.
        members = [n for n in frame.mentioned if n not in self.assigned and n in self.nodes]
        frame.sg.nodes = members
        self.assigned.update(members)


# -- lenient pre-cleaning ------------------------------------------------------------------------
def _extract_mermaid(text: str) -> tuple[str, list[str]]:
    """Cut the Mermaid out of model chatter. Dropped lines are blanked, not removed, so that line
    numbers in later warnings still point into the original text."""
    warnings: list[str] = []
    lines = text.split("\n")
    fences = [(m.start(), m) for m in _FENCE_RE.finditer(text)]
    keep: range | None = None
    if fences:
        starts = [0] + [m.end() for m in re.finditer("\n", text)]

        def line_no(off: int) -> int:
            return bisect.bisect_right(starts, off) - 1

        # (first body line, end line, language, closed); a fence with a language tag always
        # opens a block ("```" then "```mermaid" is an empty block, then the real one)
        blocks: list[tuple[int, int, str, bool]] = []
        open_line: int | None = None
        lang = ""
        for off, m in fences:
            ln, tag = line_no(off), m.group(2).lower()
            if open_line is None:
                open_line, lang = ln, tag
            elif tag:
                blocks.append((open_line + 1, ln, lang, False))
                open_line, lang = ln, tag
            else:
                blocks.append((open_line + 1, ln, lang, True))
                open_line = None
        if open_line is not None:
            blocks.append((open_line + 1, len(lines), lang, False))
        with_header = [b for b in blocks if _HEADER_LINE_RE.search("\n".join(lines[b[0]: b[1]]))]
        tagged = [b for b in blocks if b[2] == "mermaid"]
        chosen = (with_header or tagged or blocks)[0]
        keep = range(chosen[0], chosen[1])
        if not chosen[3]:
            warnings.append(f"line {chosen[0]}: code fence is never closed; read to its end")
    if keep is None:
        hm = _HEADER_LINE_RE.search(text)
        if hm is None:
            am = _HEADER_ANYWHERE_RE.search(text)
            if am is not None:  # "Here is the chart: flowchart TD" on one line
                line = text.count("\n", 0, am.start())
                col = am.start() - (text.rfind("\n", 0, am.start()) + 1)
                lines[line] = " " * col + lines[line][col:]  # blank the chatter, keep columns
                warnings.append(f"line {line + 1}: dropped text before the flowchart header")
                keep = range(line, len(lines))
            else:
                keep = range(0, len(lines))
        else:
            keep = range(text.count("\n", 0, hm.start()), len(lines))
    dropped = [i for i in range(len(lines)) if i not in keep and lines[i].strip()
               and not _FENCE_RE.fullmatch(lines[i])]
    if dropped:
        warnings.append(f"dropped {len(dropped)} line(s) of text around the Mermaid "
                        f"(lines {_ranges(d + 1 for d in dropped)})")
    return "\n".join(ln if i in keep else "" for i, ln in enumerate(lines)), warnings


def _ranges(nums) -> str:
    nums = list(nums)
    parts: list[str] = []
    start = prev = nums[0]
    for x in nums[1:] + [None]:
        if x is not None and x == prev + 1:
            prev = x
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if x is not None:
            start = prev = x
    return ", ".join(parts)


def parse_mermaid(text: str, *, strict: bool = True) -> FlowChart:
    """Parse Mermaid flowchart text into a `FlowChart`.

    Args:
        text: Mermaid source starting with ``flowchart``/``graph`` and a direction. With
            ``strict=False`` it may be wrapped in code fences and model chatter.
        strict: raise on any malformed statement (default). ``False`` salvages what it can and
            records every repair and drop in ``chart.warnings``; it raises only for input that
            is not a string.

    Returns:
        The chart; nodes and edges in order of first appearance, subgraphs as groups.

    Raises:
        MermaidSyntaxError: (strict mode) malformed input, with 1-based ``line``/``column``,
            or input beyond a documented limit (`MAX_INPUT_CHARS`, `MAX_EDGES_PER_STATEMENT`,
            `MAX_EDGES`; the message names it).
        TypeError: ``text`` is not a string.

    >>> chart = parse_mermaid('flowchart TD\\n  A(["Start"]) --> B{"Ok?"}\\n  B -->|Yes| C[Done]')
    >>> [(e.source, e.target, e.condition) for e in chart.edges]
    [('A', 'B', None), ('B', 'C', 'yes')]
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_mermaid expects a str, got {type(text).__name__}")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith("\ufeff"):
        text = text[1:]
    pre_warnings: list[str] = []
    if len(text) > MAX_INPUT_CHARS:
        cut = text.rfind("\n", 0, MAX_INPUT_CHARS + 1)
        cut = MAX_INPUT_CHARS if cut < 0 else cut
        line = text.count("\n", 0, cut) + 1
        what = f"the input has {len(text):,} characters, more than {MAX_INPUT_CHARS:,} (MAX_INPUT_CHARS)"
        if strict:
            raise MermaidSyntaxError(what, line, cut - (text.rfind("\n", 0, cut) + 1) + 1)
        pre_warnings.append(f"line {line}: {what}; read the lines before it and dropped the rest")
        text = text[:cut]
    if not strict:
        text, more = _extract_mermaid(text)
        pre_warnings += more
    parser = _Parser(text, strict)
    chart = parser.parse()
    chart.warnings[:0] = pre_warnings
    return chart
