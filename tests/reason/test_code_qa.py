"""Program flowcharts and code questions (`data_gen.code_qa`, `python -m data_gen.qa --style code`)."""

from __future__ import annotations

import random
import re

from data_gen.code_qa import make_code_questions, random_program


def _programs(seed: int, n: int, draw=random_program, ask=make_code_questions, prefix: str = "p"):
    """``n`` programs drawn with ``draw`` and the questions ``ask`` writes about each."""
    rng = random.Random(seed)
    for i in range(n):
        p = draw(rng)
        yield p, ask(p, f"{prefix}{i}", rng)


def _assert_gold_walks(chart, q) -> None:
    """A question's gold is nodes of the chart and, unless topological, a walk along its edges."""
    assert set(q["gold"]) <= set(chart.nodes)
    if q["type"] != "topological":
        g = chart.to_networkx()
        assert all(g.has_edge(a, b) for a, b in zip(q["gold"], q["gold"][1:], strict=False)), q


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
        for q in questions:
            seen.add(q["type"])
            _assert_gold_walks(p.chart, q)
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


# -- charts drawn from real standard-library functions (`real_program`, `--style realcode`) --

def _real(seed: int, n: int):
    from data_gen.code_qa import make_real_code_questions, real_program

    return _programs(seed, n, real_program, make_real_code_questions, "r")


def test_real_functions_are_drawn_as_flowcharts_people_draw():
    """Start first, every check a diamond with a Yes and a No branch to two different nodes,
    every return leading to the one End, 6-25 nodes, letters in flow order."""
    for p, _ in _real(11, 25):
        chart = p.chart
        assert 6 <= len(chart) <= 25
        assert list(chart.nodes)[0] == "A" and chart.nodes["A"].kind == "start"
        ends = [n for n, m in p.meaning.items() if m == "end"]
        assert len(ends) == 1
        for n, m in p.meaning.items():
            if m in ("check", "loop"):
                assert chart.nodes[n].kind == "decision"
                outs = chart.out_edges(n)
                assert {e.condition for e in outs} == {"yes", "no"} and len({e.target for e in outs}) == 2
            if m == "return":
                assert [e.target for e in chart.out_edges(n)] == ends


def test_real_code_gold_is_a_walk_and_questions_read_as_their_type():
    from flowpath.reason import classify_question

    seen, right, total = set(), 0, 0
    for p, questions in _real(12, 30):
        for q in questions:
            seen.add(q["type"])
            _assert_gold_walks(p.chart, q)
            total += 1
            right += classify_question(q["question"], q["answer"]) == q["type"]
    assert seen == {"fact_retrieval", "applied_scenario", "flow_referential", "topological"}
    assert right >= 0.9 * total


def test_values_in_real_code_stories_send_each_check_down_the_gold_branch():
    """A traced run states values ("n is 4", "items has 0 items"); Python evaluates the check
    with them and must take the branch the gold walks."""
    import ast

    from data_gen.code_qa import settle_words

    checked = 0
    for p, _ in _real(13, 40):
        for test in p.test.values():
            if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
                continue
            for holds in (True, False):
                values: dict = {}
                settle_words(test, None, holds, random.Random(checked), values)
                names = {ast.unparse(n): n for n in ast.walk(test) if isinstance(n, (ast.Name, ast.Attribute))}
                if not values or not set(values) <= set(names) | {
                        ast.unparse(c.args[0]) for c in ast.walk(test) if isinstance(c, ast.Call)}:
                    continue
                env = {k.replace(".", "_"): v for k, v in values.items()}
                expr = ast.unparse(test)
                for k in sorted(values, key=len, reverse=True):
                    expr = expr.replace(f"len({k})", str(values[k])).replace(k, k.replace(".", "_"))
                assert eval(expr, {"__builtins__": {}}, env) == holds, (expr, values)  # noqa: S307
                checked += 1
    assert checked >= 10


def test_real_code_sets_are_deterministic():
    a = [q["question"] for _, qs in _real(14, 8) for q in qs]
    b = [q["question"] for _, qs in _real(14, 8) for q in qs]
    assert a == b
