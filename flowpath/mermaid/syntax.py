"""Mermaid flowchart vocabulary: node-shape brackets, ``@{ shape: ... }`` names, link tokens,
label escaping. Shared by the parser and the exporter so both agree on every spelling.

References: the Mermaid flowchart syntax page (https://mermaid.js.org/syntax/flowchart.html) and
its grammar ``packages/mermaid/src/diagrams/flowchart/parser/flow.jison``.
"""

from __future__ import annotations

import html
import re
import string

#: shape -> (opening bracket, closing bracket) used by the exporter.
SHAPE_BRACKETS: dict[str, tuple[str, str]] = {
    "rect": ("[", "]"),
    "round": ("(", ")"),
    "stadium": ("([", "])"),
    "subroutine": ("[[", "]]"),
    "cylinder": ("[(", ")]"),
    "circle": ("((", "))"),
    "double_circle": ("(((", ")))"),
    "rhombus": ("{", "}"),
    "hexagon": ("{{", "}}"),
    "lean_right": ("[/", "/]"),
    "lean_left": ("[\\", "\\]"),
    "trapezoid": ("[/", "\\]"),
    "trapezoid_alt": ("[\\", "/]"),
    "asymmetric": (">", "]"),
}

#: opening bracket -> list of (closing bracket, shape), longest openers first. ``[/`` and
#: ``[\`` open two shapes each; the closing bracket decides which one.
OPENERS: list[tuple[str, list[tuple[str, str]]]] = [
    ("(((", [(")))", "double_circle")]),
    ("((", [("))", "circle")]),
    ("([", [("])", "stadium")]),
    ("(-", [("-)", "round")]),  # Mermaid's ellipse; flowpath has no ellipse shape
    ("(", [(")", "round")]),
    ("[[", [("]]", "subroutine")]),
    ("[(", [(")]", "cylinder")]),
    ("[/", [("/]", "lean_right"), ("\\]", "trapezoid")]),
    ("[\\", [("\\]", "lean_left"), ("/]", "trapezoid_alt")]),
    ("[", [("]", "rect")]),
    ("{{", [("}}", "hexagon")]),
    ("{", [("}", "rhombus")]),
    (">", [("]", "asymmetric")]),
]

#: ``A@{ shape: name }`` names (Mermaid >= 11.3, short and long aliases) -> flowpath shape.
#: Shapes flowpath has no equivalent for map to the closest one in meaning.
AT_SHAPES: dict[str, str] = {}
for _shape, _names in {
    "rect": "rect proc process rectangle notch-rect card notched-rectangle lin-rect lin-proc "
            "lined-rectangle lined-process shaded-process div-rect div-proc divided-rectangle "
            "divided-process st-rect procs processes stacked-rectangle tag-rect tag-proc "
            "tagged-rectangle tagged-process win-pane internal-storage window-pane text "
            "doc document lin-doc lined-document docs documents st-doc stacked-document "
            "tag-doc tagged-document flag paper-tape bolt com-link lightning-bolt brace "
            "comment brace-l brace-r braces sl-rect manual-input sloped-rectangle "
            "notch-pent loop-limit notched-pentagon hourglass collate tri extract triangle "
            "flip-tri manual-file flipped-triangle fork join curv-trap curved-trapezoid "
            "display delay half-rounded-rectangle",
    "round": "rounded event",
    "stadium": "stadium terminal pill",
    "subroutine": "fr-rect subproc subprocess subroutine framed-rectangle",
    "cylinder": "cyl cylinder database db das h-cyl horizontal-cylinder lin-cyl disk "
                "lined-cylinder bow-rect stored-data bow-tie-rectangle",
    "circle": "circle circ sm-circ small-circle start cross-circ summary crossed-circle",
    "double_circle": "dbl-circ double-circle fr-circ framed-circle stop f-circ filled-circle",
    "rhombus": "diam diamond decision question rhombus",
    "hexagon": "hex hexagon prepare",
    "lean_right": "lean-r lean-right in-out",
    "lean_left": "lean-l lean-left out-in",
    "trapezoid": "trap-b trapezoid trapezoid-bottom priority",
    "trapezoid_alt": "trap-t inv-trapezoid trapezoid-top manual",
    "asymmetric": "odd asymmetric",
}.items():
    for _n in _names.split():
        AT_SHAPES[_n] = _shape

#: Mermaid shape name the exporter writes for each flowpath shape in ``@{ }`` form.
SHAPE_AT_NAME = {"rect": "rect", "round": "rounded", "stadium": "stadium", "subroutine": "fr-rect",
                 "cylinder": "cyl", "circle": "circle", "double_circle": "dbl-circ",
                 "rhombus": "diam", "hexagon": "hex", "lean_right": "lean-r",
                 "lean_left": "lean-l", "trapezoid": "trap-b", "trapezoid_alt": "trap-t",
                 "asymmetric": "odd"}

HEAD_CHARS = {">": "arrow", "o": "circle", "x": "cross"}
TAIL_CHARS = {"<": "arrow", "o": "circle", "x": "cross"}

# A complete link token, e.g. ``-->``, ``<==>``, ``o-.-o``, ``---->``, ``~~~``. The groups are
# (tail, body, head) per stroke. Mermaid's lexer: LINK / THICK_LINK / DOTTED_LINK.
LINK_RE = re.compile(
    r"(?P<nt>[xo<]?)(?P<n>-{2,})(?P<nh>[-xo>])"
    r"|(?P<tt>[xo<]?)(?P<t>={2,})(?P<th>[=xo>])"
    r"|(?P<dt>[xo<]?)-?(?P<d>\.+)-(?P<dh>[xo>]?)"
    r"|(?P<i>~{3,})"
)
# The start of a link whose text sits inside it: ``-- text -->``, ``== text ==>``, ``-. text .->``.
LINK_START_RE = re.compile(r"(?P<tail>[xo<]?)(?P<kind>--|==|-\.)(?![-=.>])")
LINK_END_RE = {
    "--": re.compile(r"(?P<body>-{2,})(?P<head>[-xo>])"),
    "==": re.compile(r"(?P<body>={2,})(?P<head>[=xo>])"),
    # a body starts only at the start of a run of dots: trying each dot of a long run is quadratic
    "-.": re.compile(r"(?<!\.)(?P<body>\.+)-(?P<head>[xo>]?)"),
}

# Mermaid's own ``#quot;`` entities and HTML's ``&quot;`` / ``&#39;`` (labels are rendered as
# HTML, so the picture shows the decoded character); one pass decodes both without rescanning.
_ENTITY_RE = re.compile(r"#(\w+);|&(#\d+|#[xX][0-9a-fA-F]+|[A-Za-z]\w*);")
_BR_RE = re.compile(r"<br\s*/?>", re.I)


def link_token(stroke: str, head: str, tail: str, length: int) -> str:
    """The Mermaid spelling of a link, e.g. ``link_token("dotted", "arrow", "none", 1) == "-.->"``."""
    length = max(1, int(length))
    hc = {"arrow": ">", "circle": "o", "cross": "x"}
    tc = {"arrow": "<", "circle": "o", "cross": "x", "none": ""}[tail]
    if stroke == "invisible":
        return "~" * (length + 2)
    if stroke == "dotted":
        return f"{tc}-{'.' * length}-{hc.get(head, '')}"
    ch = "=" if stroke == "thick" else "-"
    return f"{tc}{ch * (length + 1)}{hc.get(head, ch)}"


def decode_entity(name: str) -> str | None:
    """Mermaid's ``#name;`` / ``#123;`` entity -> its character(s); ``None`` if unknown."""
    # ASCII digits only: ``str.isdigit`` also accepts "²" and "٣", which ``int`` rejects or reads
    # differently, and a code point has at most 7 significant digits (``int`` refuses more than
    # 4300, and would be slow on them anyway).
    if name.isascii() and name.isdigit():
        digits = name.lstrip("0") or "0"
        code = int(digits) if len(digits) <= 7 else -1
        return chr(code) if 0 <= code < 0x110000 and not 0xD800 <= code < 0xE000 else None
    if name[:1] in "xX" and len(name) > 1:
        digits = name[1:].lstrip("0") or "0"
        if not (digits.isascii() and len(digits) <= 6 and all(c in string.hexdigits for c in digits)):
            return None
        code = int(digits, 16)
        return chr(code) if 0 <= code < 0x110000 and not 0xD800 <= code < 0xE000 else None
    out = html.unescape(f"&{name};")
    return None if out == f"&{name};" else out


def decode_text(raw: str) -> str:
    """Label source text -> node text: ``<br>`` becomes a newline, Mermaid (``#quot;``) and HTML
    (``&amp;``, ``&#39;``) entities are decoded, unknown ones kept as written."""
    text = _BR_RE.sub("\n", raw)

    def sub(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        dec = decode_entity(name[1:] if name.startswith("#") else name)
        return m.group(0) if dec is None else dec

    return _ENTITY_RE.sub(sub, text)


def encode_text(text: str, *, pipe: bool = False) -> str:
    """Node or edge text -> the inside of a Mermaid ``"..."`` string that decodes back to it.

    Escapes exactly what would otherwise change meaning: ``"``, the first character of anything
    that would read as an entity (``#quot;``, ``&amp;``, ``&#39;``), a literal ``<br>``,
    control characters, a leading backtick (markdown string), and ``|`` when the text goes
    between pipes. Newlines become ``<br>``. Checked against Mermaid 11's own parser by
    ``tests/core/test_mermaid_vs_mermaidjs.py``.
    """
    out: list[str] = []

    def put_entity(ent: str) -> None:
        # "&" + "#1;" would itself read as an HTML entity; escaping that "&" inserts another
        # "#38;", so a run of "&" before it is escaped as a whole
        k = len(out) - 1
        while k >= 0 and out[k] == "&":
            out[k] = "#38;"
            k -= 1
        out.append(ent)

    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if (c == "#" or c == "&") and _ENTITY_RE.match(text, i):
            put_entity("#35;" if c == "#" else "#38;")
        elif c == "<" and _BR_RE.match(text, i):
            put_entity("#lt;")
        elif c == '"':
            put_entity("#quot;")
        elif c == "|" and pipe:
            put_entity("#124;")
        elif c == "\n":
            out.append("<br>")
        elif ord(c) < 32 or c == "\x7f":
            put_entity(f"#{ord(c)};")
        elif c == "`" and i == 0:
            put_entity("#96;")
        else:
            out.append(c)
        i += 1
    enc = "".join(out)
    # Mermaid rejects an empty string (``A[""]``), so "" is written as " " and read back as "";
    # a text of only spaces is then written with entities to stay distinct.
    if not enc:
        return " "
    if not enc.strip(" "):
        return "#32;" * len(enc)
    return enc


def decode_quoted(raw: str) -> str:
    """The inside of a quoted label -> text; blank (only spaces) reads as "" (see `encode_text`)."""
    return "" if not raw.strip(" ") else decode_text(raw)


#: Statement keywords whose whole statement is styling/interaction: accepted, ignored for the graph.
IGNORED_KEYWORDS = ("classDef", "class", "style", "linkStyle", "click", "accTitle", "accDescr")
