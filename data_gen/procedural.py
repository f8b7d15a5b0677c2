"""Procedural random flowcharts: seeded, 3-45 nodes, realistic structure and vocabulary.

Charts are grown like small structured programs / how-to guides: a Start terminal, then a
sequence of blocks (steps, input/output, data stores, sub-routine calls, if/else diamonds whose
Yes/No branches merge again, early exits to End, loops back to an earlier step, multi-way
switches with free-text branch labels), optionally grouped in subgraphs, then End terminal(s).
Every node shape of `flowpath.graph.core.SHAPES` occurs. Labels come from code-like, how-to-like
and wiki-like vocabularies, short and long, some with explicit line breaks.

>>> import random
>>> chart, domain = random_flowchart(random.Random(0), n_nodes=12)
>>> 3 <= len(chart.nodes) <= 14 and chart.nodes["A"].kind == "start"
True
"""

from __future__ import annotations

import dataclasses
import random
import string
from dataclasses import dataclass, field

from flowpath.graph.core import Edge, FlowChart, Node, Subgraph
from flowpath.labels import index_to_letters

DOMAINS = ("code", "instruct", "wiki")

_VAR = ["count", "total", "index", "result", "buffer", "user", "config", "items", "value", "node",
        "response", "token", "path", "data", "record", "queue", "cache", "offset", "retries", "score"]
_FUNC = ["parse_args", "load_config", "validate", "fetch_data", "compute_hash", "send_request",
         "write_log", "open_file", "serialize", "normalize", "retry_later", "close_connection",
         "update_index", "flush_cache", "render_page", "apply_patch", "read_line", "encode"]
_OBJ = ["self.name", "self.items", "data['id']", "os.environ", "request.body", "response.status",
        "self.default", "args.input", "kwargs", "the list", "the file", "the socket"]
_CODE_STEP = [
    "Initialize {v} to 0", "Set {v} = {v2} + 1", "Call {f}()", "Call {f}({v})", "Append {v} to {v2}",
    "Increment {v}", "Retrieve {o} attribute", "Convert {v} to an integer", "Store {v} in {o}",
    "Open a connection to the database", "Split {v} into tokens", "Sort {v} in ascending order",
    "Compute the checksum of {v}", "Log an error message", "Raise ValueError", "Reset {v} to None",
    "Attempt to get the value associated with {o} in {v}", "Build the {v} dictionary",
    "Decode the {v} from JSON", "Merge {v} into {v2}", "Release the lock on {v}",
]
_CODE_IO = ["Receive {v} as input", "Read {v} from {o}", "Return {v}", "Print {v}", "Return None",
            "Output the {v} list", "Yield the next {v}", "Return the integer {v}", "Write {v} to disk"]
_CODE_Q = ["Is {v} empty?", "{v} > {v2}?", "Is {o} None?", "Check if {v} is valid", "Has more {v}?",
           "Did {f}() succeed?", "Is {v} in {v2}?", "Retries left?", "Is the file open?",
           "Check if {v} is not None or not False", "{v} == 0?", "Connection established?"]
_HOW_VERB = ["Gather", "Prepare", "Mix", "Wash", "Cut", "Measure", "Place", "Remove", "Check",
             "Apply", "Attach", "Fold", "Heat", "Cool", "Rinse", "Sand", "Paint", "Pour", "Stir",
             "Trim", "Plant", "Water", "Label", "Clean", "Dry", "Inspect", "Tighten", "Record"]
_HOW_OBJ = ["the materials", "the dough", "the fabric", "the soil", "the mixture", "two cups of flour",
            "the edges", "the surface", "the seeds", "the screws", "the bowl", "the paint",
            "a thin layer of glue", "the wooden board", "the baking soda", "the leaves", "your hands",
            "the water", "the oven to 350 degrees", "the frame", "the hinges", "the results"]
_HOW_TAIL = ["", "", "", " carefully", " for 10 minutes", " until smooth", " with a soft cloth",
             " and set aside", " in a cool place", " before continuing", " using a small brush",
             " to remove any dust", " according to the instructions on the package"]
_HOW_Q = ["Is the {o} dry?", "Mixture too runny?", "Does it fit?", "Is the surface smooth?",
          "Enough {o}?", "Prefer a darker color?", "Is it still warm?", "Any leaks?",
          "Do you have {o}?", "Is the {o} ready?", "Too sticky?", "Satisfied with the result?"]
_WIKI = ["Research the topic", "Contact the local office", "Fill out the application form",
         "Submit the required documents", "Wait for approval", "Schedule an appointment",
         "Pay the registration fee", "Review the terms", "Consult a professional",
         "Compare available options", "Choose a suitable plan", "Attend the orientation session",
         "Keep a copy of the receipt", "Update your records", "Notify your employer"]
_WIKI_Q = ["Eligible?", "Application approved?", "Do you qualify for a discount?",
           "Is the deadline past?", "Documents complete?", "Need professional help?"]
_OTHER_BRANCHES = [("High", "Medium", "Low"), ("Option A", "Option B", "Option C"),
                   ("GET", "POST", "DELETE"), ("Small", "Large"), ("Timeout", "Error", "OK"),
                   ("Red", "Green", "Blue", "Other"), ("int", "str", "list")]
_SUB = ["Call {f}()", "Run the {v} subroutine", "Invoke {f} helper", "Execute cleanup routine"]
_DATA = ["{v} table", "Database", "{v} cache", "Config store", "Log file", "User records"]
_GROUPS = ["Initialization", "Main loop", "Validation", "Cleanup", "Preparation", "Assembly",
           "Finishing", "Error handling", "Setup", "Processing"]


@dataclass
class _Builder:
    rng: random.Random
    domain: str
    chart: FlowChart
    budget: int
    counter: int = 0
    subgraphs: list[Subgraph] = field(default_factory=list)
    shape_bag: list[str] = field(default_factory=list)
    #: mostly decisions: labelled branches, nested conditions (a branch label on an edge into
    #: a decision) and while-loops whose body returns into its decision (`random_flowchart`)
    branchy: bool = False

    def new_id(self) -> str:
        nid = index_to_letters(self.counter)
        self.counter += 1
        return nid

    def fill(self, template: str) -> str:
        r = self.rng
        v, v2 = r.sample(_VAR, 2)
        return template.format(v=v, v2=v2, f=r.choice(_FUNC), o=r.choice(_OBJ if self.domain == "code" else _HOW_OBJ))

    def text(self, kind: str) -> str:
        r = self.rng
        if kind == "decision":
            pool = {"code": _CODE_Q, "instruct": _HOW_Q, "wiki": _WIKI_Q + _HOW_Q}[self.domain]
            t = self.fill(r.choice(pool))
        elif kind == "io":
            t = self.fill(r.choice(_CODE_IO)) if self.domain == "code" else self.fill(
                r.choice(["Obtain {o}", "Receive {o}", "Collect {o}", "Output the finished {o}"]))
        elif kind == "subroutine":
            t = self.fill(r.choice(_SUB))
        elif kind == "data":
            t = self.fill(r.choice(_DATA))
        elif self.domain == "code":
            t = self.fill(r.choice(_CODE_STEP))
        elif self.domain == "wiki" and r.random() < 0.6:
            t = r.choice(_WIKI)
        else:
            t = f"{r.choice(_HOW_VERB)} {r.choice(_HOW_OBJ)}{r.choice(_HOW_TAIL)}"
        # some very short and some long labels; some with explicit line breaks
        u = r.random()
        if u < 0.08 and kind != "decision":
            t = t.split()[0] if len(t.split()) > 1 else t
        elif u < 0.18:
            extra = self.fill(r.choice(_CODE_STEP)) if self.domain == "code" else \
                f"{r.choice(_HOW_VERB).lower()} {r.choice(_HOW_OBJ)}{r.choice(_HOW_TAIL)}"
            t = f"{t.rstrip('?')}, then {extra[0].lower() + extra[1:]}" + ("?" if t.endswith("?") else "")
        if r.random() < 0.08 and len(t.split()) >= 4:
            words = t.split()
            k = len(words) // 2
            t = " ".join(words[:k]) + "\n" + " ".join(words[k:])
        return t

    def shape_for(self, kind: str) -> str:
        r = self.rng
        if kind == "decision":
            return "rhombus" if r.random() < 0.9 else "hexagon"
        if kind == "io":
            return r.choice(("lean_right", "lean_right", "lean_left"))
        if kind == "subroutine":
            return "subroutine"
        if kind == "data":
            return "cylinder"
        # plain steps: mostly rectangles, sometimes any other shape (every shape must occur)
        if r.random() < 0.78:
            return r.choice(("rect", "rect", "rect", "round"))
        if not self.shape_bag:
            self.shape_bag = ["round", "hexagon", "trapezoid", "trapezoid_alt", "asymmetric",
                              "circle", "double_circle", "lean_left", "stadium"]
            r.shuffle(self.shape_bag)
        return self.shape_bag.pop()

    def add(self, kind: str, text: str | None = None, shape: str | None = None) -> str:
        nid = self.new_id()
        shape = shape or self.shape_for(kind)
        txt = text if text is not None else self.text(kind)
        if shape in ("circle", "double_circle") and len(txt) > 14:
            txt = txt.split()[0]
        self.chart.add_node(Node(nid, txt, shape))
        self.budget -= 1
        return nid

    def link(self, a: str | list[str], b: str, label: str | None = None) -> None:
        for src in [a] if isinstance(a, str) else a:
            stroke = "normal"
            u = self.rng.random()
            if u < 0.04:
                stroke = "dotted"
            elif u < 0.07:
                stroke = "thick"
            self.chart.add_edge(Edge(src, b, label, stroke=stroke))

    # -- blocks: each takes the open "tails" (node ids whose next edge is pending) and returns
    #    the new tails; pending labels ride along as (id, label) pairs.
    def block(self, tails: list[tuple[str, str | None]], depth: int, end_id_holder: list[str]) -> list[tuple[str, str | None]]:
        r = self.rng
        kinds = ["step"] * 6 + ["io"] * 2 + ["data", "sub"] + (["if", "if", "exit", "loop", "switch"] if depth < 3 else [])
        if self.branchy:
            kinds = ["step"] * 3 + ["io"] + (["if", "if", "exit", "loop", "while", "while"] if depth < 4 else [])
        choice = r.choice(kinds) if self.budget >= 4 else r.choice(["step", "io"])
        if choice in ("step", "io", "data", "sub"):
            kind = {"step": "process", "io": "io", "data": "data", "sub": "subroutine"}[choice]
            nid = self.add(kind)
            self.connect(tails, nid)
            return [(nid, None)]
        yes, no = r.choice([("Yes", "No"), ("Yes", "No"), ("Yes", "No"), ("True", "False"), ("Y", "N")])
        if choice == "if":
            d = self.add("decision")
            self.connect(tails, d)
            left = self.seq([(d, yes)], depth + 1, end_id_holder, r.randint(1, 3))
            right = self.seq([(d, no)], depth + 1, end_id_holder, r.randint(0, 2)) if r.random() < 0.75 else [(d, no)]
            return left + right  # both branches merge at the next node
        if choice == "exit":
            d = self.add("decision")
            self.connect(tails, d)
            bad = self.add(r.choice(["process", "io"]))
            self.link(d, bad, no)
            end_id_holder.append(bad)  # leads to an End terminal later
            return [(d, yes)]
        if choice == "loop":
            body = self.add("process")
            self.connect(tails, body)
            inner = self.seq([(body, None)], depth + 1, end_id_holder, r.randint(0, 2))
            d = self.add("decision")
            self.connect(inner, d)
            self.link(d, body, yes)  # back edge
            return [(d, no)]
        if choice == "while":
            d = self.add("decision")
            self.connect(tails, d)
            inner = self.seq([(d, yes)], depth + 1, end_id_holder, r.randint(1, 2))
            self.connect([t for t in inner if t[0] != d], d)  # the body returns into its decision
            return [(d, no)]
        # switch: 3-4 labelled branches merging again
        d = self.add("decision")
        self.connect(tails, d)
        labels = r.choice(_OTHER_BRANCHES)
        out: list[tuple[str, str | None]] = []
        for lab in labels:
            if self.budget <= 1:
                break
            nid = self.add("process")
            self.link(d, nid, lab)
            out.append((nid, None))
        return out or [(d, None)]

    def connect(self, tails: list[tuple[str, str | None]], nid: str) -> None:
        for src, lab in tails:
            self.link(src, nid, lab)

    def seq(self, tails: list[tuple[str, str | None]], depth: int, ends: list[str], n_blocks: int) -> list[tuple[str, str | None]]:
        start_count = self.counter
        for _ in range(n_blocks):
            if self.budget <= 1:
                break
            tails = self.block(tails, depth, ends)
        # occasionally wrap what this sequence made in a subgraph
        made = [index_to_letters(i) for i in range(start_count, self.counter)]
        if depth <= 1 and len(made) >= 2 and self.rng.random() < 0.18 and len(self.subgraphs) < 3:
            taken = {n for sg in self.subgraphs for n in sg.nodes}
            members = [m for m in made if m not in taken]
            if len(members) >= 2:
                self.subgraphs.append(Subgraph(id=f"SG{len(self.subgraphs) + 1}",
                                               title=self.rng.choice(_GROUPS), nodes=members))
        return tails


def random_flowchart(rng: random.Random, n_nodes: int | None = None, *, min_nodes: int = 3,
                     max_nodes: int = 45, domain: str | None = None, direction: str | None = None,
                     subgraphs: bool = True, branchy: bool = False) -> tuple[FlowChart, str]:
    """A random flowchart with about ``n_nodes`` nodes (drawn in [min_nodes, max_nodes] if None).

    Args:
        rng: seeded generator; the chart is a pure function of its state.
        n_nodes: target node count (the result is within a few nodes, clipped to the range).
        domain: ``code`` | ``instruct`` | ``wiki`` vocabulary (random if None).
        direction: ``TD`` | ``LR`` | ``BT`` (random, mostly TD, if None).
        subgraphs: allow subgraph groups.
        branchy: mostly decisions (`_Builder.branchy`): many labelled branches and loops back
            into decisions, for checking rules about labels near decisions.

    Returns:
        ``(chart, domain)``; node ids are A, B, C... in creation order.
    """
    if not 3 <= min_nodes <= max_nodes:
        raise ValueError(f"need 3 <= min_nodes <= max_nodes, got {min_nodes}, {max_nodes}")
    target = n_nodes if n_nodes is not None else rng.randint(min_nodes, max_nodes)
    target = max(min_nodes, min(max_nodes, target))
    domain = domain or rng.choice(DOMAINS)
    if domain not in DOMAINS:
        raise ValueError(f"unknown domain {domain!r}; expected one of {DOMAINS}")
    # long left-to-right chains are rare in real charts (and unreadable under a width cap)
    direction = direction or rng.choice(("TD",) * 6 + ("LR",) * (3 if target <= 15 else 1) + ("BT",))
    chart = FlowChart(direction)
    b = _Builder(rng=rng, domain=domain, chart=chart, budget=target, branchy=branchy)
    start = b.add("process", rng.choice(["Start", "Start", "Begin", "START"]), "stadium" if rng.random() < 0.85 else "round")
    ends: list[str] = []
    tails: list[tuple[str, str | None]] = [(start, None)]
    guard = 0
    while b.budget > 1 and guard < 200:
        guard += 1
        tails = b.seq(tails, 0, ends, 1)
    end_text = rng.choice(["End", "End", "Stop", "Done", "END"])
    end = b.add("process", end_text, "stadium" if rng.random() < 0.85 else "round")
    b.connect(tails, end)
    for e in ends:
        # early exits either share the End or get their own terminal
        if rng.random() < 0.6 or len(chart.nodes) >= max_nodes:
            b.link(e, end)
        else:
            own = b.add("process", end_text, chart.nodes[end].shape)
            b.link(e, own)
    if subgraphs:
        chart.subgraphs = b.subgraphs
    return chart, domain


def random_text_labels(chart: FlowChart, rng: random.Random) -> FlowChart:
    """A copy whose node and edge labels are random character strings of similar lengths
    (the paper's segmenter data used random text so the model cannot lean on vocabulary)."""
    out = chart.copy()
    alphabet = string.ascii_letters + string.digits + "     "
    for node in chart:
        lines = node.text.split("\n")
        new = []
        for line in lines:
            n = max(1, len(line) + rng.randint(-3, 3))
            word = "".join(rng.choice(alphabet) for _ in range(n)).strip() or rng.choice(string.ascii_letters)
            new.append(" ".join(word.split()))
        out.add_node(dataclasses.replace(node, text="\n".join(new)))
    for e in chart.edges:
        if e.label:
            out.replace_edge(e, dataclasses.replace(
                e, label="".join(rng.choice(string.ascii_letters) for _ in range(max(1, len(e.label))))))
    return out
