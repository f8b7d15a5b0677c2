"""How the reasoners read a node: its kind and its branches (shared by the rules and the
learned node scorer)."""

from __future__ import annotations

import dataclasses
import html
import re

from flowpath.graph import Edge, FlowChart, infer_kind
from flowpath.graph.core import START_WORDS

_BRANCH_WORDS = ("yes", "no")
# a label with no word longer than this that is not a branch word is a misread one ("Ye5",
# "Na", "es 1") or fragments of a connector read as text ("ee", "r vas, i"): the transcriber's
# slips on febench_dev (docs/transcription.md, "conditions") and on wild Mermaid renders
_SLIP_LENGTH = 3
_WORD = re.compile(rf"[a-z]{{{_SLIP_LENGTH + 1},}}")
# an HTML entity printed as text: Mermaid without HTML labels draws a "<" in a label as the
# five characters "&lt;", and OCR reads them faithfully
_ENTITY = re.compile(r"&(?:[a-z]+|#\d+);", re.I)


def node_kind(chart: FlowChart, nid: str) -> str:
    """The node's kind, with decisions recognised by behaviour too: a transcriber may draw a
    decision as a plain box, but a question-like text or labelled branches give it away; and a
    titled start (`is_titled_start`) is a start."""
    node = chart.nodes[nid]
    if is_titled_start(chart, nid):
        return "start"
    if node.kind != "decision" and node.kind not in ("start", "end"):
        outs = chart.out_edges(nid)
        if (node.text or "").rstrip().endswith("?") or (len(outs) >= 2 and any(e.label for e in outs)):
            return "decision"
    return node.kind


def is_titled_start(chart: FlowChart, nid: str) -> bool:
    """A terminal with no way in whose text opens with a start word and names the task ("Start
    returning an online purchase", "Begin: baking bread"): how-to charts title their Start node,
    and `infer_kind` makes a start only of a short text (a step "Start the engine" must stay a
    step). A story that names the task names that node, but never stands at it (howto11 val)."""
    node = chart.nodes[nid]
    return node.kind == "terminal" and bool(START_WORDS.match(node.text or "")) and not chart.predecessors(nid)


def branches(chart: FlowChart, nid: str) -> list[tuple[Edge, str | None]]:
    """The node's out-edges, each with the branch it stands for (`Edge.condition`).

    A transcriber loses a branch label now and then (a label box not found, "No" read as
    nothing or as a fragment). At a node with exactly two out-edges, one labelled ``yes`` (or
    ``no``) and the other unlabelled or labelled with a short non-branch word, the other edge is
    the other branch: a yes/no check has both.

    >>> fc = FlowChart.from_edges([("D", "A", "Yes"), ("D", "B")], {"D": "Is it dry?"})
    >>> [(e.target, c) for e, c in branches(fc, "D")]
    [('A', 'yes'), ('B', 'no')]
    """
    outs = chart.out_edges(nid)
    conds = [e.condition for e in outs]
    if len(outs) == 2:
        read = [c for c in conds if c in _BRANCH_WORDS]
        unread = [c for c in conds if _unread(c)]
        if len(read) == 1 and len(unread) == 1:
            other = "no" if read[0] == "yes" else "yes"
            conds = [c if c in _BRANCH_WORDS else other for c in conds]
    return list(zip(outs, conds, strict=True))


def _unread(condition: str | None) -> bool:
    """Whether a branch condition is no reading at all: no label, or a slip (see `_WORD`)."""
    return condition is None or (condition not in _BRANCH_WORDS and not _WORD.search(condition))


def unread_branches(chart: FlowChart, nid: str) -> bool:
    """Whether the node has two or more ways out and not one of their labels was read (no label,
    or only slips): which way is "yes" is then not in the graph."""
    outs = chart.out_edges(nid)
    return len(outs) >= 2 and all(_unread(e.condition) for e in outs)


def mend_lost_connectors(chart: FlowChart) -> FlowChart:
    """``chart`` with the connectors a transcriber most likely lost put back (the chart itself
    when there is nothing to mend).

    A chart with a Start node has no other entry, and a step that is not a terminal leads
    somewhere; a missed connector leaves exactly that: a *cut end* (a node with in-edges but no
    out-edge, not an end or terminal) and a *cut start* (a node with out-edges but no in-edge,
    not a start or terminal). On the benchmark's Mermaid look the connector lost most often is
    one of a pair running both ways between two neighbours (a check looping back to the step
    above it): a cut start whose labelled branch reaches a cut end gets the edge back the other
    way; then one cut end and one cut start left are joined. Anything else (several of each) is
    left alone: without the drawing there is no telling which end meets which.

    >>> fc = FlowChart.from_edges([("S", "A"), ("D", "A", "Yes"), ("D", "B", "No"), ("B", "E")],
    ...                           {"S": "Start", "A": "Sand it", "D": "Is it smooth?", "B": "Paint it", "E": "End"})
    >>> [(e.source, e.target) for e in mend_lost_connectors(fc).edges][-1]
    ('A', 'D')
    """
    if not any(chart.nodes[n].kind == "start" for n in chart.nodes):
        return chart
    ends = [n for n in chart.nodes if chart.out_degree(n) == 0 and chart.in_degree(n) > 0
            and chart.nodes[n].kind not in ("end", "terminal")]
    starts = [n for n in chart.nodes if chart.in_degree(n) == 0 and chart.out_degree(n) > 0
              and chart.nodes[n].kind not in ("start", "terminal")]
    if not ends or not starts:
        return chart
    added: list[tuple[str, str]] = []
    for start in starts:
        back = [e.target for e in chart.out_edges(start) if e.target in ends and e.label]
        if len(back) == 1:
            added.append((back[0], start))
    ends_left = [n for n in ends if n not in {end for end, _ in added}]
    starts_left = [n for n in starts if n not in {start for _, start in added}]
    if len(ends_left) == 1 and len(starts_left) == 1 and ends_left != starts_left:
        added.append((ends_left[0], starts_left[0]))
    if not added:
        return chart
    chart = chart.copy()
    for source, target in added:
        chart.add_edge(Edge(source, target))
    return chart


# a start or end word that is a program's variable: "start = i", "entry.applies_to(x)?",
# "end -= 1", "exit_code == 0?" (a terminal word followed by code, not by words or ":")
_CODE_AFTER_TERMINAL_WORD = re.compile(r"^\s*(?:start|begin|entry|end|stop|exit|done|finish)"
                                       r"(?:\s*(?:[-+*/]?=|[<>!]=?|==)|[.(\[_]\w?)", re.I)


def read_code_kinds(chart: FlowChart) -> FlowChart:
    """``chart`` with the nodes whose text is code about a variable named like a terminal
    ("start = i", "entry.applies_to(useragent)?") given the kind of their shape: the core's
    kind rule reads a leading "start"/"entry" as the Start node (the chart itself when no node
    is read so; found on charts drawn from real functions, codereason11_val).

    >>> fc = FlowChart.from_edges([("A", "B"), ("B", "C")], {"A": "Start", "B": "start = i", "C": "End"})
    >>> [read_code_kinds(fc).nodes[n].kind for n in "ABC"]
    ['start', 'process', 'end']
    """
    wrong = [n for n in chart if n.kind in ("start", "end") and _CODE_AFTER_TERMINAL_WORD.match(n.text or "")]
    if not wrong:
        return chart
    chart = chart.copy()
    for n in wrong:
        chart.add_node(dataclasses.replace(n, kind=infer_kind(n.shape, "")))
    return chart


# a node text written as code: an assignment or comparison ("x = 0", "i += 1", "k != 0"), a call
# ("foo(x)", "self.fill()"), a snake_case or dotted name ("line_buf", "self.items"), an index
# ("data[n // 2]"), a remainder or floor division ("n % 2")
_CODE_TEXT = re.compile(r"[\w\])]\s*(?:[-+*/%]?=|==|!=|<=|>=)\s*\S|[A-Za-z_]\w*\([^)]*\)|\b[a-z]+_[a-z_]+\b"
                        r"|\b[a-z_]\w*\.[a-z_]\w+|\b[a-z_]\w*\[[^\]]+\]|\b[a-z_]\w* (?:%|//) \w")


def is_program_chart(chart: FlowChart) -> bool:
    """Whether ``chart`` draws a program: two or more of its node texts hold code
    (`_CODE_TEXT`) outside quotes. On such a chart an LLM's words around plain names are code ("Is start
    smaller than end?", `flowpath.reason.branches.llm_worded_as_code`); generated QA,
    codeword12_val.

    >>> fc = FlowChart.from_edges([("A", "B"), ("B", "C")], {"A": "total = 0", "B": "Is start smaller than end?", "C": "print(total)"})
    >>> is_program_chart(fc)
    True
    """
    # quoted words are no code: "Write file 'log.txt'" on a chart in words (scen9_test)
    return sum(bool(_CODE_TEXT.search(re.sub(r"'[^']*'|\"[^\"]*\"", "''", n.text or ""))) for n in chart) >= 2


def read_entities(chart: FlowChart) -> FlowChart:
    """``chart`` with the HTML entities that its node texts and edge labels show as text
    decoded (the chart itself when none does).

    Mermaid with ``htmlLabels: false`` draws "Is the soil pH < 180?" as "Is the soil pH &lt;
    180?" and the transcriber reads what is drawn; a check whose comparison reads "&lt;" has no
    threshold, so a story's number could not settle it (`flowpath.reason.branches.threshold`).

    >>> fc = FlowChart.from_edges([("D", "A", "Yes")], {"D": "Is x &lt; 3?", "A": "Stop"})
    >>> read_entities(fc).nodes["D"].text
    'Is x < 3?'
    """
    nodes = [n for n in chart if n.text and _ENTITY.search(n.text)]
    edges = [e for e in chart.edges if e.label and _ENTITY.search(e.label)]
    if not nodes and not edges:
        return chart
    chart = chart.copy()
    for n in nodes:
        chart.add_node(dataclasses.replace(n, text=html.unescape(n.text)))
    for e in edges:
        chart.replace_edge(e, dataclasses.replace(e, label=html.unescape(e.label or "")))
    return chart


def turn_reversed_connectors(chart: FlowChart) -> FlowChart:
    """``chart`` with the connectors a transcriber most likely read backwards turned round (the
    chart itself when there is none).

    In a chart with a Start node every other node has a way in and every step a way out. A
    connector whose arrowhead was read at the wrong end leaves exactly that: its true source
    becomes a *cut end* (no way out) and its true target a *cut start* (no way in), joined by
    the backwards edge; a run of steps read backwards joins them by a chain of such edges
    through nodes with one way in and one way out. Such a chain, from a cut start to a cut end,
    is turned; repeated while that uncovers another. Only unlabelled edges: a labelled edge
    there is a check's loop back whose forward twin was lost (`mend_lost_connectors` puts that
    back), and the transcriber draws labelled connectors leaving their check. A whole chart
    has no cut start, so nothing changes there.

    >>> fc = FlowChart.from_edges([("S", "A"), ("B", "A"), ("B", "E")],
    ...                           {"S": "Start", "A": "Sand it", "B": "Paint it", "E": "End"})
    >>> [(e.source, e.target) for e in turn_reversed_connectors(fc).edges]
    [('S', 'A'), ('B', 'E'), ('A', 'B')]
    """
    if not any(chart.nodes[n].kind == "start" for n in chart.nodes):
        return chart
    out = chart
    for _ in range(len(chart.edges)):
        chain = _backwards_chain(out)
        if chain is None:
            break
        if out is chart:
            out = chart.copy()
        for edge in chain:
            out.remove_edge(edge)
            out.add_edge(dataclasses.replace(edge, source=edge.target, target=edge.source))
    return out


def _backwards_chain(chart: FlowChart) -> list[Edge] | None:
    """The first chain of unlabelled edges from a cut start to a cut end through nodes with one
    way in and one way out (see `turn_reversed_connectors`), ``None`` when there is none."""
    ends = {n for n in chart.nodes if chart.out_degree(n) == 0 and chart.in_degree(n) > 0
            and chart.nodes[n].kind not in ("end", "terminal")}
    starts = sorted(n for n in chart.nodes if chart.in_degree(n) == 0 and chart.out_degree(n) > 0
                    and chart.nodes[n].kind not in ("start", "terminal"))
    if not ends:
        return None
    for start in starts:
        for first in chart.out_edges(start):
            chain, edge = [], first
            while not edge.label and edge.target != start and edge not in chain:
                chain.append(edge)
                if edge.target in ends:
                    return chain
                nxt = chart.out_edges(edge.target)
                if chart.in_degree(edge.target) != 1 or len(nxt) != 1:
                    break
                edge = nxt[0]
    return None


def split_merged_loops(chart: FlowChart) -> FlowChart:
    """``chart`` with each check's loop back that the transcriber merged into the forward
    connector split out again (the chart itself when there is none).

    A check looping back to the step above it is drawn as two connectors between the same
    pair; read as one, the forward edge step -> check carries the loop's label ("No") and the
    check keeps a single branch. A yes/no label on the only way out of a step that is not a
    check, into a check that has no edge for that branch, is that: the label goes back to the
    check's own edge to the step, and the forward edge is plain again. A whole chart has no
    labelled edge leaving a step, so nothing changes there.

    >>> fc = FlowChart.from_edges([("S", "A"), ("A", "D", "No"), ("D", "E", "Yes")],
    ...                           {"S": "Start", "A": "Sand it", "D": "Is it smooth?", "E": "End"})
    >>> [(e.source, e.target, e.label) for e in split_merged_loops(fc).edges]
    [('S', 'A', None), ('A', 'D', None), ('D', 'E', 'Yes'), ('D', 'A', 'No')]
    """
    merged = []
    for e in chart.edges:
        cond = e.condition
        if cond not in _BRANCH_WORDS or e.source == e.target or len(chart.out_edges(e.source)) != 1:
            continue
        if node_kind(chart, e.source) == "decision" or node_kind(chart, e.target) != "decision":
            continue
        if any(c == cond for _, c in branches(chart, e.target)):
            continue
        merged.append(e)
    if not merged:
        return chart
    chart = chart.copy()
    for e in merged:
        chart.replace_edge(e, dataclasses.replace(e, label=None))
        chart.add_edge(dataclasses.replace(e, source=e.target, target=e.source))
    return chart
