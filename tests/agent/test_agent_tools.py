"""The smolagents wrappers: real `smolagents.Tool` objects, validated schemas, error messages,
and one real ToolCallingAgent loop driven by a scripted model."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest

from flowpath.graph import tools as gt
from flowpath.mermaid import parse_mermaid
from tests.markers import REPO_ROOT, require_smolagents

SRC = """flowchart TD
    A(["Start"]) --> B{"Valid?"}
    B -->|Yes| C["Save"]
    B -->|No| D["Reject"]
    C --> E(["End"])
    D --> E
"""


@pytest.fixture()
def tools():
    from flowpath.agent.tools import make_graph_tools

    return {t.name: t for t in make_graph_tools(parse_mermaid(SRC))}


@require_smolagents
def test_one_tool_per_graph_function_with_valid_schema(tools):
    from smolagents import Tool
    from smolagents.tools import AUTHORIZED_TYPES

    assert set(tools) == set(gt.TOOL_FUNCTIONS)
    for name, tool in tools.items():
        assert isinstance(tool, Tool)
        assert type(tool).__name__.endswith("Tool")
        assert tool.output_type in AUTHORIZED_TYPES
        params = inspect.signature(tool.forward).parameters
        assert list(params) == list(tool.inputs)
        fn_params = inspect.signature(gt.TOOL_FUNCTIONS[name]).parameters
        assert list(tool.inputs) == list(fn_params)[1:], name  # same argument names as the paper
        for arg, spec in tool.inputs.items():
            assert spec["description"].strip()
            # nullable in the schema exactly when the argument may be omitted
            assert spec.get("nullable", False) == (params[arg].default is not inspect.Parameter.empty)
        assert len(tool.description) > 40
        # the prompts smolagents renders from them
        assert name in tool.to_code_prompt() and name in tool.to_tool_calling_prompt()


@require_smolagents
def test_tool_prompts_are_generated_from_the_graph_tool_docstrings(tools):
    """One source per prompt: the description is the function's docstring summary plus its
    Returns text, each argument's text is its Args entry; nothing restated by hand."""
    for name, tool in tools.items():
        fn = gt.TOOL_FUNCTIONS[name]
        summary = " ".join(inspect.getdoc(fn).split("\n\n")[0].split())
        assert tool.description.startswith(summary), name
        assert "\nReturns: " in tool.description, name
        assert "$" not in tool.description
        for arg, spec in tool.inputs.items():
            assert f"{arg}: {spec['description']}" in " ".join(inspect.getdoc(fn).split()), (name, arg)
    # the same entry written once in graph/tools.py reaches every tool that takes the argument
    assert len({t.inputs["conditions"]["description"] for t in tools.values() if "conditions" in t.inputs}) == 1


@require_smolagents
def test_tools_on_a_chart_with_a_yes_and_a_no_edge_to_one_node():
    from flowpath.agent.tools import make_graph_tools

    chart = parse_mermaid("flowchart TD\n  A{Ok?} -->|Yes| B\n  A -->|No| B\n  B --> C")
    tools = {t.name: t for t in make_graph_tools(chart)}
    assert [e["label"] for e in tools["get_out_edges"](node_id="A")] == ["Yes", "No"]
    assert tools["out_degree"](node_id="A") == 2 and tools["get_neighbours"](node_id="A") == ["B"]
    assert tools["next_hop"](node_id="A", condition="no") == "B"


@require_smolagents
def test_tools_return_python_values(tools):
    assert tools["get_statement"](node_id="B") == "Valid?"
    assert tools["get_neighbours"](node_id="B", include_statements=True) == {"C": "Save", "D": "Reject"}
    assert tools["bfs"](start_id="A", conditions={"B": "no"}) == ["A", "B", "D", "E"]
    assert tools["dfs"]() == ["A", "B", "C", "E", "D"]
    assert tools["path_between"](start_id="A", end_id="E", conditions={"B": "yes"}) == ["A", "B", "C", "E"]
    assert tools["shortest_path"](start_id="D", end_id="E") == ["D", "E"]
    assert tools["get_ancestors"](node_id="E", levels=1) == ["C", "D"]
    assert tools["get_descendants"](node_id="B") == ["C", "D", "E"]
    assert tools["in_degree"](node_id="E") == 2 and tools["out_degree"](node_id="B") == 2
    assert tools["max_in_degree"]() == {"degree": 2, "nodes": ["E"]}
    assert tools["max_out_degree"]() == {"degree": 2, "nodes": ["B"]}
    assert tools["next_hop"](node_id="B", condition="No") == "D"
    assert tools["next_hop"](node_id="E") is None
    assert tools["is_terminal"](node_id="E") is True
    assert tools["start_nodes"]() == ["A"]
    assert tools["get_out_edges"](node_id="B")[1] == {"target": "D", "label": "No", "condition": "no"}
    # smolagents' own calling convention: one dict of arguments
    assert tools["get_statement"]({"node_id": "C"}) == "Save"


@require_smolagents
@pytest.mark.parametrize("name, kwargs, fragments", [
    ("get_statement", {"node_id": "Z"}, ["Error: Unknown node id 'Z'", "Valid node ids are: A, B, C, D, E"]),
    ("bfs", {"conditions": {"B": "maybe"}}, ["no branch matching 'maybe'", "'Yes' -> C"]),
    ("next_hop", {"node_id": "B"}, ["give the condition"]),
    ("get_ancestors", {"node_id": "E", "levels": -2}, ["levels must be"]),
])
def test_bad_arguments_come_back_as_messages_not_exceptions(tools, name, kwargs, fragments):
    out = tools[name](**kwargs)
    assert isinstance(out, str)
    for frag in fragments:
        assert frag in out


@require_smolagents
def test_smolagents_argument_validation_accepts_omitted_nullable_args(tools):
    from smolagents.tools import validate_tool_arguments

    validate_tool_arguments(tools["bfs"], {})
    validate_tool_arguments(tools["path_between"], {"start_id": "A", "end_id": "E", "conditions": None})
    with pytest.raises(ValueError, match="required"):
        validate_tool_arguments(tools["path_between"], {"start_id": "A"})


@require_smolagents
def test_make_graph_tools_subset_and_bad_name():
    from flowpath.agent.tools import make_graph_tools

    chart = parse_mermaid(SRC)
    assert [t.name for t in make_graph_tools(chart, ["next_hop", "bfs"])] == ["next_hop", "bfs"]
    with pytest.raises(ValueError, match="unknown graph tool"):
        make_graph_tools(chart, ["teleport"])
    with pytest.raises(TypeError, match="needs a FlowChart"):
        make_graph_tools("flowchart TD\nA-->B")  # type: ignore[arg-type]


@require_smolagents
def test_real_tool_calling_agent_runs_the_tools(tools):
    from smolagents import ChatMessage, MessageRole, Model, ToolCallingAgent
    from smolagents.models import ChatMessageToolCall, ChatMessageToolCallFunction

    class ScriptedModel(Model):
        """Stands in for the LLM: returns the scripted tool calls in order."""

        def __init__(self, script):
            super().__init__(model_id="scripted")
            self.script = list(script)
            self.seen: list[str] = []

        def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kw):
            self.seen.append(json.dumps([m.dict() if hasattr(m, "dict") else m for m in messages], default=str))
            name, args = self.script.pop(0)
            call = ChatMessageToolCall(function=ChatMessageToolCallFunction(name=name, arguments=args),
                                       id=f"call_{len(self.seen)}", type="function")
            return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[call])

    model = ScriptedModel([
        ("path_between", {"start_id": "A", "end_id": "E", "conditions": {"B": "no"}}),
        ("get_statement", {"node_id": "Q"}),
        ("final_answer", {"answer": "A, B, D, E"}),
    ])
    agent = ToolCallingAgent(tools=list(tools.values()), model=model, max_steps=5)
    assert agent.run("Which nodes does an invalid input pass through?") == "A, B, D, E"
    # the observations the model saw came from the real tools
    assert "['A', 'B', 'D', 'E']" in model.seen[1]
    assert "Unknown node id 'Q'" in model.seen[2]
    # and the tool descriptions were in the prompt
    assert "path_between" in model.seen[0] and "decision" in model.seen[0]


def test_missing_smolagents_names_the_agent_extra():
    # sys.modules[name] = None is Python's own "this package is not installed" marker: both
    # importlib.util.find_spec and import statements then behave as on a machine without it.
    code = (
        "import sys\n"
        "sys.modules['smolagents'] = None\n"
        "import flowpath.agent  # the package itself stays importable\n"
        "from flowpath.errors import MissingDependencyError\n"
        "try:\n"
        "    from flowpath.agent import make_graph_tools\n"
        "except MissingDependencyError as e:\n"
        "    print('MISSING', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "MISSING" in out.stdout and "flowpath[agent]" in out.stdout
