"""`OfflineReasoner`: rule-based attribution over the graph, no LLM, no downloads.

Steps for one (question, answer) statement:

1. recognise the question type from its wording (`classify_question`): fact retrieval,
   applied scenario, flow referential or topological;
2. match the question and the answer to node texts (`flowpath.reason.text`): IDF-weighted
   light-stemmed token overlap blended with rapidfuzz;
3. use the graph: topological questions are answered structurally (the quoted nodes, the
   shortest path between them, the max-degree node); the others pick an answer node and the
   question's anchor nodes and join them with the cheapest directed path, where a node's cost
   falls with its relevance to the statement and a branch edge is cheaper when the statement
   takes it ("if not ..." prefers the ``no`` edge). The result is the minimal connected set of
   nodes that grounds the statement.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from flowpath.graph import FlowChart
from flowpath.models.base import Reasoner, Reasoning, ReasoningRequest
from flowpath.reason.kinds import (
    branches,
    is_program_chart,
    is_titled_start,
    mend_lost_connectors,
    node_kind,
    read_code_kinds,
    read_entities,
    split_merged_loops,
    turn_reversed_connectors,
    unread_branches,
)
from flowpath.reason.text import (
    NEGATIONS,
    NodeIndex,
    SemanticBlend,
    TextEncoder,
    best_quoted_match,
    tokens,
)

if TYPE_CHECKING:
    from flowpath.reason.scorer import NodeScorer

QUESTION_TYPES = ("fact_retrieval", "applied_scenario", "flow_referential", "topological")

_TOPO = re.compile(
    r"direct(ly)?\s+(successor|predecessor)|shortest path|how many edges|in-?degree|out-?degree|"
    r"how many (nodes|decision nodes|decisions|terminal)|how many decision points (are there|does|in)|number of (nodes|edges)|total number of", re.I)
_FLOW = re.compile(
    r"\b(currently|current step|i am at|i'm at|i'm currently|i am currently|at the step|just (finished|completed|decided|done)|"
    r"immediately (after|before|prior|following|preceding)|immediate(ly)? next|next (immediate )?(step|task|action|question)|"
    r"(next|following) (two|three|four|2|3|4) (steps|actions|tasks|operations)|"
    r"previous|prior to|right before|directly before|step (taken|completed) before|"
    r"series of|sequence of|how many steps|how many (conditional|decision)|starting from|upon (reaching|deciding|completing)|"
    r"what (steps|path)|must have|would have|zeroeth|second step|first step|led me here|leads? to)\b", re.I)
# the actor of a story: a name ("Chen is", "Chen, a data analyst, is": FlowVQA's persona
# stories), a title, or a role opening a sentence ("An applicant has", "The customer wants"); a
# capitalised wh-word or pronoun is no actor ("What was the previous step?" closes a flow
# question)
_SCENARIO_PERSON = re.compile(r"(\b(?!(?:What|Which|Where|When|Who|How|Why|That|This|It|There)\b)[A-Z][a-z]{2,}(?:,\s+(?:a|an|the|our|my)\s+[A-Za-z][A-Za-z -]{2,40},)?|\bDr\.\s+[A-Z][a-z]+|(?:^|(?<=[.!?]\s))(?:A|An|The|Our|My)\s+[a-z]+)\s+"
                              r"(is|has|wants|was|recently|decided|needs|notices|encounters|received|starts|begins|inputs|attempted|finds|realized|recalls|"
                              r"runs|calls|traces|steps|executes|tests)\b")
# how people ask about the flow of a program ("after x is set, what is checked next?", "where
# does the program go next when x is negative?", "once the loop over items is done, what runs?"):
# the step-to-step wording of code questions (codereason11_val: 167 of 300 such flow questions
# were read as fact questions)
_CODE_FLOW = re.compile(
    r"\b((is|gets|are) (checked|tested|evaluated|run|executed) next|which condition is (tested|checked|evaluated)|"
    r"(go|goes|jump|jumps|continue|continues) next|what runs next|(happens|comes|runs) (right|just) (after|before)|"
    r"where does the loop go|"
    r"loop (over .{1,60}? )?(ends|is done|finishes|is over|stops|exits))\b", re.I)
_WALK = re.compile(r"\b(how many (steps|operations|actions|nodes|decisions?|decision points|conditional|conditions|choices|checks)|series of|sequence of|from .{1,80}? to |starting from|all the steps|path)\b", re.I)
# a walk's two ends: "from <X> to <Y>", "starting from <X>, ... brings me to <Y>"
_WALK_FROM = re.compile(r"\bfrom\s+", re.I)
_WALK_SPLIT = re.compile(r"\s+(?:to|until)\s+|,\s*", re.I)
# "what are the next two steps": a walk of that many steps downstream of the current one
_NEXT_N = re.compile(r"\b(?:next|following) (two|three|four|2|3|4) (?:steps|actions|tasks|operations|nodes)\b", re.I)
_COUNT_WORDS = {"two": 2, "three": 3, "four": 4, "2": 2, "3": 3, "4": 4}
_ASKS_DECISION = re.compile(r"\b(decision|check|condition)s?\b", re.I)
# "what decision led to that step?" asks for the check before a step; "once x is set, which
# condition is tested?" asks for the one after it (codeword12_val)
_LEADING_DECISION = re.compile(r"\b(?:decision|check|condition)s?\b[^?]*\b(?:led|leads?|sends?|decided?|decides)\b", re.I)


def _asks_leading_decision(question: str) -> bool:
    """Whether a flow question about a program step also asks which check led to it."""
    return _LEADING_DECISION.search(question) is not None


_DECISION_LEAD = re.compile(r"\b(which|what) (decision|check|condition|question)s?\b[^?]{0,80}?\b(before|leads?|led|sends?)\b", re.I)
# a story that says the person chose a step ("Sophia opts for an online calculator") settles the
# check that step is a branch of (FlowExplainBench's applied-scenario figure, docs/reasoning.md)
_CHOICE_CUE = re.compile(r"\b(opts?|opted|decides?|decided|chooses?|chose|picks?|picked|goes with|went with|elects?|elected)\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_START_CUE = re.compile(r"\b(?:start|starts|starting|begin|begins|beginning|first)\b", re.I)
# an answer naming two steps in turn ("... and then put it together", "..., then sand it")
_THEN = re.compile(r",?\s+(?:and\s+)?then\s+", re.I)
_CONDITION_CUE = re.compile(r"\b(if|when|unless|whether|condition|otherwise|in case)\b", re.I)
_NEXT_CUE = re.compile(r"\b(next|after|afterwards|following|then|subsequent|leads? to|follows)\b", re.I)
_PREV_CUE = re.compile(r"\b(before|prior|previous|preceding|precede|earlier|must have)\b", re.I)
# how-to questions about one neighbour of a step: "what should you do after you flush it?", "what
# should be done before you sand the edges?" ask about the sequence (flow referential, gold: the
# step and the neighbour; docs/reasoning.md "Gold conventions"); howflow12_val read 51 of 125 as
# fact questions. fact9's "what is done after you X" / "what do you do just before you X" stay
# fact questions: that generator labels them with the neighbour alone
_NEIGHBOUR_STEP_ASK = re.compile(r"\bwhat should (?:you|i|we|one) do (?:right |just |immediately )?(?:after|before)\b|"
                                 r"\bwhat should be done (?:right |just |immediately )?(?:after|before)\b", re.I)
# the step a one-neighbour question names and the direction it looks: "once you X, what is the
# next step?" (after: `_LEADING_PLACE` then `_NEXT_ASK`), "what comes right after the step to
# X?", "which step comes just before you X?"; the step ends before a second question (", and
# what decision led to it?"), not at a comma inside code ("f(a, b)")
_NEXT_ASK = re.compile(r"(?:what|which)\b[^?]*?\b(?:next|after|follows?)\b", re.I)
_NEIGHBOUR_TAIL = re.compile(r"^\s*(?:what|which)\b[^?]{0,60}?\b(?:right |just |immediately |directly )?"
                             r"(?P<dir>after|before|following|preceding|prior to) (?:(?:you|i|we)(?: have)? |"
                             r"the step (?:to|of|where you) )?(?P<x>(?:(?!,\s*(?:and|what|which|with)\b)[^?]){3,160})\?\s*$",
                             re.I)
# a story sentence saying the person has just done a step ("He just soaked the shirt.", "Aisha
# noted regular costs a moment ago."): "what next" then asks for that step's successor
# ("just" before a present-tense verb or a number is "only": "the jam just runs across the plate";
# "just before this, Priya managed to ..." places a step upstream, scen9_val; "has just turned 19"
# is an age, scen9_val, and "arrived just last week" a time, howscen13_val)
_JUST_DONE = re.compile(r"\bjust (?!\d)(?!\w+s\b)(?!turned \d)"
                        r"(?!(?:before|after|then|now|like|about|under|over|in|at|on|to|the|a|an|last)\b)(?=\w)|"
                        r"\ba moment ago\b", re.I)
# a story that asks what its person should do ("He just started the first row. What should Raj do
# next?", "What does the flowchart suggest Maria should do?") is an applied scenario however short
# (howflow12_val: 16 how-to "what next" stories of three short sentences were read as facts)
_PERSON_ASK = re.compile(r"\b[Ww]hat (?:should|does|would|must) (?:[A-Z][a-z]+|he|she|they) (?:do|try)\b|"
                         r"\b(?:[A-Z][a-z]+|he|she|they) should do\b")
_QUOTED = [re.compile(r'""(.+?)""(?=[\s?.,]|$)'), re.compile(r'"([^"]{2,}?)"'), re.compile(r"[“”]([^“”]{2,}?)[“”]")]


def classify_question(question: str, answer: str = "") -> str:
    """Recognise the benchmark question type from the wording alone.

    Args:
        question: the question text.
        answer: the answer text (unused today; kept so a better classifier can use it).

    Returns:
        One of `QUESTION_TYPES`.

    >>> classify_question('How many edges exist in the shortest path between "A" and "B"?')
    'topological'
    """
    q = question.strip()
    if _TOPO.search(q):
        return "topological"
    sentences = _sentences(q)
    words = len(q.split())
    # Applied scenarios tell a story about a person and then ask what to do: several sentences.
    if (len(sentences) >= 3 and words >= 28) or (_SCENARIO_PERSON.search(q) and len(sentences) >= 2):
        return "applied_scenario"
    if len(sentences) >= 2 and _PERSON_ASK.search(q):
        return "applied_scenario"
    if _FLOW.search(q) or _CODE_FLOW.search(q) or _NEIGHBOUR_STEP_ASK.search(q):
        return "flow_referential"
    # compound questions ("what is X, and what follows") walk the flow
    if re.search(r",\s*and (what|which|with what)\b|\band what (is|was|would|will)\b", q, re.I):
        return "flow_referential"
    # FlowVQA's flow questions walk a subgraph around a decision backwards as well as forwards:
    # "which check has to be passed before X" asks for the step before X
    if _DECISION_LEAD.search(q):
        return "flow_referential"
    return "fact_retrieval"


def quoted_names(question: str) -> list[str]:
    """Node names quoted in a question, in order (``""Start""``, ``"Start"`` or curly quotes)."""
    for pat in _QUOTED:
        found = [m.strip() for m in pat.findall(question) if m.strip()]
        if found:
            return found
    return []


class _ChartContext:
    """Per-chart precomputation shared by all questions about one chart."""

    def __init__(self, chart: FlowChart, encoder: TextEncoder | None = None,
                 blend: SemanticBlend | None = None, statement: list[str] | None = None) -> None:
        # read the chart with the connectors a transcriber most likely lost put back and the
        # HTML entities a renderer printed as text decoded, connectors read backwards turned,
        # a check's loop back merged into its forward connector split out, a program's variable
        # named like a terminal ("start = i") read as code (the chart itself when it is whole)
        chart = split_merged_loops(mend_lost_connectors(turn_reversed_connectors(read_entities(read_code_kinds(chart)))))
        self.chart = chart
        # a program's chart: an LLM's words around plain names in its checks are code (codeword12)
        from flowpath.reason.branches import READ_LLM_WORDS

        self.program = READ_LLM_WORDS.get() and is_program_chart(chart)
        items = [(n.id, n.text or n.id) for n in chart]
        self.index = NodeIndex.build(items, encoder=encoder, blend=blend)
        # embedded with the nodes, when a similarity is first needed: one forward pass
        self.index.expect(statement or [])
        self.g = chart.to_networkx()
        self.ug = self.g.to_undirected(as_view=True)
        # position along the flow: hop distance from the start node(s); used to order anchors
        import networkx as nx

        starts = [n for n in chart.nodes if chart.nodes[n].kind == "start"] or chart.sources() or list(chart.nodes)[:1]
        self.depth: dict[str, int] = {}
        if starts:
            for s in starts:
                for nid, d in nx.single_source_shortest_path_length(self.g, s).items():
                    if d < self.depth.get(nid, 10**9):
                        self.depth[nid] = d
        order = list(chart.nodes)
        for i, nid in enumerate(order):
            self.depth.setdefault(nid, len(order) + i)
        self.starts = starts


class OfflineReasoner(Reasoner):
    """Rule-based, question-type-aware attribution; the default when no LLM is configured.

    Args:
        max_gap: the longest detour (in edges) allowed when joining two anchor nodes; anchors
            further apart are returned without the nodes between them.
        anchor_threshold: how strongly a node must be mentioned by the question (share of its
            IDF-weighted words present) to count as an anchor.
        semantic: blend sentence-embedding similarity into the matching (the ``semantic``
            extra). ``None`` uses it when installed and matches lexically otherwise; ``True``
            requires it; ``False`` never loads it.
        encoder: an explicit text encoder (any object with ``encode(list[str])`` returning
            unit vectors) instead of the packaged one; implies ``semantic``.
        blend: how similarity joins the lexical score (`SemanticBlend`).
        learned: let the learned node scorer (`flowpath.reason.scorer`, shipped weights)
            re-decide the rules' node set for fact, scenario and flow questions; it applies
            only with semantic matching on (its cues include embedding similarity). Off by
            default: trained on generated QA it gains there but loses on the benchmark's dev
            slice (figures in the scorer's model card).
        scorer: explicit scorer weights instead of the shipped ones (implies ``learned``).

    >>> from flowpath.graph import FlowChart
    >>> fc = FlowChart.from_edges([("A", "B"), ("B", "C")], {"A": "Start", "B": "Boil water", "C": "End"})
    >>> OfflineReasoner()(ReasoningRequest(fc, "What is done first?", "Boil the water")).node_ids
    ['B']
    """

    name = "offline"

    def __init__(self, *, max_gap: int = 6, anchor_threshold: float = 0.5, semantic: bool | None = None,
                 encoder: TextEncoder | None = None, blend: SemanticBlend | None = None,
                 learned: bool = False, scorer: NodeScorer | None = None) -> None:
        if max_gap < 1:
            raise ValueError(f"max_gap must be >= 1, got {max_gap}")
        if not 0.0 < anchor_threshold <= 1.0:
            raise ValueError(f"anchor_threshold must be in (0, 1], got {anchor_threshold}")
        self.max_gap = max_gap
        self.anchor_threshold = anchor_threshold
        # scenario stories mention earlier steps loosely: a lower bar for upstream mentions,
        # a higher one for reaching further back (set on generated QA, data_gen/qa.py)
        self.scenario_threshold = min(anchor_threshold, 0.34)
        self.scenario_far_threshold = 0.5
        # how strongly a story must mention a decision to settle it (generated QA, --hard)
        self.settle_threshold = 0.5
        self.fact_branch_boost = 0.2
        # fact answers (generated QA, reasonfact4_val): an answer whose best node covers less
        # than this much of it names nothing; nodes this close to the best one tie (kept below
        # fact_branch_boost, so a step on a settled branch is never tied away)
        self.fact_answer_floor = 0.3
        self.fact_tie_margin = 0.15
        # how much of a decision a conditional clause of a fact statement must name for the
        # decision to join the answer (generated QA, fact9_val with reason6_code_val: code checks
        # share few words with "x is negative"); None: the earlier rule (any
        # condition cue, and a lone decision before the answer sharing a word with the question)
        self.fact_condition_threshold: float | None = 0.15
        # a fact question settles a numeric check by giving its quantity a number, and among
        # near-tied answer nodes the step on the branch it takes wins (generated QA, fact9_val)
        self.fact_quantity = True
        self.fact_condition_over_answer = True
        self.fact_prefer_taken = True
        # an embedded question ("how do you find out whether the glue is dry?", "which step lets
        # you see if ...") asks about a check without settling it, and a numeric check named
        # without a value ("when is the credit score noted?") is not settled either (generated
        # QA, fact10_val); False: the earlier reading (any restatement settles)
        self.fact_embedded_questions = True
        # a fact answer's closing clause that places the step ("..., right after you rinse the
        # jar") names a neighbour, not the answer (generated QA, fact10_val)
        self.fact_trailing_context = True
        # a fact question's opening setting clause ("Once you rinse the jar, ...") names a
        # neighbour of the answer, not the answer (generated QA, fact10_val)
        self.fact_question_context = True
        # among near-tied fact answer nodes, the weight of the share of the question's words
        # (lexical) a node holds, beside the embedding likeness (generated QA, fact10_val)
        self.fact_tie_question_words = 1.0
        # how much weaker an answer match after the story's settled branches may be and still
        # win over one elsewhere (generated QA, data_gen.qa --hard, validation seed)
        self.scenario_after_margin = 0.1
        # how close (answer match) a nearer step after the story's last settled check must come
        # to the best match to be taken as the "next" step (generated QA, scen8_val)
        self.scenario_next_margin = 0.1
        # how close to the best-named step a step a labelled branch leads to must come to be the
        # one a story's choice ("opts to ...") names (generated QA, scen8_val)
        self.scenario_choice_margin = 0.2
        # how much less like the answer (raw embedding cosine) a step sharing its object may be
        # and still count as the step a reworded answer names (generated QA, scen9_val)
        self.scenario_verb_margin: float | None = 0.02
        # how like a numeric check (raw embedding cosine) the clause of a number that names no
        # check's quantity must be to settle it (generated QA, scen9_val)
        self.scenario_quantity_likeness: float | None = 0.25
        # how strongly a story sentence after the opening must name a step (no choice word: "so
        # she moves on to sand the board") for it to settle the check whose branch leads there
        # (off: on scen9_val 0.5 / 0.7 gave +1.1 / +1.2 F1, but it cost the code stories of
        # scen9_code6_val 0.55); None: only choices settle checks this way
        self.scenario_action_threshold: float | None = None
        # read a story's checks with `branches.read_check`: opposites ("the file is missing"),
        # negation scope, bounds ("more than 3,000") and level words ("her score is low"), each
        # of which also counts as naming the check (generated QA, scen10_val); False: main's
        # `branch_taken`
        self.scenario_opposites = True
        # a check written as code ("not caps?", "k < 0?", "rmode is None?") is settled by the
        # values a statement gives its operands (`branches.code_branch`), and only by them: a
        # variable named without a value settles nothing (generated QA, codereason11_val);
        # False: read like any check
        self.code_checks = True
        # a story's check written as code that no value settles is still settled by an
        # opposite, a bound or a level word ("nums is a long list" for "Len(nums) < 5?",
        # scen10_val), never by a restatement of its variable names ("rmode is None" for
        # "Input rmode"); False: nothing but values settles it (codereason11_val scenario 94.06 / 94.11;
        # scen10_val below)
        self.code_checks_words = True
        # programs worded as an LLM words code (codeword12_val): checks in its words read as code
        # (`branches.llm_worded_as_code`, plain names too on a program chart), names in words,
        # listed items, try/except checks, steps named by a paraphrase of their action
        # (`branches.step_named_in_words`), "which condition is tested" asking what follows;
        # False: the eleventh stretch's code reading (febench_dev: one answer differs, below)
        self.code_words = True
        # the path (generated QA, scen10_val): every settled check on the way to the answer is an
        # anchor of the walk, and with a settled check the walk's anchors are joined up to this
        # many edges apart (None: ``max_gap``)
        self.scenario_settled_anchors = True
        self.scenario_walk_gap: int | None = None
        # steps only the branches a story did not take lead to are neither its situation nor its
        # answer when another step past its settled checks states the answer about as well
        # (generated QA, scen10_val)
        self.scenario_avoid_untaken = True
        # how-to stories settle checks in everyday words no rule reads ("the spare bulges at the
        # bottom" for "Does the spare look underinflated?"): a story sentence after the opening
        # whose nearest node (raw embedding cosine, at least this) is a check upstream of the
        # answer settles it on the one branch leading on to the answer (generated QA,
        # howto11_val); None: off
        self.scenario_check_by_meaning: float | None = 0.2
        # a fact question's "if"/"when" clause said in everyday words ("if the frame stands rock
        # solid") names the check before the answer step when that check is the clause's nearest
        # node (raw embedding cosine, at least this) and its labelled branch leads to the answer
        # (generated QA, howto11_val); None: off
        self.fact_condition_by_meaning: float | None = 0.2
        # how near (rank among all nodes by raw cosine) the clause must lie to the check for that
        # rule, when it lies nearer the check than the answer step (generated QA,
        # factform12_val); 1: the check must be the clause's nearest node
        self.fact_condition_rank = 3
        # "what is the final step if ...": a check the clause settles by meaning joins the end the
        # question asks for when its branch leads there through plain steps (generated QA,
        # factform12_val)
        self.fact_condition_before_end = True
        # "Does the flowchart tell you to assemble the box?" asks whether a step is there: no
        # check is its answer unless the question speaks of checking (generated QA,
        # factform12_val: a paraphrase of a step lies near the check after it as often as not)
        self.fact_yesno_step_not_check = True
        # a scenario answer naming two steps in turn ("... and then ...") ends at the later
        # (generated QA, howto11_val); False: off
        self.scenario_step_answers = True
        # a titled Start node is no fact answer unless the question speaks of starting
        # (generated QA, howto11_val)
        self.fact_no_titled_start = True
        # a fact question that settles a check and asks what to do is answered by the step on
        # the branch it takes, also when the answer's own words name no node (generated QA,
        # howto11_val)
        self.fact_taken_step_over_check = True
        # a "what next" story naming nothing upstream stands at the answer's one predecessor
        # step when it has just one (generated QA, howto11_val)
        self.scenario_lone_predecessor = True
        # a fact question asking what the chart offers at a check without taking a branch ("what
        # are the options depending on whether the dough is sticky?") is grounded by the check
        # and its branch steps (generated QA, factform12_val)
        self.fact_options_at_check = True
        # a fact question asking for a step placed by another ("what do you do once you rinse the
        # jar?") asks about the sequence: the step it names joins the answer, as in flow
        # referential questions (docs/reasoning.md "Gold conventions"; generated QA,
        # factform12_val); how strongly (blended) the placing clause must name that neighbour
        self.fact_sequence_anchor: float | None = 0.15
        # "what is the first thing to do?" asks for the step right after Start: how much that
        # step's answer score is raised (generated QA, factform12_val); None: off
        self.fact_first_step_boost: float | None = 1.0
        # a question about what a named tool / ingredient / document is for, or which step uses
        # it: the weight of the share of that thing's words a node holds, added to its answer
        # score (generated QA, factform12_val); 0: off
        self.fact_thing_weight = 1.0
        # a flow question about one neighbour of a step it names in other words ("once you
        # escalate the complaint, what is the next step?") is grounded by the connected pair
        # (step, neighbour) that the named step and the answer fit best together (generated QA,
        # howflow12_val); False: the anchors of `_flow`
        self.flow_neighbour_pairs = True
        # a "what next" story that says the person has just done a step and settles no check is
        # grounded by that step and the successor the answer names, read as a pair like
        # `flow_neighbour_pairs` (generated QA, howflow12_val); False: `_scenario`'s anchors
        self.scenario_just_done_pairs = True
        # what a story says the person has just done is a step, not a check ("He just decorated
        # the outside" is the painting step, not "Do you want to paint the outside?"): the pair's
        # first node is never a check (generated QA, howscen13_val); False: any node
        self.scenario_done_step_not_check = True
        # an answer upstream of the story's first settled check that the check's taken branch
        # loops back to is reached round the loop: the walk runs check -> taken branch -> answer
        # (docs/reasoning.md "Gold conventions"; generated QA, howscen13_val); False: the anchors
        # are joined in depth order (answer -> check)
        self.scenario_answer_up_loop = True
        # a story's opening sentence names the task; a check only it restates, or says a level
        # word for, is not settled ("Daniel is training a puppy to sit" for "Does the puppy sit
        # down?", "caring for a cold" for "Is your temperature above 38 degrees?"); a number there
        # still settles its check (generated QA, howscen13_val); False: the whole story reads
        self.scenario_opening_sets_scene = True
        # how-to stories say the step done just before the first settled check in words of their
        # own ("he already got the car somewhere safe" for "Pull over onto flat, firm ground"): a
        # sentence after the opening whose nearest node (raw embedding cosine, at least this) is
        # a step leading into that check names it (generated QA; 0.2/0.3/0.4 gave howflow12_val
        # scenarios 83.62/83.17/82.31, scen9_val 93.02/93.15/93.00, scen10_val 94.33/94.60/94.42,
        # whose scenery sentences lie near short step texts; None: off
        self.scenario_done_by_meaning: float | None = 0.3
        # with no check read, such a step upstream of the answer starts the walk (generated QA,
        # howflow12_val); False: off
        self.scenario_situation_by_meaning = True
        self._cache: tuple[FlowChart, dict[str, Any], _ChartContext] | None = None
        self.semantic = True if encoder is not None else semantic
        self.blend = blend or SemanticBlend()
        self._encoder = encoder
        self.learned = True if scorer is not None else learned
        self._scorer = scorer
        if self.semantic:  # asked for explicitly: fail now, naming the extra, not mid-batch
            self._text_encoder()

    def _text_encoder(self) -> TextEncoder | None:
        if self._encoder is None and self.semantic is not False:
            from flowpath.reason.semantic import EXTRA_HINT, shared_encoder

            self._encoder = shared_encoder()
            if self._encoder is None:
                if self.semantic:
                    from flowpath.errors import MissingDependencyError

                    raise MissingDependencyError(f"semantic matching is not installed: {EXTRA_HINT}")
                self.semantic = False  # auto and missing: lexical matching from now on
        return self._encoder

    # -- public --------------------------------------------------------------------------------
    def __call__(self, request: ReasoningRequest) -> Reasoning:
        chart = request.chart
        if not isinstance(chart, FlowChart):
            return Reasoning([], error=f"request.chart must be a FlowChart, got {type(chart).__name__}")
        if len(chart) == 0:
            return Reasoning([], reason="the chart has no nodes", error="empty chart")
        from flowpath.reason.branches import READ_LLM_WORDS

        words = READ_LLM_WORDS.set(self.code_words)
        try:
            question, answer = request.question or "", request.answer or ""
            qtype = classify_question(question, answer)
            ctx = self._context(chart, question, answer, qtype)
            ids, why = self._rules(ctx, qtype, question, answer)
            scorer = self._node_scorer(ctx)
            if scorer is not None and qtype in scorer.models and ids:
                from flowpath.reason.scorer import node_features

                cands, x = node_features(ctx, ids, self._cues(ctx, question, answer))
                chosen = scorer.select(qtype, cands, x)
                if chosen is not None and set(chosen) != set(ids):
                    ids, why = chosen, why + "; the learned node scorer re-decided the set"
            if not ids:  # never return nothing when the chart has nodes: best overall match
                ids, why = [self._best_overall(ctx, request.question or "", request.answer or "")], "fallback: best text match"
            trace: list[dict[str, Any]] = [{"step": "classify", "type": qtype}, {"step": "select", "node_ids": ids}]
            return Reasoning(ids, reason=f"[{qtype}] {why}", trace=trace)
        except Exception as exc:  # per-question failure is reported, never raised
            return Reasoning([], error=f"offline reasoner failed: {type(exc).__name__}: {exc}")
        finally:
            READ_LLM_WORDS.reset(words)

    def features(self, request: ReasoningRequest) -> tuple[str, list[str], list[str], Any]:
        """What the learned node scorer sees for one statement: ``(question type, the rules'
        node ids, candidate ids, cue matrix)`` (``training/train_node_scorer.py`` learns from
        these). Needs semantic matching, as the scorer does."""
        from flowpath.reason.scorer import node_features

        if self._text_encoder() is None:
            from flowpath.errors import MissingDependencyError
            from flowpath.reason.semantic import EXTRA_HINT

            raise MissingDependencyError(f"node-scorer cues need semantic matching: {EXTRA_HINT}")
        question, answer = request.question or "", request.answer or ""
        qtype = classify_question(question, answer)
        ctx = self._context(request.chart, question, answer, qtype)
        ids, _ = self._rules(ctx, qtype, question, answer)
        cands, x = node_features(ctx, ids, self._cues(ctx, question, answer))
        return qtype, ids, cands, x

    # -- shared helpers -----------------------------------------------------------------------
    def _rules(self, ctx: _ChartContext, qtype: str, question: str, answer: str) -> tuple[list[str], str]:
        handler = {"topological": self._topological, "fact_retrieval": self._fact,
                   "applied_scenario": self._scenario, "flow_referential": self._flow}[qtype]
        ids, why = handler(ctx, question, answer)
        return [i for i in dict.fromkeys(ids) if i in ctx.chart.nodes], why

    def _node_scorer(self, ctx: _ChartContext) -> NodeScorer | None:
        """The learned scorer when it applies: asked for, and the chart's index has
        embeddings (its cues include them)."""
        if not self.learned or ctx.index.encoder is None:
            return None
        if self._scorer is None:
            from flowpath.reason.scorer import WEIGHTS, NodeScorer

            if not WEIGHTS.is_file():  # a checkout without trained weights: the rules alone
                self.learned = False
                return None
            self._scorer = NodeScorer.load()
        return self._scorer

    def _cues(self, ctx: _ChartContext, question: str, answer: str) -> dict[str, Any]:
        """The statement's matches against every node, shared by the scorer's features."""
        from flowpath.reason.branches import branch_taken

        s = self._answer_scores(ctx, question, answer)
        q = ctx.index.scores(question)
        a = ctx.index.scores(answer) if answer.strip() else {n: (0.0, 0.0) for n in ctx.index.ids}
        story = _story(question)
        st = ctx.index.scores(story) if story != question else q
        best = max(ctx.index.ids, key=lambda n: (s[n], -ctx.depth.get(n, 0)))
        settled: set[str] = set()
        taken: set[str] = set()
        for d in ctx.index.ids:
            if q[d][0] >= self.settle_threshold and node_kind(ctx.chart, d) == "decision":
                branch = branch_taken(ctx.chart.nodes[d].text or "", question)
                if branch is not None:
                    settled.add(d)
                    taken.update(e.target for e, c in branches(ctx.chart, d) if c == branch)
        return {"answer": s, "question": q, "answer_cov": a, "story": st, "best": best,
                "sem_q": ctx.index.similarity(question), "sem_a": ctx.index.similarity(answer),
                "settled": settled, "taken": taken}

    def _context(self, chart: FlowChart, question: str, answer: str, qtype: str) -> _ChartContext:
        """The chart's index, with the statement's texts embedded up front: the rules ask for
        them one at a time, and one forward pass for all of them costs about as much as one
        (``qtype``, the question's type, says which texts its rules match)."""
        extra = (_scenario_texts(question) if qtype == "applied_scenario"
                 else _fact_texts(question, answer) if qtype == "fact_retrieval" else [])
        statement = [t for t in dict.fromkeys((question, answer, _story(question), *extra)) if t.strip()]
        # many questions share a chart: keep the last chart's index while that chart object
        # holds the same content (compared by value, so an edit in place cannot go unseen)
        content = chart.to_dict()
        if self._cache is not None and self._cache[0] is chart and self._cache[1] == content:
            ctx = self._cache[2]
            ctx.index.expect(statement)
            return ctx
        ctx = _ChartContext(chart, self._text_encoder(), self.blend, statement)
        self._cache = (chart, content, ctx)
        return ctx

    @staticmethod
    def _answer_scores(ctx: _ChartContext, question: str, answer: str) -> dict[str, float]:
        """How well each node states the answer; the question adds a little context."""
        a = ctx.index.scores(answer) if answer.strip() else {}
        q = ctx.index.scores(question)
        has_answer = bool(a) and any(v[1] > 0 for v in a.values())
        out = {}
        for nid in ctx.index.ids:
            qn, qt = q[nid]
            if has_answer:
                an, at = a[nid]
                out[nid] = 0.55 * at + 0.35 * an + 0.15 * qn
            else:
                out[nid] = qn
        return out

    @staticmethod
    def _question_scores(ctx: _ChartContext, question: str) -> dict[str, float]:
        return {nid: v[0] for nid, v in ctx.index.scores(question).items()}

    def _best_overall(self, ctx: _ChartContext, question: str, answer: str) -> str:
        s = self._answer_scores(ctx, question, answer)
        return max(ctx.index.ids, key=lambda n: (s[n], -ctx.depth.get(n, 0)))

    def _path(self, ctx: _ChartContext, u: str, v: str, relevance: dict[str, float],
              statement: str, *, max_gap: int | None = None,
              taken: dict[str, str] | None = None) -> list[str] | None:
        """Cheapest directed path u -> v (nodes relevant to the statement and branches it
        takes are cheaper; at a decision in ``taken`` the other branches are avoided);
        ``None`` when there is none within ``max_gap`` edges."""
        import networkx as nx

        if u == v:
            return [u]
        negated = bool(set(re.findall(r"[a-z]+", statement.lower())) & NEGATIONS)
        stoks = set(tokens(statement))
        chart = ctx.chart

        def cost(a: str, b: str, _d: Any) -> float:
            if taken and a in taken and taken[a] != b:
                return 50.0
            c = 1.0 - 0.4 * min(relevance.get(b, 0.0), 1.0)
            for e, cond in branches(chart, a):
                if e.target != b or cond is None:
                    continue
                if cond == "no":
                    c -= 0.3 if negated else -0.1
                elif cond == "yes":
                    c -= 0.1 if not negated else -0.1
                else:
                    lt = set(tokens(cond))
                    if lt and lt & stoks:
                        c -= 0.3 * len(lt & stoks) / len(lt)
            return max(c, 0.05)

        try:
            p = nx.dijkstra_path(ctx.g, u, v, weight=cost)
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            return None
        if len(p) - 1 > (max_gap or self.max_gap):
            return None
        return p

    def _connect(self, ctx: _ChartContext, anchors: Iterable[str], relevance: dict[str, float],
                 statement: str, *, max_gap: int | None = None,
                 taken: dict[str, str] | None = None) -> list[str]:
        """Join anchors in flow order with cheapest paths; unreachable pairs stay unjoined."""
        ordered = sorted(dict.fromkeys(anchors), key=lambda n: ctx.depth.get(n, 0))
        if len(ordered) <= 1:
            return ordered
        out: list[str] = [ordered[0]]
        for a, b in zip(ordered, ordered[1:], strict=False):
            p = (self._path(ctx, a, b, relevance, statement, max_gap=max_gap, taken=taken)
                 or self._path(ctx, b, a, relevance, statement, max_gap=max_gap, taken=taken))
            out.extend(p if p else [b])
        return list(dict.fromkeys(out))

    # -- topological ----------------------------------------------------------------------------
    def _named_nodes(self, ctx: _ChartContext, question: str, k: int) -> list[str]:
        names = quoted_names(question)
        found: list[str] = []
        for name in names:
            nid, s = best_quoted_match(ctx.index, name)
            if nid is not None and s >= 0.5:
                found.append(nid)
        if len(found) < k:  # names not quoted: fall back to the best-mentioned nodes
            q = self._question_scores(ctx, question)
            for nid in sorted(q, key=lambda n: -q[n]):
                if nid not in found and q[nid] > 0:
                    found.append(nid)
                if len(found) >= k:
                    break
        return found

    def _topological(self, ctx: _ChartContext, question: str, answer: str) -> tuple[list[str], str]:
        import networkx as nx

        chart, ql = ctx.chart, question.lower()
        m_deg = re.search(r"(in|out)-?\s?degree", ql)
        if m_deg and re.search(r"\b(max|maximum|highest|largest|most)\b", ql):
            deg = chart.in_degree if m_deg.group(1) == "in" else chart.out_degree
            best = max(deg(n) for n in chart.nodes)
            ids = [n for n in chart.nodes if deg(n) == best]
            return ids, f"node(s) with the maximum {m_deg.group(1)}-degree {best}"
        if m_deg and re.search(r"\b(min|minimum|lowest|smallest|least)\b", ql):
            deg = chart.in_degree if m_deg.group(1) == "in" else chart.out_degree
            best = min(deg(n) for n in chart.nodes)
            ids = [n for n in chart.nodes if deg(n) == best]
            return ids, f"node(s) with the minimum {m_deg.group(1)}-degree {best}"
        if m_deg:
            ids = self._named_nodes(ctx, question, 1)[:1]
            return ids, f"the node whose {m_deg.group(1)}-degree is asked"
        if re.search(r"how many (decision nodes|decisions|decision points)", ql):
            return [n for n in chart.nodes if node_kind(ctx.chart, n) == "decision"], "all decision nodes"
        if re.search(r"how many nodes|number of nodes|how many edges (are|exist|does|in) (there )?(in )?the (flow)?chart|number of edges", ql) \
                and "between" not in ql:
            return list(chart.nodes), "the whole chart is counted"
        named = self._named_nodes(ctx, question, 2)
        if len(named) < 2:
            return named, "only one node could be identified"
        x, y = named[0], named[1]
        if re.search(r"direct(ly)?\s+(successor|predecessor)", ql):
            # "Is X a direct successor of Y": the edge (or its absence) between the two nodes
            if ctx.g.has_edge(x, y) or ctx.g.has_edge(y, x):
                return [y, x], "the two nodes and the edge between them"
            p = None
            for a, b in ((y, x), (x, y)):
                try:
                    cand = nx.shortest_path(ctx.g, a, b)
                except nx.NetworkXNoPath:
                    continue
                if p is None or len(cand) < len(p):
                    p = cand
            # a short detour shows why they are not adjacent; a long one adds no evidence
            if p is not None and len(p) <= 3:
                return p, "the two nodes are not adjacent; the short path between them shows it"
            return [y, x], "the two nodes are not adjacent"
        # shortest path between the two named nodes (directed, else either way, else undirected)
        for a, b, g in ((x, y, ctx.g), (y, x, ctx.g), (x, y, ctx.ug)):
            try:
                return nx.shortest_path(g, a, b), "the shortest path between the named nodes"
            except nx.NetworkXNoPath:
                continue
        return [x, y], "no path joins the named nodes"

    # -- fact retrieval -------------------------------------------------------------------------
    def _fact(self, ctx: _ChartContext, question: str, answer: str) -> tuple[list[str], str]:
        chart = ctx.chart
        if self.code_checks:
            by_code = self._code_condition_of_step(ctx, question, answer)
            if by_code is not None:
                return by_code
        if self.fact_options_at_check:
            options = self._options_at_check(ctx, question)
            if options is not None:
                return options
        # "After you rinse the jar, heat the oil for 10 minutes": the leading clause sets the
        # scene (a neighbour), the rest states the fact
        answer = _answer_core(answer, self.fact_trailing_context)
        # "Once you rinse the jar, how long do you heat the oil?": the opening clause names the
        # step before, a neighbour of the answer (it still picks the neighbourhood below)
        asked = _question_core(question) if self.fact_question_context else question
        s = self._answer_scores(ctx, asked, answer)
        q = self._question_scores(ctx, question)
        # statements are local: when the question names a step, its neighbours are the likely
        # answer, which settles ties between equally worded nodes elsewhere in the chart
        qa = max(ctx.index.ids, key=lambda n: q[n])
        if q[qa] >= 0.6:
            for n in set(chart.successors(qa)) | set(chart.predecessors(qa)):
                s[n] += 0.08
        # a question that settles a decision ("what happens if the glue is not dry?") asks
        # for the step on the branch it takes
        branch_of: dict[str, str] = {}
        if self.fact_branch_boost > 0:
            from flowpath.reason.branches import branch_taken

            for d in ctx.index.ids:
                if node_kind(ctx.chart, d) != "decision":
                    continue
                code = self._code_reading(chart.nodes[d].text or "", _without_embedded_questions(question), ctx.program)
                if code is not None:
                    taken = code or None
                elif self._fact_mentions_check(ctx, d, q, question):
                    taken = (self._fact_branch_taken(chart.nodes[d].text or "", question)
                             if self.fact_embedded_questions else branch_taken(chart.nodes[d].text or "", question))
                else:
                    continue
                if taken is not None:
                    for e, cond in branches(chart, d):
                        if cond == taken:
                            s[e.target] += self.fact_branch_boost
                            branch_of.setdefault(e.target, d)
        if self.fact_first_step_boost is not None and _FIRST_STEP_ASK.search(question) \
                and not _BRANCH_OR_PLACE.search(question):
            for n in self._first_steps(ctx):
                s[n] += self.fact_first_step_boost
        if self.fact_thing_weight:
            # "which step calls for a double boiler?": the thing the question names, not the
            # answer's paraphrase of the step ("when you heat the wax"), places the answer
            for n, w in self._thing_held(ctx, question).items():
                s[n] += self.fact_thing_weight * w
        qa_scores = q if asked == question else self._question_scores(ctx, asked)
        best = self._fact_answer_node(ctx, s, qa_scores, asked, answer, set(branch_of))
        if self.fact_taken_step_over_check:
            best = self._step_over_settled_check(ctx, best, branch_of, answer)
        ids = [best]
        why = f"{best} states the answer"
        if self.fact_sequence_anchor is not None and best not in branch_of:
            named = self._sequence_anchor(ctx, question, best)
            if named is not None:
                ids = [named, best] if ctx.depth.get(named, 0) <= ctx.depth.get(best, 0) else [best, named]
                return ids, why + f"; the question asks for the step next to {named}"
        if best in branch_of:
            return [branch_of[best], best], why + f"; the question settles {branch_of[best]}, whose branch leads here"
        if _CONDITION_CUE.search(question) or _CONDITION_CUE.search(answer):
            # the condition under which the answer holds sits on a neighbouring decision:
            # either the answer node is a branch of a decision the question names, or the
            # answer names the decision and the question names its branch
            neigh = [(n, "pred") for n in chart.predecessors(best)] + [(n, "succ") for n in chart.successors(best)]
            cands = [(n, rel) for n, rel in neigh
                     if (rel == "pred" and node_kind(ctx.chart, n) == "decision")
                     or (rel == "succ" and node_kind(ctx.chart, best) == "decision")]
            if cands:
                n, rel = max(cands, key=lambda c: q[c[0]])
                if self._fact_condition_names(ctx, n, rel, q, cands, question, answer, best):
                    ids = [n, best] if rel == "pred" else [best, n]
                    why += f"; {n} is the decision whose branch the statement takes"
            if len(ids) == 1 and self.fact_condition_before_end:
                check = self._check_before_end(ctx, best, question)
                if check is not None:
                    ids = [check, best]
                    why += f"; {check} is the check whose branch leads on to this last step"
        return ids, why

    def _check_before_end(self, ctx: _ChartContext, best: str, question: str) -> str | None:
        """"What is the final step if the dough holds together?": the check a conditional clause
        settles in everyday words (`_condition_by_meaning`) whose labelled branch leads through
        plain steps (at most four, one way in each) to the end ``best`` the question asks
        for; None when the question does not ask for the last step or no such check is named."""
        if not _LAST_STEP_ASK.search(question):
            return None
        node = best
        for _ in range(4):
            preds = list(ctx.chart.predecessors(node))
            if len(preds) != 1:
                return None
            if node_kind(ctx.chart, preds[0]) == "decision":
                check = preds[0]
                clauses = _condition_clauses(_without_embedded_questions(question))
                return check if self._condition_by_meaning(ctx, check, node, clauses) else None
            node = preds[0]
        return None

    def _options_at_check(self, ctx: _ChartContext, question: str) -> tuple[list[str], str] | None:
        """"What are the options depending on whether the dough is sticky?" asks what the chart
        offers at a check without taking a branch: the check the question names best (at least
        half of it, blended) and the steps its labelled branches lead to. None when the
        question does not ask that way or names no check."""
        if not _OPTIONS_ASK.search(question):
            return None
        q = ctx.index.scores(question)
        checks = [n for n in ctx.index.ids if node_kind(ctx.chart, n) == "decision"]
        if not checks:
            return None
        d = max(checks, key=lambda n: (q[n][0], -ctx.depth.get(n, 0)))
        outs = [e.target for e, cond in branches(ctx.chart, d) if cond is not None]
        if q[d][0] < self.settle_threshold or len(outs) < 2:
            return None
        return [d, *outs], f"the question asks for the options at {d}: the check and its branches"

    def _sequence_anchor(self, ctx: _ChartContext, question: str, best: str) -> str | None:
        """The step a fact question places its answer by ("What do you do once you rinse the
        jar?", "What has to be done before you heat the oil?"), when the question asks for a step
        (not a detail of one: "Once you rinse the jar, how long ...") and that step is the
        answer's neighbour in the asked direction, named by the placing clause (blended, at
        least ``fact_sequence_anchor``) better than any other such neighbour."""
        placed = _setting_clause(question)
        if placed is None or not _STEP_ASK.match(_question_core(question)):
            return None
        word, clause = placed
        before = word.lower() == "before"
        cands = list(ctx.chart.successors(best) if before else ctx.chart.predecessors(best))
        cands = [n for n in cands if node_kind(ctx.chart, n) not in ("start", "end")]
        if not cands:
            return None
        sc = ctx.index.scores(clause)
        top = max(cands, key=lambda n: sc[n][0])
        assert self.fact_sequence_anchor is not None
        return top if sc[top][0] >= self.fact_sequence_anchor else None

    @staticmethod
    def _thing_held(ctx: _ChartContext, question: str) -> dict[str, float]:
        """For a question about what a tool, ingredient or document is used for, or which step
        uses it ("What is a double boiler used for?", "At which step do you need the tracking
        number?"): how much of that thing's wording each node holds (lexical); empty for other
        questions."""
        thing = next((m.group("thing") for pat in _THING_ASKS if (m := pat.search(question))), None)
        if not thing or not thing.strip():
            return {}
        return {n: v[1] for n, v in ctx.index.scores(thing, semantic=False).items()}

    @staticmethod
    def _first_steps(ctx: _ChartContext) -> list[str]:
        """The nodes right after the chart's start node(s): what "the first thing to do" is."""
        return [n for st in ctx.starts if node_kind(ctx.chart, st) == "start"
                for n in ctx.chart.successors(st) if node_kind(ctx.chart, n) not in ("start", "end")]

    def _fact_condition_names(self, ctx: _ChartContext, n: str, rel: str, q: dict[str, float],
                              cands: list[tuple[str, str]], question: str, answer: str, best: str) -> bool:
        """Whether the statement's condition is the decision ``n`` next to the answer node: a
        decision before it counts only when a conditional clause of the statement ("if the glue
        is not dry", "when the score is 720") names that decision, not when the statement merely
        says "if you need to ..." or shares a word with it (issue 15 item 3: the decision is
        needed when the statement takes its branch; FlowPathAgent's minimum set)."""
        if rel == "succ" and self.fact_condition_over_answer:
            # the answer is the check; its branch step joins only when the question names that
            # step rather than the check ("which question is asked about the venue?" names both),
            # or names it in words of its own ("what decides whether you add a back?")
            return (q[n] >= 0.34 and q[n] > q[best]) or self._condition_by_meaning(
                ctx, best, n, _condition_clauses(question), named=n)
        if rel == "succ" or self.fact_condition_threshold is None:
            return q[n] >= 0.34 or (rel == "pred" and len(cands) == 1 and q[n] > 0.15)
        from flowpath.reason.branches import states_quantity

        text = ctx.chart.nodes[n].text or ""
        if self.fact_embedded_questions:
            question, answer = _without_embedded_questions(question), _without_embedded_questions(answer)
        if self._condition_by_meaning(ctx, n, best, _condition_clauses(question)):
            return True
        for clause in _condition_clauses(question) + _condition_clauses(answer):
            if self._code_reading(text, clause, ctx.program):
                return True
            sc = ctx.index.scores(clause, semantic=False)
            # a clause whose words the answer's own step holds more of ("when it is time to
            # research the rental deposit") is about that step, not about a check sharing a word
            # with it ("wait time"); "x is negative" names "x < 0?" as much as "acc = acc + x"
            if sc[n][0] >= self.fact_condition_threshold and (
                    not self.fact_condition_over_answer or sc[n][1] >= sc[best][1]):
                return True
            if states_quantity(text, clause):
                return True
        return False

    @staticmethod
    def _step_over_settled_check(ctx: _ChartContext, best: str, branch_of: dict[str, str], answer: str) -> str:
        """How-to fact questions (``--style howto``): "If the hole is wider than 10 cm, what does
        the flowchart recommend?" answered "Add support" restates the check, and an answer in
        words of its own names no node, so the check wins the match; but the question settles
        it and asks what to do: the step on the branch it takes is the answer (the check joins
        it as the settled one). ``best`` when it is no check the question settles, or when the
        answer itself restates the check (covers at least half of it)."""
        taken = [t for t, d in branch_of.items() if d == best]
        if len(taken) != 1 or not answer.strip():
            return best
        if ctx.index.scores(answer)[best][0] >= 0.5:
            return best
        return taken[0]

    def _condition_by_meaning(self, ctx: _ChartContext, check: str, best: str, clauses: list[str],
                              named: str | None = None) -> bool:
        """How-to fact questions (``--style howto``): a conditional clause in everyday words
        ("if the thermometer stays at 36.8") names ``check``, the check just before the answer
        step ``best``, when a labelled branch of it leads to ``best`` and the check is the
        clause's nearest node by raw embedding cosine (at least ``fact_condition_by_meaning``).
        With ``named`` (``best``, a check's branch step, when the check is the answer): the
        clause must be nearest that step ("what decides whether you add a back?").
        A clause about a step ("when you warm up the oil") is nearer that step, and one whose
        words the answer step holds more of than the check ("when you note the retry count", a
        step that notes what the check tests) is about the step."""
        if ctx.index.encoder is None or self.fact_condition_by_meaning is None:
            return False
        if not any(e.target == best and cond is not None for e, cond in branches(ctx.chart, check)):
            return False
        named = named or check
        other = best if named == check else check
        for clause in clauses:
            held = ctx.index.scores(clause, semantic=False)
            if held[other][1] > held[named][1]:
                continue
            sim = ctx.index.similarity(clause, raw=True)
            if self._nearest_of_clause(sim, named, other) and sim[named] >= self.fact_condition_by_meaning:
                return True
        return False

    def _nearest_of_clause(self, sim: dict[str, float], named: str, other: str) -> bool:
        """Whether ``named`` is what a clause (``sim``: its raw cosines) speaks of: its nearest
        node, or (with ``fact_condition_rank`` above 1, how-to fact questions settle checks in
        everyday words the encoder places only near them) among its ``fact_condition_rank``
        nearest and nearer than ``other``."""
        ranked = sorted(sim, key=lambda n: -sim[n])
        if ranked[0] == named:
            return True
        return named in ranked[: self.fact_condition_rank] and sim[named] > sim[other]

    @staticmethod
    def _fact_branch_taken(decision: str, question: str) -> str | None:
        """The branch a fact question takes at the check ``decision``; None when it does not
        settle it: what an embedded question ("whether the glue is dry", "see if the token is
        valid") says asks about the check rather than stating its answer, and a numeric check
        whose quantity the question names with neither a value nor the threshold ("when is the
        credit score noted?") is named, not settled."""
        from flowpath.reason.branches import branch_taken, states_quantity, threshold

        statement = _without_embedded_questions(question)
        thr = threshold(decision)
        if thr is not None and not states_quantity(decision, statement) \
                and f"{thr[2]:g}" not in re.findall(r"\d+(?:\.\d+)?", re.sub(r"(?<=\d),(?=\d{3})", "", statement)):
            return None
        return branch_taken(decision, statement)

    def _fact_mentions_check(self, ctx: _ChartContext, d: str, q: dict[str, float], question: str) -> bool:
        """Whether a fact question speaks of the check ``d``: it restates it, or (with
        ``fact_quantity``) gives a number for the quantity the check compares ("if the credit
        score reads 703" for "Is the credit score above 600?"), as scenario stories do."""
        if q[d] >= self.settle_threshold:
            return True
        if not self.fact_quantity:
            return False
        from flowpath.reason.branches import states_quantity

        return states_quantity(ctx.chart.nodes[d].text or "", question)

    def _fact_answer_node(self, ctx: _ChartContext, s: dict[str, float], q: dict[str, float],
                          question: str, answer: str, on_taken_branch: set[str] | None = None) -> str:
        """The node that states a fact answer. An answer that names nothing in the chart ("Put
        on it") is no evidence: its faint likeness to every node (most to a bare "Start") must
        not outweigh the node the question names, so the question's match counts in full then.
        Nodes within ``fact_tie_margin`` of the best (steps sharing the object the question
        names) are told apart by the statement's raw embedding similarity, which still ranks
        "Increase it" nearer "Increment ..." than "Write ..." after rescaling has tied them."""
        ids = ctx.index.ids
        if self.fact_no_titled_start and not _START_CUE.search(question):
            # a titled Start ("Start training a puppy to sit") shares the task's words with every
            # question about it and states no fact (howto11_val)
            ids = [n for n in ids if not is_titled_start(ctx.chart, n)] or ids
        if self.fact_yesno_step_not_check and _asks_whether_a_step(question):
            ids = [n for n in ids if node_kind(ctx.chart, n) != "decision"] or ids
        a = ctx.index.scores(answer) if answer.strip() else {}
        if not a or max(v[1] for v in a.values()) < self.fact_answer_floor:
            s = {n: s[n] + q[n] for n in ids}
        best = max(ids, key=lambda n: (s[n], -ctx.depth.get(n, 0)))
        near = [n for n in ids if s[n] >= s[best] - self.fact_tie_margin]
        taken_near = [n for n in near if n in (on_taken_branch or set())]
        if self.fact_prefer_taken and taken_near:
            # the question settles a check: among the steps that state the answer about equally
            # well, the one on the branch it takes ("organise the wedding venue" when the
            # deadline is close: "Plan the wedding venue", not "Discuss the wedding venue")
            near = taken_near
        if len(near) > 1 and ctx.index.encoder is not None and self.fact_tie_margin > 0:
            sim_q = ctx.index.similarity(question, raw=True)
            sim_a = ctx.index.similarity(answer, raw=True) if answer.strip() else {}
            # how much of the question's wording a step holds ("with 500 ml of warm water"):
            # embeddings find "100 ml of warm water" about as close
            held = ({n: v[1] for n, v in ctx.index.scores(question, semantic=False).items()}
                    if self.fact_tie_question_words else {})
            best = max(near, key=lambda n: (sim_q.get(n, 0.0) + sim_a.get(n, 0.0)
                                            + self.fact_tie_question_words * held.get(n, 0.0),
                                            -ctx.depth.get(n, 0)))
        return best

    # -- checks written as code -----------------------------------------------------------------
    def _code_reading(self, decision: str, statement: str, program: bool = False) -> str | None:
        """How ``statement`` settles a check written as code: ``"yes"`` / ``"no"`` by the values
        it gives the check's operands (`branches.code_branch`), ``""`` when it gives none (the
        check is then not settled: a variable named without a value settles nothing), ``None``
        for a check in words (read as before), or with ``code_checks`` off."""
        if not self.code_checks:
            return None
        from flowpath.reason.branches import code_branch, code_condition, error_check, loop_sequence

        seq = loop_sequence(decision)
        # a loop over a sequence written as code ("self.filters", "enumerate(lines)"), not over
        # "the guest list"; a try/except drawn as a check on a named exception ("Did a KeyError
        # occur?", codeword12), not "Did an error occur?"
        if code_condition(decision, program) is None and (not self.code_words or error_check(decision) in (None, "error")) and (
                seq is None or re.search(r"\s", seq.strip()) and not re.search(r"[_.(\[]", seq)):
            return None
        return code_branch(decision, statement, program) or ""

    def _code_flow(self, ctx: _ChartContext, question: str, answer: str) -> tuple[list[str], str] | None:
        """A flow question about a program, read as code is read: "if k is less than 0, what is
        the next step?" settles one check written as code (`branches.code_branch`) and asks for
        the step on its taken branch; "after nlines is set to rawdata.count(...), what is checked
        next?" names one step as code is read aloud (`branches.code_step_named`) and asks for
        its neighbour (and, "what decision led to that step?", the check before it). The
        variable names such questions share with other steps ("Input rmode") name nothing.
        ``None`` when the question is not read so (the general rules answer). Chosen on
        generated QA (codereason11_val)."""
        from flowpath.reason.branches import code_branch, code_condition, code_step_named

        chart = ctx.chart
        ask = _without_embedded_questions(question)
        # "once x is set, which condition is tested?" asks what follows too
        nxt = bool(_NEXT_CUE.search(question) or re.search(r"\bonce\b", question, re.I))
        prev = bool(_PREV_CUE.search(question))
        settled = []
        for d in ctx.index.ids:
            text = chart.nodes[d].text or ""
            if node_kind(chart, d) == "decision" and code_condition(text, ctx.program) is not None:
                taken = code_branch(text, ask, ctx.program)
                if taken is not None:
                    settled.append((d, taken))
        if len(settled) == 1 and nxt and not prev and _CONDITION_CUE.search(question):
            d, taken = settled[0]
            targets = [e.target for e, cond in branches(chart, d) if cond == taken]
            if len(targets) == 1:
                return [d, targets[0]], f"the question settles {d}; the step on its taken branch follows"
        named = [n for n in ctx.index.ids if node_kind(chart, n) not in ("start", "end", "decision")
                 and code_step_named(chart.nodes[n].text or "", ask)]
        if not named and ctx.program:
            named = self._step_named_in_words(ctx, ask)
        if not named and len(settled) == 1 and prev and re.search(r"\bchecks?\b", question, re.I):
            named = [settled[0][0]]  # "... before the program checks whether code equals 'C'?"
        if len(named) != 1 or nxt == prev:
            return None
        cur = named[0]
        a = {n: v[1] for n, v in ctx.index.scores(answer).items()} if answer.strip() else {}
        near = chart.successors(cur) if nxt else chart.predecessors(cur)
        if not near:
            return None
        other = max(near, key=lambda n: (a.get(n, 0.0), -ctx.depth.get(n, 0)))
        ids = [cur, other] if nxt else [other, cur]
        if nxt and (_asks_leading_decision(question) if self.code_words else _ASKS_DECISION.search(question)):
            led = [p for p in chart.predecessors(cur) if node_kind(chart, p) == "decision"]
            if len(led) == 1:
                ids = [led[0], *ids]
        return ids, f"the question names {cur} as code; its neighbour"

    @staticmethod
    def _step_named_in_words(ctx: _ChartContext, statement: str) -> list[str]:
        """The one program step a statement names in an LLM's words ("after prepare is computed
        as the result of getattr" for "Call getattr and store the result in prepare";
        `branches.step_named_in_words`): the best-named step when no other is named as well,
        else none (codeword12_val)."""
        from flowpath.reason.branches import step_named_in_words

        chart = ctx.chart
        scores = {n: step_named_in_words(chart.nodes[n].text or "", statement) for n in ctx.index.ids
                  if node_kind(chart, n) not in ("start", "end", "decision")}
        best = max(scores.values(), default=0.0)
        top = [n for n, v in scores.items() if v == best]
        return top if best > 0 and len(top) == 1 else []

    def _code_condition_of_step(self, ctx: _ChartContext, question: str, answer: str) -> tuple[list[str], str] | None:
        """"Under what condition does the program reach 'Return x'?", "when does f return
        None?": a question naming one program step as code (its text verbatim, or read aloud:
        `branches.code_step_named`) and asking for its condition is answered by that step and
        the check whose branch leads to it (the one the answer settles, when it settles one;
        else the only check before it). ``None`` otherwise (generated QA, codereason11_val)."""
        from flowpath.reason.branches import code_branch, code_condition, code_step_named

        if not re.search(r"\b(under what condition|in which case|when does|when do|when is)\b", question, re.I):
            return None
        chart = ctx.chart
        named = [n for n in ctx.index.ids if node_kind(chart, n) not in ("start", "end", "decision")
                 and ((len(chart.nodes[n].text or "") >= 6 and f"'{chart.nodes[n].text}'" in question)
                      or code_step_named(chart.nodes[n].text or "", question))]
        if len(named) != 1:
            return None
        step = named[0]
        checks = [p for p in chart.predecessors(step) if node_kind(chart, p) == "decision"]
        leading = [d for d in checks if code_condition(chart.nodes[d].text or "", ctx.program) is not None
                   and any(cond == code_branch(chart.nodes[d].text or "", answer, ctx.program) and e.target == step
                           for e, cond in branches(chart, d))]
        if len(leading) == 1 or len(checks) == 1:
            d = leading[0] if len(leading) == 1 else checks[0]
            return [d, step], f"the question names {step} as code and asks its condition: {d}, whose branch leads there"
        return None

    @staticmethod
    def _code_done_before(ctx: _ChartContext, story: str, decision: str) -> str | None:
        """The program step a story says was done just before the check ``decision``, named as
        code is read aloud ("Just before that, nlines is set to rawdata.count(...)") in a
        sentence after the opening one: a direct predecessor of the check (generated QA,
        codereason11_val; `_done_before` looks for shared words, which code steps share with
        every other step on the same variable)."""
        from flowpath.reason.branches import code_step_named

        later = _sentences(story)[1:]
        named = [p for p in ctx.chart.predecessors(decision)
                 if node_kind(ctx.chart, p) not in ("start", "end", "decision")
                 and any(code_step_named(ctx.chart.nodes[p].text or "", x) for x in later)]
        if not named and ctx.program:  # named in an LLM's words (codeword12_val)
            named = [p for p in ctx.chart.predecessors(decision) if any(
                p in OfflineReasoner._step_named_in_words(ctx, x) for x in later)]
        return named[0] if len(named) == 1 else None

    def _code_situation(self, ctx: _ChartContext, cands: list[str], settled: dict[str, str], story: str) -> list[str]:
        """A run traced through a program's checks starts at the first check it settles: the
        steps before it that the story names are named by the variables it gives values ("rmode
        is None" names "Input rmode" and "rmode = ..."), not done in the story's situation (the
        step said done just before the check is added by `_done_before`). Only when the story's
        values settle that first check (`branches.code_branch`): a check in words, or one read
        by a level word, keeps the general rule (generated QA, codereason11_val; on scen10's word
        charts a code-like check beside checks in words is no program)."""
        import networkx as nx

        first = min(settled, key=lambda n: (ctx.depth.get(n, 0), n))
        if not self._code_reading(ctx.chart.nodes[first].text or "", story, ctx.program):
            return cands  # the first check is not one the story's values settle
        before = nx.ancestors(ctx.g, first)
        return [n for n in cands if n not in before]

    # -- applied scenario -----------------------------------------------------------------------
    def _settled(self, ctx: _ChartContext, q: dict[str, float], statement: str,
                 target: str | None) -> dict[str, str | None]:
        """Decisions upstream of ``target`` that the statement settles, each mapped to the
        successor on the branch it takes, or to ``None`` when that branch leads away from
        ``target`` (the story passed elsewhere, or the branch was misread). With ``target``
        ``None``: every decision the statement settles, mapped to its taken branch's successor
        (``None`` when no edge carries that branch)."""
        import networkx as nx

        from flowpath.reason.branches import branch_taken, read_check, states_quantity

        chart = ctx.chart
        out: dict[str, str | None] = {}
        upstream = nx.ancestors(ctx.g, target) if target is not None else set(ctx.index.ids)
        sentences = _sentences(statement)
        # the statement after its opening sentence, which names the task ("Daniel is training a
        # puppy to sit", "Elena is caring for a cold at home"): None when the story is that one
        # sentence
        after_opening = " ".join(sentences[1:]) if self.scenario_opening_sets_scene and len(sentences) >= 3 else None
        for d in sorted(upstream):
            if node_kind(ctx.chart, d) != "decision":
                continue
            text = chart.nodes[d].text or ""
            code = self._code_reading(text, statement, ctx.program)
            if code:
                out[d] = self._branch_toward(ctx, d, code, target)
                continue
            read = read_check(text, statement) if self.scenario_opposites else None
            if code is not None and (not self.code_checks_words or read is None or read[1] == "restated"):
                continue
            # a story gives a number for the quantity a check compares ("the water level reads
            # 12" for "Is the water level below 10?") without the comparison's words; or settles
            # it by an opposite, a bound or a level word, which the encoder does not see
            if q[d] < self.settle_threshold and not states_quantity(text, statement) and not (
                    read is not None and read[1] in ("bound", "level", "opposite")):
                continue
            if read is not None and read[1] in ("restated", "opposite", "level") and after_opening is not None \
                    and read_check(text, after_opening) is None and not states_quantity(text, after_opening):
                # the task's name restates a check ("training a puppy to sit" for "Does the puppy
                # sit down?") or says a level word ("a cold" for "Is your temperature above 38
                # degrees?"): the opening sets the scene and settles nothing (its numbers do)
                continue
            taken = read[0] if read is not None else None if self.scenario_opposites else branch_taken(text, statement)
            if taken is None:
                continue
            out[d] = self._branch_toward(ctx, d, taken, target)
        for d, taken in self._quantities_by_meaning(ctx, statement, upstream, out).items():
            out[d] = self._branch_toward(ctx, d, taken, target)
        if target is not None and not any(t is not None for t in out.values()):
            # (only when no rule above settled a check on the way: a story that settles checks
            # in their own words tells its scenery in sentences an encoder may find near a check)
            for d, t in self._checks_by_meaning(ctx, statement, upstream, out, target).items():
                out[d] = t
        return out

    def _checks_by_meaning(self, ctx: _ChartContext, statement: str, upstream: set[str],
                           settled: dict[str, str | None], target: str) -> dict[str, str]:
        """How-to stories (``--style howto``): checks the story settles in words of its own
        (`_checks_named_by_sentences`), upstream of ``target`` and not settled otherwise; the
        branch is the one way on to ``target`` that does not come back through the check (the
        story reached the answer through it). Nothing when both branches lead on."""
        import networkx as nx

        out: dict[str, str] = {}
        for d in self._checks_named_by_sentences(ctx, statement):
            if d in settled or d not in upstream:
                continue
            onward = nx.restricted_view(ctx.g, [d], [])
            toward = {e.target for e in ctx.chart.out_edges(d)
                      if e.target == target or nx.has_path(onward, e.target, target)}
            if len(toward) == 1:
                out[d] = toward.pop()
        return out

    def _checks_named_by_sentences(self, ctx: _ChartContext, statement: str) -> dict[str, int]:
        """Checks a story's sentences after the opening (which names the task) speak of: each
        check that is some sentence's nearest node by raw embedding cosine, at
        ``scenario_check_by_meaning`` or more, with the index of its first such sentence in the
        story ("the spare bulges at the bottom" for "Does the spare look underinflated?"). Empty
        without an encoder."""
        from flowpath.reason.branches import threshold

        index = ctx.index
        if index.encoder is None or self.scenario_check_by_meaning is None:
            return {}
        sentences = _sentences(_story(statement))[1:]
        if not sentences:
            return {}
        sims = index.node_vectors() @ index.encoder.encode(sentences).T
        out: dict[str, int] = {}
        for j in range(len(sentences)):
            i = int(sims[:, j].argmax())
            d = index.ids[i]
            # (a check comparing a number is the quantity rules' to read: a number near it in
            # meaning need not be its value)
            if float(sims[i, j]) >= self.scenario_check_by_meaning and node_kind(ctx.chart, d) == "decision" \
                    and threshold(ctx.chart.nodes[d].text or "") is None:
                out.setdefault(d, j + 1)
        return out

    @staticmethod
    def _branch_toward(ctx: _ChartContext, decision: str, taken: str, target: str | None) -> str | None:
        """The successor on ``decision``'s ``taken`` branch, ``None`` when that branch leads away
        from ``target`` (or no edge carries it)."""
        import networkx as nx

        out = None
        for e, cond in branches(ctx.chart, decision):
            if cond == taken and (target is None or e.target == target or target in nx.descendants(ctx.g, e.target)):
                out = e.target
        if out is None and target is not None and unread_branches(ctx.chart, decision):
            # neither branch label was read (a transcriber's slip): the branch the story takes
            # is the one way on to the answer, when only one leads there without coming back
            # through the check (a loop back does too)
            onward = nx.restricted_view(ctx.g, [decision], [])
            toward = {e.target for e in ctx.chart.out_edges(decision)
                      if e.target == target or nx.has_path(onward, e.target, target)}
            if len(toward) == 1:
                out = toward.pop()
        return out

    def _quantities_by_meaning(self, ctx: _ChartContext, statement: str, upstream: set[str],
                               settled: dict[str, str | None]) -> dict[str, str]:
        """Numeric checks the story gives a number for with none of their words ("Julia has
        just turned 16" for "Is the applicant's age below 18?", "the call stack is 513 frames
        deep" for "'depth' below 600?"): each number whose clause names no check's quantity
        goes to the unsettled check its clause is most like (raw embedding cosine at least
        ``scenario_quantity_likeness``; one number a check, best pairs first), and the check
        takes the branch the number's side of the threshold gives. Nothing without an encoder."""
        from flowpath.reason.branches import states_quantity, threshold, value_clauses

        index = ctx.index
        if index.encoder is None or self.scenario_quantity_likeness is None:
            return {}
        numeric = {d: ctx.chart.nodes[d].text or "" for d in index.ids
                   if node_kind(ctx.chart, d) == "decision" and threshold(ctx.chart.nodes[d].text or "") is not None}
        open_checks = [d for d in sorted(upstream) if d in numeric and d not in settled]
        if not open_checks:
            return {}
        free = [(v, c) for v, c in value_clauses(_story(statement))
                if not any(states_quantity(t, c) for t in numeric.values())]
        if not free:
            return {}
        vecs = index.encoder.encode([c for _, c in free])
        rows = [index.ids.index(d) for d in open_checks]
        sims = index.node_vectors()[rows] @ vecs.T
        pairs = sorted(((float(sims[i, j]), i, j) for i in range(len(rows)) for j in range(len(free))), reverse=True)
        out: dict[str, str] = {}
        used: set[int] = set()
        for sim, i, j in pairs:
            if sim < self.scenario_quantity_likeness:
                break
            d = open_checks[i]
            if d in out or j in used:
                continue
            thr = threshold(numeric[d])
            assert thr is not None
            out[d] = "yes" if thr[1](free[j][0], thr[2]) else "no"
            used.add(j)
        return out

    def _scenario(self, ctx: _ChartContext, question: str, answer: str) -> tuple[list[str], str]:
        import networkx as nx

        q = self._question_scores(ctx, question)
        if self.scenario_just_done_pairs:
            pair = self._just_done_pair(ctx, q, question, answer)
            if pair is not None:
                return pair
        s = self._answer_scores(ctx, question, answer)
        best = max(ctx.index.ids, key=lambda n: (s[n], -ctx.depth.get(n, 0)))
        # "what next" is asked after the story's situation: an answer match on the branches the
        # story takes beats an (almost) equal one elsewhere ("book the budget" matches "Plan the
        # budget" upstream as well as "Schedule the budget" after the settled check)
        after: set[str] = set()
        settled_anywhere = self._settled(ctx, q, question, None)
        taken_targets = [t for t in settled_anywhere.values() if t is not None]
        for t in taken_targets:
            after |= {t} | nx.descendants(ctx.g, t)
        untaken = self._untaken(ctx, settled_anywhere) if self.scenario_avoid_untaken else set()
        if after and best not in after:
            alt = max(sorted(after), key=lambda n: (s[n], -ctx.depth.get(n, 0)))
            if s[alt] >= s[best] - self.scenario_after_margin:
                best = alt
        if best in after and self.scenario_next_margin > 0:
            # "what next" asks for the next step: among steps after the story's situation that
            # state the answer about as well ("take off the olive oil" against "Remove the olive
            # oil" and "Check the olive oil"), the nearest one past the settled checks (the
            # shortest supporting path; docs/reasoning.md, P2 and F2)
            last = max(taken_targets, key=lambda n: (ctx.depth.get(n, 0), n))
            dist = nx.single_source_shortest_path_length(ctx.g, last)
            near = [n for n in sorted(after) if n in dist and s[n] >= s[best] - self.scenario_next_margin
                    and node_kind(ctx.chart, n) not in ("start", "end", "decision")]
            near = self._worded_alike(ctx, answer, near)
            if (best in dist or best in untaken) and near:
                # (a best match only a branch the story did not take leads to is not the answer
                # when a step past the story's last settled check states it about as well)
                best = min(near, key=lambda n: (dist[n], -s[n]))
        elif not after:
            # no settled check places the answer: among steps about as well named (sharing the
            # object the answer names), the one whose wording the answer's reworded verb is like
            near = [n for n in ctx.index.ids if s[n] >= s[best] - self.scenario_next_margin
                    and node_kind(ctx.chart, n) not in ("start", "end", "decision")]
            alike = self._worded_alike(ctx, answer, near)
            if len(alike) < len(near) and best not in alike:
                best = max(alike, key=lambda n: (s[n], -ctx.depth.get(n, 0)))
        if self.scenario_step_answers:
            best = self._chained_answer(ctx, question, answer, best)
        rel = {n: max(q[n], s[n]) for n in ctx.index.ids}
        reads = self._settled(ctx, q, question, best)
        settled = {d: t for d, t in reads.items() if t is not None}
        chosen = self._chosen(ctx, _story(question))
        for d, (t, _) in chosen.items():
            if d not in reads and (t == best or best in nx.descendants(ctx.g, t)):
                settled[d] = t
        ancestors = nx.ancestors(ctx.g, best) - {d for d, t in reads.items() if t is None}
        # the scenario's situation: nodes the story (not its closing ask: "what happens to her
        # application?" names no step done) mentions upstream of the answer
        story = _story(question)
        qs = self._question_scores(ctx, story) if story != question else q
        # (a step only a branch the story did not take leads to is not where the person is)
        cands = [n for n in ctx.index.ids if n in ancestors and n != best and qs[n] >= self.scenario_threshold
                 and node_kind(ctx.chart, n) not in ("start", "end") and n not in untaken]
        anchors = [best]
        if settled:
            # the story walks the chart: the first decision it settles starts the walk, which
            # follows the branch taken at each settled decision (`_connect` with ``taken``)
            first = min(settled, key=lambda n: (ctx.depth.get(n, 0), n))
            anchors.append(first)
            settled_at = chosen[first][1] if first in chosen and first not in reads else None
            if settled_at is None and self.scenario_opposites:
                settled_at = _settling_sentence(ctx.chart.nodes[first].text or "", story)
            done = self._done_before(ctx, story, first, settled_at)
            if done is None and settled_at is None:
                # a check told in everyday words shares no word with its sentence: that sentence
                # is the one `_checks_named_by_sentences` found
                by_meaning = self._checks_named_by_sentences(ctx, question)
                if first in by_meaning:
                    done = self._done_before(ctx, story, first, by_meaning[first])
            if done is None and self.code_checks:
                done = self._code_done_before(ctx, story, first)
            if done is None:
                # (told in words of its own: "he already got the car somewhere safe")
                done = self._step_told_by_meaning(ctx, story, {
                    p for p in ctx.chart.predecessors(first) if node_kind(ctx.chart, p) not in ("start", "end", "decision")})
            if done is not None:
                anchors.append(done)
            if self.scenario_settled_anchors and self._path(ctx, first, best, {}, "", taken=settled) is None:
                # a walk longer than ``max_gap`` would be cut: every check the story settles on
                # the way is on it, and joining them one by one keeps each gap short (on shorter
                # walks they are left to the join: in a loop's code a settled check need not be
                # on the story's walk, reason6 code val)
                anchors.extend(d for d in sorted(settled) if d not in anchors)
        if settled and cands:
            # the opening sentence sets the scene: a step only it mentions, before the first
            # settled check, is background, not the situation (the paper's scenario figure
            # counts "initially measured in yards" -> "Input the number of yards" as
            # over-attribution; docs/reasoning.md)
            sentences = _sentences(story)
            if len(sentences) >= 2:
                first = min(settled, key=lambda n: (ctx.depth.get(n, 0), n))
                rest = self._question_scores(ctx, " ".join(sentences[1:]))
                before_first = nx.ancestors(ctx.g, first)
                cands = [n for n in cands if n not in before_first or rest[n] >= self.scenario_threshold]
        if settled and cands and self.code_checks:
            cands = self._code_situation(ctx, cands, settled, story)
        if cands:
            # the situation the scenario ends in is the mentioned node closest upstream
            dist = nx.single_source_shortest_path_length(ctx.g.reverse(copy=False), best, cutoff=self.max_gap)
            near = [n for n in cands if n in dist]
            if near:
                anchors.append(min(near, key=lambda n: (dist[n], -qs[n])))
                far = [n for n in near if dist[n] <= self.max_gap // 2 + 1 and qs[n] >= self.scenario_far_threshold]
                if far:
                    anchors.append(max(far, key=lambda n: dist[n]))
        if not settled and self.scenario_situation_by_meaning:
            # no check read: a step the story says was done in words of its own ("she marked
            # the boxes" for "Label each box with its room and contents") upstream of the answer
            # is where the walk starts
            reach = nx.single_source_shortest_path_length(ctx.g.reverse(copy=False), best, cutoff=self.max_gap)
            told = self._step_told_by_meaning(ctx, story, {
                n for n in reach if n != best and n not in untaken and node_kind(ctx.chart, n) not in ("start", "end", "decision")})
            if told is not None and told not in anchors:
                anchors.append(told)
        ids = self._connect(ctx, anchors, rel, question + " " + answer, taken=settled,
                            max_gap=self.scenario_walk_gap if settled else None)
        if settled and self.scenario_answer_up_loop:
            # the answer lies back up a loop the story's first settled check starts ("the jam
            # just runs across the plate" -> boil two more minutes -> "test the set again"): the
            # walk goes from the check through the taken branch round to it, not down to the
            # check from the answer (`_connect` joins anchors in depth order)
            first = min(settled, key=lambda n: (ctx.depth.get(n, 0), n))
            t = settled[first]
            if best in nx.ancestors(ctx.g, first) and (t == best or best in nx.descendants(ctx.g, t)):
                loop = self._path(ctx, first, best, rel, question + " " + answer, taken=settled)
                if loop is not None:
                    # (the step done just before the check, when one was found, stays)
                    done_steps = [a for a in anchors if a in ctx.chart.predecessors(first) and a != best
                                  and node_kind(ctx.chart, a) not in ("start", "end", "decision")]
                    ids = list(dict.fromkeys(done_steps[:1] + loop))
        if len(ids) == 1:
            # nothing upstream was named strongly: "what next" is asked from the step just
            # before the answer, so the predecessor the story hints at (else the decision
            # leading there) grounds the situation
            preds = ctx.chart.predecessors(best)
            hinted = [p for p in preds if q[p] > 0 and node_kind(ctx.chart, p) not in ("start", "end")]
            decisions = [p for p in preds if node_kind(ctx.chart, p) == "decision"]
            steps = [p for p in preds if node_kind(ctx.chart, p) not in ("start", "end", "decision")]
            if hinted:
                ids = [max(hinted, key=lambda p: q[p]), best]
            elif decisions:
                ids = [max(decisions, key=lambda p: q[p]), best]
            elif self.scenario_lone_predecessor and len(steps) == 1 and node_kind(ctx.chart, best) != "decision":
                # a how-to story says the step just done in words of its own ("he just checked
                # the available room" for "Measure the space with a tape measure"): the one step
                # leading to the answer is where the person stands
                ids = [steps[0], best]
        return ids, f"path from the scenario's situation to the answer node {best}"

    def _just_done_pair(self, ctx: _ChartContext, q: dict[str, float], question: str,
                        answer: str) -> tuple[list[str], str] | None:
        """A "what next" story ("Raj is making a tie-dye t-shirt. He just soaked the shirt. What
        should Raj do next?") that settles no check: the step the story says was just done and
        the successor the answer names, as `_edge_fit` pairs them (the step is told in other
        words, and the answer often paraphrases the next one, so each end is checked by the
        other). None when no sentence after the opening says a step was just done, when the
        story settles a check (the answer then lies past it), or without an answer."""
        sentences = _sentences(_story(question))
        done = [x for x in sentences[1:] if _JUST_DONE.search(x)]
        if len(done) != 1 or not answer.strip():
            return None
        if any(t is not None for t in self._settled(ctx, q, question, None).values()):
            return None
        fit = self._edge_fit(ctx, _JUST_DONE.sub(" ", done[0]), answer, check_named=not self.scenario_done_step_not_check)
        if fit is None:
            return None
        ids = list(fit)
        if self.scenario_step_answers:
            # "... and then ...": the walk goes on to the later step the answer names
            later = self._chained_answer(ctx, question, answer, ids[-1])
            if later != ids[-1]:
                ids.extend(self._path(ctx, ids[-1], later, {}, "") or [later])
        return list(dict.fromkeys(ids)), "the step the story says was just done and the next step the answer names"

    def _chained_answer(self, ctx: _ChartContext, question: str, answer: str, best: str) -> str:
        """How-to answers that name two steps in turn ("She should sand all edges and then put
        it together"): the answer ends at the later one, a step at most two edges past
        ``best`` (the node the whole answer matches) that the part after "then" names best (at
        least 0.3), so the walk takes in both. ``best`` otherwise."""
        import networkx as nx

        parts = _THEN.split(answer)
        if len(parts) < 2 or not parts[-1].strip():
            return best
        later = self._answer_scores(ctx, question, parts[-1])
        reach = nx.single_source_shortest_path_length(ctx.g, best, cutoff=2)
        onward = [n for n in reach if n != best and node_kind(ctx.chart, n) not in ("start", "end", "decision")]
        if not onward:
            return best
        top = max(onward, key=lambda n: (later[n], -reach[n]))
        return top if later[top] >= 0.3 and later[top] >= later[best] else best

    @staticmethod
    def _untaken(ctx: _ChartContext, settled: dict[str, str | None]) -> set[str]:
        """Steps only the branches a story did not take lead to: for each settled check, what its
        other forward branches reach and its taken branch does not (a branch looping back to
        the check leads nowhere new)."""
        import networkx as nx

        out: set[str] = set()
        for d, t in settled.items():
            if t is None:
                continue
            keep = {t} | nx.descendants(ctx.g, t)
            for e, _ in branches(ctx.chart, d):
                if e.target != t and d not in nx.descendants(ctx.g, e.target) and e.target != d:
                    out |= ({e.target} | nx.descendants(ctx.g, e.target)) - keep
        return out

    def _worded_alike(self, ctx: _ChartContext, answer: str, near: list[str]) -> list[str]:
        """Among ``near`` (steps the answer matches about equally: they share its object), those
        whose raw embedding likeness to the answer is within ``scenario_verb_margin`` of the
        most alike: a reworded verb shares no word with its step but is still nearer it in
        meaning ("put on the rubber seal": "Apply ..." 0.93, "Paint ..." 0.77). All of them
        without an encoder or with one candidate."""
        if len(near) < 2 or ctx.index.encoder is None or not answer.strip() or self.scenario_verb_margin is None:
            return near
        sim = ctx.index.similarity(answer, raw=True)
        top = max(sim[n] for n in near)
        return [n for n in near if sim[n] >= top - self.scenario_verb_margin]

    def _chosen(self, ctx: _ChartContext, story: str) -> dict[str, tuple[str, int]]:
        """Checks a story settles by the choice the person made: a sentence with a choice cue
        ("opts to", "decides to") that names a step best, that step being the target of a
        labelled branch of a decision, maps that decision to the step (and the sentence's index
        in the story). The paper's scenario figure grounds "Sophia opts for an online
        calculator" in the check "Is an online calculator available?" and the step it leads to
        (docs/reasoning.md)."""
        import networkx as nx

        out: dict[str, tuple[str, int]] = {}
        for at, sentence in enumerate(_sentences(story)):
            cue = bool(_CHOICE_CUE.search(sentence))
            if not cue and (at == 0 or self.scenario_action_threshold is None):
                continue
            sc = self._question_scores(ctx, sentence)
            steps = [k for k in ctx.index.ids if node_kind(ctx.chart, k) not in ("start", "end", "decision")]
            top = max((sc[k] for k in steps), default=0.0)
            if not cue and top < (self.scenario_action_threshold or 1.0):
                continue
            # a choice is made at a check: among the steps named about as well as the best one
            # ("blend the rubber seal": "Mix the rubber seal", "Pour the rubber seal"), the one a
            # labelled branch leads to (a terminal is no choice: "End" is inside "blend")
            options = [k for k in steps if sc[k] >= max(self.scenario_threshold, top - self.scenario_choice_margin)]
            for n in sorted(options, key=lambda k: (-sc[k], ctx.depth.get(k, 0))):
                deciders = [p for p in ctx.chart.predecessors(n) if node_kind(ctx.chart, p) == "decision"
                            and any(e.target == n and c in ("yes", "no") for e, c in branches(ctx.chart, p))]
                if not cue:
                    # a step done without a choice word settles its check only when no other
                    # branch of it leads there too (the step a skip rejoins is no evidence)
                    deciders = [p for p in deciders if not any(
                        e.target != n and n in nx.descendants(ctx.g, e.target)
                        for e, _ in branches(ctx.chart, p))]
                for p in deciders:
                    out.setdefault(p, (n, at))
                if deciders:
                    break
        return out

    def _step_told_by_meaning(self, ctx: _ChartContext, story: str, steps: set[str]) -> str | None:
        """The one of ``steps`` a story sentence after the opening (which names the task)
        speaks of in words of its own: the step that is the sentence's nearest node by raw
        embedding cosine, at least ``scenario_done_by_meaning``; the first such sentence wins.
        None without an encoder."""
        index = ctx.index
        if index.encoder is None or self.scenario_done_by_meaning is None or not steps:
            return None
        sentences = _sentences(story)[1:]
        if not sentences:
            return None
        sims = index.node_vectors() @ index.encoder.encode(sentences).T
        for j in range(len(sentences)):
            i = int(sims[:, j].argmax())
            if index.ids[i] in steps and float(sims[i, j]) >= self.scenario_done_by_meaning:
                return index.ids[i]
        return None

    @staticmethod
    def _done_before(ctx: _ChartContext, story: str, decision: str, settled_at: int | None = None) -> str | None:
        """The step the story says was done just before it reached ``decision``: a direct
        predecessor (not Start, not a decision) that the sentences between the opening one and
        the one settling ``decision`` (``settled_at``, the index of the sentence that settles it
        by a choice; else the one sharing most words with it) mention; ``None`` when they
        mention none. The gold
        convention includes that step (docs/reasoning.md, "Gold conventions"); stories mention
        it loosely ("has taken care of the tray"), so any shared content word counts, weighted
        by IDF. The opening sentence sets the scene ("Ana wants a loan for a new car"): what
        the person wants is not a step done (the loan example's gold starts at the check)."""
        index = ctx.index
        sentences = _sentences(story)
        dtoks = set(tokens(ctx.chart.nodes[decision].text or ""))
        if len(sentences) < 2 or not dtoks:
            return None
        overlap = [len(dtoks & set(tokens(x))) for x in sentences]
        at = overlap.index(max(overlap))
        if settled_at is not None:
            at = settled_at
        elif overlap[at] == 0:
            return None
        if at < 2:
            return None
        before = set(tokens(" ".join(sentences[1:at])))
        best: tuple[float, str] | None = None
        for p in ctx.chart.predecessors(decision):
            if node_kind(ctx.chart, p) in ("start", "end", "decision"):
                continue
            i = index.ids.index(p)
            w = math.fsum(index.weight(t) for t in index.token_sets[i] & before)
            if w > 0 and (best is None or w > best[0]):
                best = (w, p)
        return best[1] if best else None

    # -- flow referential -----------------------------------------------------------------------
    def _flow(self, ctx: _ChartContext, question: str, answer: str) -> tuple[list[str], str]:
        chart = ctx.chart
        if self.code_checks:
            by_code = self._code_flow(ctx, question, answer)
            if by_code is not None:
                return by_code
        if self.flow_neighbour_pairs:
            pair = self._neighbour_pair(ctx, question, answer)
            if pair is not None:
                return pair
        q = self._question_scores(ctx, question)
        if not re.search(r"\b(start|beginning)\b", question, re.I):
            # "starting from X" does not refer to the Start node ("start" stems alike)
            q.update({n: 0.0 for n in q if node_kind(chart, n) == "start"})
        a = {n: v[1] * 0.6 + v[0] * 0.4 for n, v in ctx.index.scores(answer).items()} if answer.strip() else {n: 0.0 for n in q}
        anchors: list[str] = []
        qtoks, atoks = set(tokens(question)), set(tokens(answer))
        # where the asker is: the node the question names best
        cur = max(ctx.index.ids, key=lambda n: (q[n], -ctx.depth.get(n, 0)))
        if q[cur] >= 0.3:
            anchors.append(cur)
        # other strongly named nodes in the question ("from Start to X", "after A ... before B"),
        # unless their words are already explained by an anchor
        for n in sorted(q, key=lambda n: -q[n])[1:3]:
            if q[n] >= 0.75 and ctx.index.novelty(n, qtoks, anchors) >= 0.5:
                anchors.append(n)
        # what the answer names: up to three distinct nodes, strongest first; the steps around
        # the current one are the likely ones. A count ("how many ...") names no node.
        if anchors:
            for n in set(chart.successors(cur)) | set(chart.predecessors(cur)):
                if a.get(n, 0.0) > 0:
                    a[n] += 0.1
        # a count in the answer ("There are 2 steps") is not a reference to a node saying "2"
        words = {t for t in atoks if not t.isdigit()}
        a = {n: (v if ctx.index.token_sets[ctx.index.ids.index(n)] & words or v >= 0.85 else 0.0) for n, v in a.items()}
        best_a = max(a.values()) if a else 0.0
        if best_a > 0.2:
            from_answer: list[str] = []
            for n in sorted(a, key=lambda n: -a[n])[:3]:
                if a[n] >= max(0.3, 0.6 * best_a) and (not from_answer or ctx.index.novelty(n, atoks, from_answer) >= 0.5):
                    from_answer.append(n)
            anchors.extend(from_answer)
        walk = bool(_WALK.search(question))
        if re.search(r"\b(from|starting from) (the )?'?start", question, re.I) and ctx.starts:
            anchors.append(ctx.starts[0])
        elif walk:
            # "from X to Y" names both ends of the walk, each in its own words
            anchors.extend(n for n in self._walk_ends(ctx, question) if n not in anchors)
        steps_ahead = _NEXT_N.search(question)
        if steps_ahead and anchors:
            # "the next two steps": the walk is the current step and that many successors,
            # each the one the answer names best
            walked = [cur if cur in anchors else anchors[0]]
            for _ in range(_COUNT_WORDS[steps_ahead.group(1).lower()]):
                succ = chart.successors(walked[-1])
                if not succ:
                    break
                walked.append(max(succ, key=lambda n: (a.get(n, 0.0), -ctx.depth.get(n, 0))))
            return list(dict.fromkeys(walked)), "the current step and the steps the question asks for after it"
        if anchors and (len(set(anchors)) == 1 or (cur in anchors and not walk and _ASKS_DECISION.search(question))):
            # the neighbour the cue asks for, unless the anchors hold one already: "what is the
            # immediate next step after X, and what decision led to it?" names the decision
            # before X in the answer, and still asks for the step after X (the paper's example
            # path: decision -> X -> next)
            c = anchors[0] if len(set(anchors)) == 1 else cur
            succ, pred = chart.successors(c), chart.predecessors(c)
            if _NEXT_CUE.search(question) and succ and not set(succ) & set(anchors):
                anchors.append(max(succ, key=lambda n: a.get(n, 0.0)))
            if _PREV_CUE.search(question) and pred and not set(pred) & set(anchors):
                anchors.append(max(pred, key=lambda n: a.get(n, 0.0) + q[n]))
        if not anchors:
            return [self._best_overall(ctx, question, answer)], "no node named strongly; best text match"
        rel = {n: max(q[n], a.get(n, 0.0)) for n in ctx.index.ids}
        # an explicit walk ("how many steps from X to Y", "what series of operations") asks for
        # the whole path however long; otherwise far-apart anchors are not joined
        ids = self._connect(ctx, anchors, rel, question + " " + answer, max_gap=len(chart) if walk else None)
        return ids, "path through the steps the statement walks"


    def _neighbour_pair(self, ctx: _ChartContext, question: str, answer: str) -> tuple[list[str], str] | None:
        """A question about the one step right after or before a step it names ("what should
        you do after you flush it?", "once you escalate the complaint, what is the next step?"):
        the edge whose tail (for "after"; its head for "before") fits the named step and whose
        other end fits the answer best, the two fits added. How-to questions name the step in
        other words, so the step alone is often matched to the wrong node and the anchors of
        `_flow` then walk from it; read as a pair, each end is checked by the other. None when
        the question is no such question (a walk, "the next two steps", a question about a
        check) or gives no answer."""
        if not answer.strip() or _WALK.search(question) or _NEXT_N.search(question):
            return None
        lead = _LEADING_PLACE.match(question)
        if lead is not None and not (lead.group("word").lower() in ("once", "after", "as soon as")
                                     and lead.group("who") and _NEXT_ASK.match(question, lead.end())):
            lead = None  # "once you X, what comes next?" only
        tail = None if lead else _NEIGHBOUR_TAIL.search(question)
        if lead is None and tail is None:
            return None
        named = lead.group("step") if lead else tail.group("x")  # type: ignore[union-attr]
        if _ASKS_DECISION.search(question.replace(named, " ")):
            return None  # "which check comes before X" asks for the check too (`_flow`)
        forward = lead is not None or tail.group("dir").lower() in ("after", "following")  # type: ignore[union-attr]
        fit = self._edge_fit(ctx, named, answer, forward=forward, start_named=bool(re.search(r"\b(start|beginning)\b", question, re.I)))
        if fit is None:
            return None
        return list(fit), "the step the question names and the neighbour the answer names"

    @staticmethod
    def _edge_fit(ctx: _ChartContext, named: str, answer: str, *, forward: bool = True,
                  start_named: bool = False, answer_weight: float = 1.0,
                  check_named: bool = True) -> tuple[str, str] | None:
        """The connected pair (step, neighbour) that ``named`` (a step in other words) and
        ``answer`` fit best together: over the chart's edges (read backwards unless
        ``forward``), the step's fit to ``named`` plus the neighbour's fit to ``answer``
        (lexical scores blended with embedding likeness). The Start node is no named step
        unless ``start_named``, a check none unless ``check_named``. None on a chart with no
        such edges."""
        x = {n: 0.5 * v[0] + 0.5 * v[1] for n, v in ctx.index.scores(named).items()}
        a = {n: 0.6 * v[1] + 0.4 * v[0] for n, v in ctx.index.scores(answer).items()}
        if not start_named:
            x.update({n: 0.0 for n in x if node_kind(ctx.chart, n) == "start"})
        pairs = [(e.source, e.target) if forward else (e.target, e.source) for e in ctx.chart.edges
                 if e.source != e.target]
        if not check_named:
            pairs = [p for p in pairs if node_kind(ctx.chart, p[0]) != "decision"]
        if not pairs:
            return None
        return max(pairs, key=lambda p: (x[p[0]] + answer_weight * a[p[1]], -ctx.depth.get(p[0], 0)))

    def _walk_ends(self, ctx: _ChartContext, question: str) -> list[str]:
        """The two ends of a walk the question names ("from <X> to <Y>"): the text after "from"
        is cut at each "to"/"until"/comma; the cut whose two halves each name one node best (by
        the weaker half's score) gives the ends. Nothing when a half names no node clearly."""
        m = _WALK_FROM.search(question)
        if m is None:
            return []
        rest = question[m.end():]
        best: tuple[float, list[str]] = (0.0, [])
        for cut in list(_WALK_SPLIT.finditer(rest))[:3]:
            head, tail = rest[:cut.start()], rest[cut.end():]
            if len(head.split()) < 2 or len(tail.split()) < 2:
                continue
            sh, st = self._question_scores(ctx, head), self._question_scores(ctx, tail)
            x = max(ctx.index.ids, key=lambda n: (sh[n], -ctx.depth.get(n, 0)))
            y = max(ctx.index.ids, key=lambda n: (st[n], -ctx.depth.get(n, 0)))
            score = min(sh[x], st[y])
            if x != y and score >= 0.3 and score > best[0]:
                best = (score, [x, y])
        return best[1]


def _sentences(text: str) -> list[str]:
    """``text``'s sentences: split after ``.``, ``!`` or ``?`` and the spaces that follow."""
    return [x for x in _SENTENCE_END.split(text.strip()) if x]


# the clause that opens a question or an answer by placing it after or before another step
# ("Once you rinse the jar, ...", "After you have escalated the complaint, what comes next?",
# "Having sanded it, ..."): its word, the clause, and within it who does the step and the step;
# one home for fact questions (`_setting_clause`, `_question_core`), answers (`_answer_core`)
# and flow questions about a neighbour (`_neighbour_pair`). The step ends at a comma or a
# sentence's end, not at a dot inside a name ("once you load file 'log.txt', what follows?")
_LEADING_PLACE = re.compile(r"^\s*(?P<word>after|once|before|as soon as|having|following)\s+"
                            r"(?P<clause>(?:(?P<who>you|i|we)(?: have)?\s+)?(?P<step>(?:[^,;.?!]|\.(?=\S)){3,160})),\s*",
                            re.I)
_CONDITION_CLAUSE = re.compile(r"\b(?:if|when|unless|whether|in case)\b([^,;.?!]{3,160})", re.I)


# "what are the options depending on whether ...": the choices a check offers, none taken
_OPTIONS_ASK = re.compile(r"\b(?:depending on|what are the (?:options|choices|alternatives|possible (?:outcomes|paths|"
                          r"next steps))|possible outcomes of)\b", re.I)
# a question asking for a step rather than a detail of one ("what do you do?", "what follows?")
_STEP_ASK = re.compile(r"^\s*(?:what|which step)\s+(?:do you do|should you do|is done|has to be done|should be done|"
                       r"needs to be done|must be done|follows|comes|happens|is the (?:first|next) (?:thing|step)|"
                       r"do you do first|should be done first)\b", re.I)
# "what is the first thing to do?", "what does the process begin with?"
_FIRST_STEP_ASK = re.compile(r"\b(?:first thing|first step|initial step|do first|begin with|start with|"
                             r"starting point|very first)\b", re.I)
# "what is the final step ...", "how does the process end ..."
_LAST_STEP_ASK = re.compile(r"\b(?:final|last|end|ends|finish|finishes)\b", re.I)
# a first-step question about a branch or a placed step ("what is the first thing to do if ...",
# "... once you X"): not the process's first step; "when making pasta" (a gerund) places nothing
_BRANCH_OR_PLACE = re.compile(r"\b(?:if|unless|whether|in case|once|after|before)\b|\bwhen\s+(?!\w+ing\b)", re.I)
# questions about what a thing is for or which step uses it: the thing
_THING_ASKS = [re.compile(r"^\s*(?:at )?(?:which|what) step\b[^?]*?\b(?:need|needs|calls? for|uses?|requires?)\s+"
                          r"(?P<thing>[^?]{3,80})\?\s*$", re.I),
               re.compile(r"^\s*when does the (?:flowchart|chart|process) (?:have you |tell you to )?use\s+"
                          r"(?P<thing>[^?]{3,80})\?\s*$", re.I),
               re.compile(r"^\s*in which step (?:is|are)\s+(?P<thing>.{3,80}?)\s+used\b", re.I),
               re.compile(r"^\s*what (?:is|are)\s+(?P<thing>.{3,80}?)\s+used for\b", re.I),
               re.compile(r"\bsays?\s+(?P<thing>.{3,80}?)\s+(?:is|are) for\b", re.I),
               re.compile(r"^\s*what do you do with\s+(?P<thing>[^?]{3,80})\?\s*$", re.I)]


_YESNO_STEP_ASK = re.compile(r"^\s*(?:(?:does|do|did) (?:the (?:flow)?chart|it) (?:tell|ask|want|say for|instruct) you to|"
                             r"is there (?:a|any) step (?:where|in which|to|that)|(?:at (?:some|any) point|ever),? do you|"
                             r"do you (?:ever|at some point|have to|need to)|should you)\b", re.I)
_ASKS_CHECK = re.compile(r"\b(?:check|checks|checking|whether|decide|decides|verify|test|tests|if)\b", re.I)


def _asks_whether_a_step(question: str) -> bool:
    """A yes/no question about whether the chart has you do something ("Does the flowchart tell
    you to take out the tube?", "Should you knead the dough?"), not about a check."""
    return bool(_YESNO_STEP_ASK.match(question)) and not _ASKS_CHECK.search(question)


def _setting_clause(question: str) -> tuple[str, str] | None:
    """The clause placing a question after or before another step, opening or closing it
    ("Once you rinse the jar, ..." / "... just before you heat the oil?"): ``(its word, the
    rest)``; the counterpart of what `_question_core` removes."""
    m = _LEADING_PLACE.match(question) or _TRAILING_PLACE.search(question)
    if m is None:
        return None
    return m.group("word"), m.group("clause").strip()


def _answer_core(answer: str, trailing: bool = True) -> str:
    """A fact answer without a leading clause that sets the scene ("After you rinse the jar,
    heat the oil" -> "heat the oil") and, with ``trailing``, without one that closes it ("About
    10 minutes, right after you rinse the jar" -> "About 10 minutes"); the answer itself when
    nothing else is left."""
    core = _LEADING_PLACE.sub("", answer, count=1)
    if trailing:
        core = _TRAILING_SETTING.sub("", core, count=1)
    return core if core.strip() else answer


_EMBEDDED_QUESTION = re.compile(
    r"\b(?:whether|(?:see|tell|find out|know|check|determine|test|verify|learn|ask|asks|asked)\s+if"
    r"|(?:make sure|ensure|confirm)(?:\s+that)?|(?:verify|check)\s+that)\b[^,;.?!]*"
    r"|(?:^|(?<=[.!?]\s))when\s+(?:is|are|was|were|do|does|did|should|can|could|must|will|would|has|have)\b[^,;.?!]*",
    re.I)
_TRAILING_SETTING = re.compile(
    r",\s*(?:right |just |straight |only )?(?:after|once|before|as soon as|following)\b[^,;.?!]{3,120}[.!]?\s*$", re.I)


def _without_embedded_questions(text: str) -> str:
    """``text`` without its embedded questions ("how do you find out whether the glue is dry?"
    -> "how do you find out ?") and an opening "When is / do ..." that asks for a time: what
    they say is asked, not stated."""
    return _EMBEDDED_QUESTION.sub(" ", text)


# the clause that closes a question by placing it ("... just before you heat the oil?")
_TRAILING_PLACE = re.compile(r"\s+(?:right |just )?(?P<word>once|after|before|as soon as)\s+"
                             r"(?P<clause>[^,;.?!]{3,120})(?=\?\s*$)", re.I)


def _question_core(question: str) -> str:
    """A fact question without a clause that places it after (or before) another step, opening
    or closing it ("Once you rinse the jar, how long do you heat the oil?" -> "how long do you
    heat the oil?", "What do you do once you rinse the jar?" -> "What do you do?"); the
    question itself when nothing else is left."""
    core = _TRAILING_PLACE.sub("", _LEADING_PLACE.sub("", question, count=1), count=1)
    return core if core.strip("? ") else question


def _fact_texts(question: str, answer: str) -> list[str]:
    """The texts the fact rules match besides the statement (the answer and question without
    their setting clauses), so they join the statement's one forward pass."""
    return [_answer_core(answer), _question_core(question)]


def _condition_clauses(text: str) -> list[str]:
    """The conditional clauses of a statement: what follows "if" / "when" / "whether" up to the
    clause's end ("if the glue is not dry, ..." -> "the glue is not dry")."""
    return [m.group(1).strip() for m in _CONDITION_CLAUSE.finditer(text) if m.group(1).strip()]


def _scenario_texts(question: str) -> list[str]:
    """The texts the scenario rules embed besides the statement (its numbers' clauses, for
    `_quantities_by_meaning`), so they join the statement's one forward pass. (The story's
    sentences `_checks_named_by_sentences` reads go in a pass of their own: with int8 weights a
    text's vector depends on its pack, and the statement's pack stays as it was.)"""
    from flowpath.reason.branches import value_clauses

    return [c for _, c in value_clauses(_story(question))]


def _settling_sentence(decision: str, story: str) -> int | None:
    """The index of the story's sentence that settles ``decision`` by a number, a bound, a level
    word or an opposite (`branches.read_check`: "the file is missing" for "File exists?"), else
    ``None``. A sentence that merely restates the check's words is left to `_done_before`'s own
    search (a sentence naming the code variable "x" does not settle "x == 42?"), and the
    story's lone number names no sentence."""
    from flowpath.reason.branches import read_check

    for at, sentence in enumerate(_sentences(story)):
        read = read_check(decision, sentence, lone_number=False)
        if read is not None and read[1] != "restated":
            return at
    return None


def _story(question: str) -> str:
    """A scenario without its closing question sentence (what it asks about is not a step
    the story says was done)."""
    sentences = _sentences(question)
    if len(sentences) >= 2 and sentences[-1].endswith("?"):
        return " ".join(sentences[:-1])
    return question


