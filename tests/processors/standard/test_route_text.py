"""RouteText: NiFi's TestRouteText scenarios through the TestRunner."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flowcore.model import ProvenanceEventType
from flowcore.testing import MockFlowFile, TestRunner

RunnerFactory = Callable[..., TestRunner]
STRATEGY = "Matching Strategy"
ANY = "Route to 'matched' if lines matches any condition"
ALL = "Route to 'matched' if line matches all conditions"


def _route(make_runner: RunnerFactory, text: str, **properties: str) -> TestRunner:
    runner = make_runner("RouteText", properties=properties)
    runner.enqueue(text)
    runner.run()
    runner.assert_transfer_count("original", 1)
    return runner


def _by_group(flowfiles: list[MockFlowFile]) -> dict[str, str]:
    return {f.get_attribute("RouteText.Group") or "": f.text() for f in flowfiles}


def test_relationships_follow_the_strategy(make_runner: RunnerFactory) -> None:
    runner = make_runner("RouteText", properties={STRATEGY: "Starts With", "simple": "start"})
    runner.assert_valid()
    names = [str(r) for r in runner.processor.get_relationships({"simple": "start"})]
    assert names == ["original", "unmatched", "simple"]
    names = [
        str(r) for r in runner.processor.get_relationships({"Routing Strategy": ANY, "simple": "x"})
    ]
    assert names == ["original", "unmatched", "matched"]


def test_invalid_configurations(make_runner: RunnerFactory) -> None:
    make_runner("RouteText", properties={STRATEGY: "Starts With"}).assert_not_valid()
    make_runner("RouteText", properties={"simple": "start"}).assert_not_valid()
    make_runner(
        "RouteText", properties={STRATEGY: "Matches Regular Expression", "r": "("}
    ).assert_not_valid()
    make_runner(
        "RouteText", properties={STRATEGY: "Satisfies Expression", "e": "${incomplete"}
    ).assert_not_valid()
    make_runner(
        "RouteText",
        properties={STRATEGY: "Contains", "o": "o", "Grouping Regular Expression": ".*"},
    ).assert_not_valid()


def test_starts_with_case(make_runner: RunnerFactory) -> None:
    runner = _route(
        make_runner, "start middle end\nnot match", **{STRATEGY: "Starts With", "simple": "start"}
    )
    runner.get_flowfiles_for_relationship("simple")[0].assert_content_equals("start middle end\n")
    runner.get_flowfiles_for_relationship("unmatched")[0].assert_content_equals("not match")
    [original] = runner.get_flowfiles_for_relationship("original")
    original.assert_content_equals("start middle end\nnot match")
    original.assert_attribute_equals("RouteText.Route", "original")

    runner = _route(
        make_runner, "START middle end\nnot match", **{STRATEGY: "Starts With", "simple": "start"}
    )
    runner.assert_transfer_count("simple", 0)
    runner = _route(
        make_runner,
        "START middle end\nnot match",
        **{STRATEGY: "Starts With", "simple": "start", "Ignore Case": "true"},
    )
    runner.get_flowfiles_for_relationship("simple")[0].assert_content_equals("START middle end\n")


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_line_endings_kept(make_runner: RunnerFactory, ending: str) -> None:
    runner = _route(
        make_runner,
        f"start middle end{ending}not match",
        **{STRATEGY: "Starts With", "simple": "start"},
    )
    runner.get_flowfiles_for_relationship("simple")[0].assert_content_equals(
        f"start middle end{ending}"
    )
    runner.get_flowfiles_for_relationship("unmatched")[0].assert_content_equals("not match")


@pytest.mark.parametrize(
    ("strategy", "value"),
    [
        ("Ends With", "end"),
        ("Contains", "middle"),
        ("Equals", "start middle end"),
        ("Matches Regular Expression", ".*(mid).*"),
        ("Contains Regular Expression", "(m.d)"),
    ],
)
def test_matching_strategies(make_runner: RunnerFactory, strategy: str, value: str) -> None:
    runner = _route(make_runner, "start middle end\nnot match", **{STRATEGY: strategy, "p": value})
    runner.get_flowfiles_for_relationship("p")[0].assert_content_equals("start middle end\n")
    runner.get_flowfiles_for_relationship("unmatched")[0].assert_content_equals("not match")


def test_contains_ignore_case(make_runner: RunnerFactory) -> None:
    runner = _route(
        make_runner,
        "start middLe end\nnot match",
        **{STRATEGY: "Contains", "p": "MIDDLE", "Ignore Case": "true"},
    )
    runner.get_flowfiles_for_relationship("p")[0].assert_content_equals("start middLe end\n")


def test_line_to_multiple_relationships(make_runner: RunnerFactory) -> None:
    text = "start middle end\nnot match"
    runner = _route(make_runner, text, **{STRATEGY: "Contains", "t": "t", "e": "e", "z": "z"})
    runner.get_flowfiles_for_relationship("t")[0].assert_content_equals(text)
    runner.get_flowfiles_for_relationship("e")[0].assert_content_equals("start middle end\n")
    runner.assert_transfer_count("z", 0)
    runner.assert_transfer_count("unmatched", 0)
    routes = [
        e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.ROUTE
    ]
    assert sorted(e.relationship or "" for e in routes) == ["e", "original", "t"]


@pytest.mark.parametrize(
    ("strategy", "matched", "unmatched"),
    [
        (ANY, "start middle end\nmiddle only\n", "neither"),
        (ALL, "start middle end\n", "middle only\nneither"),
    ],
)
def test_any_and_all(
    make_runner: RunnerFactory, strategy: str, matched: str, unmatched: str
) -> None:
    runner = _route(
        make_runner,
        "start middle end\nmiddle only\nneither",
        **{"Routing Strategy": strategy, STRATEGY: "Contains", "a": "start", "b": "middle"},
    )
    runner.get_flowfiles_for_relationship("matched")[0].assert_content_equals(matched)
    runner.get_flowfiles_for_relationship("unmatched")[0].assert_content_equals(unmatched)


def test_grouping(make_runner: RunnerFactory) -> None:
    runner = _route(
        make_runner,
        "1,hello\n2,world\n1,good-bye",
        **{STRATEGY: "Contains", "Grouping Regular Expression": "(.*?),.*", "o": "o"},
    )
    assert _by_group(runner.get_flowfiles_for_relationship("o")) == {
        "1": "1,hello\n1,good-bye",
        "2": "2,world\n",
    }
    runner = _route(
        make_runner,
        "1,5,hello\n2,5,world\n1,8,good-bye\n1,5,overt",
        **{STRATEGY: "Contains", "Grouping Regular Expression": "(.*?),(.*?),.*", "o": "o"},
    )
    assert _by_group(runner.get_flowfiles_for_relationship("o")) == {
        "1, 5": "1,5,hello\n1,5,overt",
        "2, 5": "2,5,world\n",
        "1, 8": "1,8,good-bye\n",
    }
    runner = _route(
        make_runner,
        "1,hello\n2,world\n1,good-bye\n3,ciao",
        **{STRATEGY: "Contains", "Grouping Regular Expression": "(.*?),.*", "l": "l"},
    )
    assert _by_group(runner.get_flowfiles_for_relationship("l")) == {
        "1": "1,hello\n",
        "2": "2,world\n",
    }
    assert _by_group(runner.get_flowfiles_for_relationship("unmatched")) == {
        "1": "1,good-bye\n",
        "3": "3,ciao",
    }


def test_satisfies_expression(make_runner: RunnerFactory) -> None:
    runner = _route(
        make_runner,
        "hello\n\ngood-bye, you\n    \t\t\n",
        **{
            STRATEGY: "Satisfies Expression",
            "empty": "${line:isEmpty()}",
            "third-line": "${lineNo:equals(3)}",
            "second-field-you": "${line:getDelimitedField(2):trim():equals('you')}",
        },
    )
    runner.get_flowfiles_for_relationship("empty")[0].assert_content_equals("\n    \t\t\n")
    runner.get_flowfiles_for_relationship("third-line")[0].assert_content_equals("good-bye, you\n")
    runner.get_flowfiles_for_relationship("second-field-you")[0].assert_content_equals(
        "good-bye, you\n"
    )
    runner.get_flowfiles_for_relationship("unmatched")[0].assert_content_equals("hello\n")


def test_expression_language_in_values(make_runner: RunnerFactory) -> None:
    runner = make_runner("RouteText", properties={STRATEGY: "Starts With", "p": "${prefix}"})
    runner.enqueue("abc\nxyz\n", {"prefix": "x"})
    runner.run()
    runner.get_flowfiles_for_relationship("p")[0].assert_content_equals("xyz\n")


def test_many_lines_stream(make_runner: RunnerFactory) -> None:
    text = "".join(f"{i % 3},row {i}\n" for i in range(30_000))
    runner = _route(
        make_runner,
        text,
        **{STRATEGY: "Starts With", "zero": "0", "Grouping Regular Expression": "(\\d),.*"},
    )
    [zero] = runner.get_flowfiles_for_relationship("zero")
    assert zero.text() == "".join(f"0,row {i}\n" for i in range(0, 30_000, 3))
    assert len(runner.get_flowfiles_for_relationship("unmatched")) == 2
