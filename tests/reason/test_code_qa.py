"""Program flowcharts and code questions (`data_gen.code_qa`, `python -m data_gen.qa --style code`)."""

from __future__ import annotations

import random
import re

from data_gen.code_qa import make_code_questions, random_program


def _programs(seed: int, n: int):
    rng = random.Random(seed)
    for i in range(n):
        p = random_program(rng)
        yield p, make_code_questions(p, f"p{i}", rng)


def test_programs_are_loops_with_code_texts_and_letters_in_flow_order():
    for p, _ in _programs(1, 40):
        chart = p.chart
        assert list(chart.nodes)[0] == "A" and chart.nodes["A"].kind == "start"
        loop = p.role["loop"]
        # the counter update closes the loop: an edge back to the loop's check
        assert p.role["inc"] in chart.predecessors(loop) and chart.nodes[loop].kind == "decision"
        assert {e.condition for e in chart.out_edges(loop)} == {"yes", "no"}
        assert re.search(r"[<>]=?|[!=]=", chart.nodes[loop].text), chart.nodes[loop].text  # a comparison


def test_every_non_topological_gold_is_a_walk_of_the_chart():
    seen = set()
    for p, questions in _programs(2, 60):
        g = p.chart.to_networkx()
        for q in questions:
            seen.add(q["type"])
            assert set(q["gold"]) <= set(p.chart.nodes)
            if q["type"] != "topological":
                assert all(g.has_edge(a, b) for a, b in zip(q["gold"], q["gold"][1:], strict=False)), q
    assert seen == {"fact_retrieval", "applied_scenario", "flow_referential", "topological"}


def test_numbers_in_code_stories_send_the_check_down_the_gold_branch():
    """A story that plugs a value into the check inside the loop ("x is 7" for "x % 2 == 0?")
    takes the branch its gold walks: evaluated here with Python itself, not the reasoner."""
    checked = 0
    for p, questions in _programs(3, 80):
        test = p.role.get("test")
        for q in questions:
            if q["type"] != "applied_scenario" or test not in q["gold"]:
                continue
            x = p.var["x"]
            value = int(re.search(rf"\b{x}\b (?:is now|is|=) (-?\d+)", q["question"]).group(1))
            expr = re.sub(r"^Is\s+", "", p.chart.nodes[test].text.rstrip("?"))
            holds = eval(expr, {"__builtins__": {}}, {x: value})  # noqa: S307 - a generated comparison
            nxt = q["gold"][q["gold"].index(test) + 1]
            edge = next(e for e in p.chart.out_edges(test) if e.target == nxt)
            assert edge.condition == ("yes" if holds else "no"), q["question"]
            checked += 1
    assert checked >= 10
