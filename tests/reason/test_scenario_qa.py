"""The harder scenario generator (data_gen/scenario_qa.py, ``--style scenario``, its long
stories, ``--style story``, and those settling checks by opposites, ``--style contrast``): seeded, and
each gold is the walk docs/reasoning.md's conventions give."""

from __future__ import annotations

import json
import random
import re

import pytest

from data_gen.qa import main
from data_gen.scenario_qa import _bound_clause, scenario_chart, settle_in_words
from flowpath.mermaid import parse_mermaid
from flowpath.reason import classify_question
from flowpath.reason.branches import threshold


def _written(out):
    qs = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    charts = {p.stem: parse_mermaid(json.loads(p.read_text())["mermaid"]) for p in (out / "charts").glob("*.json")}
    return qs, charts


@pytest.mark.parametrize("style", ["scenario", "story", "contrast"])
def test_a_seed_writes_the_same_set_and_another_seed_another(tmp_path, style):
    for name, seed in (("a", 4), ("b", 4), ("c", 5)):
        assert main(["--out", str(tmp_path / name), "--charts", "12", "--seed", str(seed), "--style", style]) == 0
    a, b, c = ((tmp_path / n / "questions.jsonl").read_text() for n in "abc")
    assert a == b and a != c


@pytest.mark.parametrize("style", ["scenario", "story", "contrast"])
def test_every_gold_is_the_walk_from_the_first_settled_check_to_the_answer(tmp_path, style):
    main(["--out", str(tmp_path), "--charts", "60", "--seed", "11", "--style", style])
    qs, charts = _written(tmp_path)
    assert len(qs) >= 100 and {q["type"] for q in qs} == {"applied_scenario"}
    several = 0
    for q in qs:
        chart, gold = charts[q["chart"]], q["gold"]
        g = chart.to_networkx()
        walk = gold[1:] if chart.nodes[gold[0]].kind != "decision" else gold
        # a step said done just before the first check leads into it
        if walk is not gold:
            assert g.has_edge(gold[0], walk[0])
        assert chart.nodes[walk[0]].kind == "decision"
        assert chart.nodes[walk[-1]].kind not in ("decision", "start", "end")
        for u, v in zip(walk, walk[1:], strict=False):
            assert g.has_edge(u, v), (q["id"], u, v)
            if chart.nodes[u].kind == "decision":  # through a labelled branch at every check
                assert any(e.target == v and e.condition in ("yes", "no") for e in chart.out_edges(u))
        several += sum(chart.nodes[n].kind == "decision" for n in walk) >= 2
        # the story is read as a scenario
        assert classify_question(q["question"]) == "applied_scenario", q["question"]
    # most stories settle several checks in sequence (long stories: many of them)
    assert several >= len(qs) // (2 if style == "scenario" else 3)


def test_numeric_checks_compare_each_quantity_once_in_varied_forms():
    rng = random.Random(3)
    forms = set()
    for _ in range(40):
        chart, _, thresholds = scenario_chart(rng)
        subjects = [s for s, _, _ in thresholds.values()]
        assert len(subjects) == len(set(subjects))
        for d, (subject, _, value) in thresholds.items():
            read = threshold(chart.nodes[d].text)
            assert read is not None and read[2] == value, chart.nodes[d].text  # "3,000" and "$" kept readable
            forms.add(re.sub(r"[\d,$]+", "N", chart.nodes[d].text.replace(subject, "Q").replace(subject.capitalize(), "Q")))
    assert len(forms) >= 8


def test_a_settling_clause_states_a_value_on_the_taken_side_of_the_threshold():
    """The number a story gives for a numeric check lies on the side its walk takes (compared
    directly, not through the reasoner's reading)."""
    rng = random.Random(8)
    for _ in range(300):
        subject = rng.choice(["the credit score", "the monthly income", "the applicant's age", "the buffer size"])
        comparison = rng.choice(["above", "greater than", "more than", "at least", "below", "less than", "at most"])
        t, cond = rng.choice([5, 10, 18, 600, 3000]), rng.choice(["yes", "no"])
        clause = settle_in_words("?", (subject, comparison, t), cond, "Ana", rng)
        value = float(re.findall(r"\d{1,3}(?:,\d{3})+|\d+", clause)[-1].replace(",", ""))
        _, cmp, _ = threshold(f"Is {subject} {comparison} {t}?")
        assert cmp(value, t) == (cond == "yes"), (clause, comparison, t, cond)


def test_a_bound_clause_lies_wholly_on_the_taken_side_of_the_threshold():
    """``--style contrast`` tells a number with a comparison word ("earns more than 3,000"); every
    value the bound allows lies on the side the walk takes (compared directly, not through the
    reasoner's reading)."""
    rng = random.Random(9)
    ops = {"more than": ">", "over": ">", "above": ">", "well over": ">", "at least": ">=", "greater than": ">",
           "less than": "<", "under": "<", "below": "<", "just under": "<", "at most": "<="}
    for _ in range(300):
        subject = rng.choice(["the credit score", "the monthly income", "the applicant's age", "the buffer size"])
        comparison = rng.choice(["above", "greater than", "more than", "at least", "below", "less than", "at most"])
        t, cond = rng.choice([5, 10, 18, 600, 3000]), rng.choice(["yes", "no"])
        clause = _bound_clause((subject, comparison, t), cond, "Ana", rng)
        m = re.search(r"(not )?(well over|just under|more than|less than|greater than|at least|at most|over|above|under|below)"
                      r" \$?(\d{1,3}(?:,\d{3})+|\d+)", clause)
        assert m is not None, clause
        op, b = ops[m.group(2)], float(m.group(3).replace(",", ""))
        if m.group(1):
            op = {">": "<=", ">=": "<", "<": ">=", "<=": ">"}[op]
        # the values the bound allows: just past b on its side, and far past it
        eps = 1e-6
        allowed = [b + eps, b + 10 * t] if op == ">" else [b, b + 10 * t] if op == ">=" else \
            [b - eps, b - 10 * t] if op == "<" else [b, b - 10 * t]
        _, cmp, _ = threshold(f"Is {subject} {comparison} {t}?")
        assert all(cmp(v, t) == (cond == "yes") for v in allowed), (clause, comparison, t, cond)
