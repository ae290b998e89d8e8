"""NiFi's own replace_text tests, ported to the TestRunner."""

from __future__ import annotations

from collections.abc import Callable

from flowcore.flow.nifi.mapping import nifi_mapping
from flowcore.testing import TestRunner
from tests.processors.standard.nifi_resources import resource

RunnerFactory = Callable[..., TestRunner]
VARIABLES = {"var1": "foo", "var2": "bar"}


def _substitute_variables(
    runner: TestRunner, content: str, expected: str, mode: str, attributes: dict[str, str]
) -> None:
    runner.set_property("Evaluation Mode", mode)
    runner.set_property("Replacement Strategy", "Substitute Variables")
    runner.enqueue(content, attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(expected)


def test_nifi_literal_replace_with_expression_language_in_search_entire_text(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testLiteralReplaceWithExpressionLanguageInSearchEntireText."""
    runner = make_runner("ReplaceText")
    runner.enqueue("Me, you, and the other", {"search.value": "you, and"})
    runner.set_property("Search Value", "Me, ${search.value}")
    runner.set_property("Replacement Value", '"Replacement"')
    runner.set_property("Evaluation Mode", "Entire text")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals('"Replacement" the other')


def test_nifi_literal_replace_with_expression_language_in_replacement_entire_text(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testLiteralReplaceWithExpressionLanguageInReplacementEntireText."""
    runner = make_runner("ReplaceText")
    runner.enqueue("Me, you, and the other", {"replacement.value": "us"})
    runner.set_property("Search Value", "Me, you,")
    runner.set_property("Replacement Value", "With ${replacement.value}")
    runner.set_property("Evaluation Mode", "Entire text")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("With us and the other")


def test_nifi_literal_replace_with_expression_language_in_search_line_by_line(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testLiteralReplaceWithExpressionLanguageInSearchLineByLine."""
    runner = make_runner("ReplaceText")
    runner.enqueue("Me, you, and the other", {"search.value": "you, and"})
    runner.set_property("Search Value", "Me, ${search.value}")
    runner.set_property("Replacement Value", '"Replacement"')
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals('"Replacement" the other')


def test_nifi_literal_replace_with_expression_language_in_replacement_line_by_line(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testLiteralReplaceWithExpressionLanguageInReplacementLineByLine."""
    runner = make_runner("ReplaceText")
    runner.enqueue("Me, you, and the other", {"replacement.value": "us"})
    runner.set_property("Search Value", "Me, you,")
    runner.set_property("Replacement Value", "With ${replacement.value}")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("With us and the other")


def test_nifi_configuration_corner_case(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testConfigurationCornerCase."""
    runner = make_runner("ReplaceText")
    hello_text = resource("hello.txt")
    runner.run()
    runner.enqueue(hello_text)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(hello_text)


def test_nifi_iterative_regex_replace(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testIterativeRegexReplace."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", '"([a-z]+?)":"(.*?)"')
    runner.set_property("Replacement Value", '"${\'$1\':toUpper()}":"$2"')
    runner.enqueue('{"name":"Smith","middle":"nifi","firstname":"John"}')
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals('{"NAME":"Smith","MIDDLE":"nifi","FIRSTNAME":"John"}')


def test_nifi_iterative_regex_replace_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testIterativeRegexReplaceLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", '"([a-z]+?)":"(.*?)"')
    runner.set_property("Replacement Value", '"${\'$1\':toUpper()}":"$2"')
    runner.enqueue('{"name":"Smith","middle":"nifi","firstname":"John"}')
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals('{"NAME":"Smith","MIDDLE":"nifi","FIRSTNAME":"John"}')


def test_nifi_simple(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testSimple."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "ell")
    runner.set_property("Replacement Value", "lle")
    runner.enqueue(resource("hello.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(b"Hlleo, World!")


def test_nifi_with_escaped_dollar_sign_in_replacement(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testWithEscapedDollarSignInReplacement."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "(?s:^.*$)")
    runner.set_property("Replacement Value", "a\\$b")
    runner.enqueue("a$a,b,c,d")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(b"a\\$b")


def test_nifi_with_un_escaped_dollar_sign_in_replacement(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testWithUnEscapedDollarSignInReplacement."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "(?s:^.*$)")
    runner.set_property("Replacement Value", "a$b")
    runner.enqueue("a$a,b,c,d")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(b"a$b")


def test_nifi_prepend_simple(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testPrependSimple."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "TEST")
    runner.set_property("Replacement Strategy", "Prepend")
    runner.enqueue(resource("hello.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(b"TESTHello, World!")


def test_nifi_prepend_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testPrependLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "_")
    runner.set_property("Replacement Strategy", "Prepend")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.enqueue(b"hello\nthere\nmadam")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(b"_hello\n_there\n_madam")


def test_nifi_prepend_first_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testPrependFirstLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "_")
    runner.set_property("Replacement Strategy", "Prepend")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "First-Line")
    runner.enqueue(b"hello\nthere\nmadam")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(b"_hello\nthere\nmadam")


def test_nifi_prepend_last_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testPrependLastLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "_")
    runner.set_property("Replacement Strategy", "Prepend")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Last-Line")
    runner.enqueue(b"hello\nthere\nmadam")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(b"hello\nthere\n_madam")


def test_nifi_prepend_except_first_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testPrependExceptFirstLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "_")
    runner.set_property("Replacement Strategy", "Prepend")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Except-First-Line")
    runner.enqueue(b"hello\nthere\nmadam")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(b"hello\n_there\n_madam")


def test_nifi_prepend_except_last_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testPrependExceptLastLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "_")
    runner.set_property("Replacement Strategy", "Prepend")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Except-Last-Line")
    runner.enqueue(b"hello\nthere\nmadam")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(b"_hello\n_there\nmadam")


def test_nifi_append_simple(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAppendSimple."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "TEST")
    runner.set_property("Replacement Strategy", "Append")
    runner.enqueue(resource("hello.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(b"Hello, World!TEST")


def test_nifi_append_with_carriage_return(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAppendWithCarriageReturn."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "!")
    runner.set_property("Replacement Strategy", "Append")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.enqueue(b"hello\rthere\rsir")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("hello!\rthere!\rsir!")


def test_nifi_append_first_line_with_carriage_return(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAppendFirstLineWithCarriageReturn."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "!")
    runner.set_property("Replacement Strategy", "Append")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "First-Line")
    runner.enqueue(b"hello\rthere\rsir")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("hello!\rthere\rsir")


def test_nifi_append_except_first_line_with_carriage_return(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAppendExceptFirstLineWithCarriageReturn."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "!")
    runner.set_property("Replacement Strategy", "Append")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Except-First-Line")
    runner.enqueue(b"hello\rthere\rsir")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("hello\rthere!\rsir!")


def test_nifi_append_last_line_with_carriage_return(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAppendLastLineWithCarriageReturn."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "!")
    runner.set_property("Replacement Strategy", "Append")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Last-Line")
    runner.enqueue(b"hello\rthere\rsir")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("hello\rthere\rsir!")


def test_nifi_append_except_last_line_with_carriage_return(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAppendExceptLastLineWithCarriageReturn."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "!")
    runner.set_property("Replacement Strategy", "Append")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Except-Last-Line")
    runner.enqueue(b"hello\rthere\rsir")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("hello!\rthere!\rsir")


def test_nifi_append_with_new_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAppendWithNewLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "!")
    runner.set_property("Replacement Strategy", "Append")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.enqueue(b"hello\nthere\nsir")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("hello!\nthere!\nsir!")


def test_nifi_append_with_carriage_return_new_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAppendWithCarriageReturnNewLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "!")
    runner.set_property("Replacement Strategy", "Append")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.enqueue(b"hello\r\nthere\r\nsir")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("hello!\r\nthere!\r\nsir!")


def test_nifi_append_first_line_with_carriage_return_new_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAppendFirstLineWithCarriageReturnNewLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "!")
    runner.set_property("Replacement Strategy", "Append")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "First-Line")
    runner.enqueue(b"hello\r\nthere\r\nsir")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("hello!\r\nthere\r\nsir")


def test_nifi_append_last_line_with_carriage_return_new_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAppendLastLineWithCarriageReturnNewLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "!")
    runner.set_property("Replacement Strategy", "Append")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Last-Line")
    runner.enqueue(b"hello\r\nthere\r\nsir")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("hello\r\nthere\r\nsir!")


def test_nifi_append_except_fist_line_with_carriage_return_new_line(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testAppendExceptFistLineWithCarriageReturnNewLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "!")
    runner.set_property("Replacement Strategy", "Append")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Except-First-Line")
    runner.enqueue(b"hello\r\nthere\r\nsir")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("hello\r\nthere!\r\nsir!")


def test_nifi_append_except_last_line_with_carriage_return_new_line(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testAppendExceptLastLineWithCarriageReturnNewLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "!")
    runner.set_property("Replacement Strategy", "Append")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Except-Last-Line")
    runner.enqueue(b"hello\r\nthere\r\nsir")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("hello!\r\nthere!\r\nsir")


def test_nifi_literal_simple(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testLiteralSimple."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "ell")
    runner.set_property("Replacement Value", "lle")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.enqueue(resource("hello.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(b"Hlleo, World!")


def test_nifi_literal_back_reference(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testLiteralBackReference."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "ell")
    runner.set_property("Replacement Value", "[$1]")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.enqueue(resource("hello.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("H[$1]o, World!")


def test_nifi_literal(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testLiteral."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", ".ell.")
    runner.set_property("Replacement Value", "test")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.enqueue(resource("hello.txt"))
    runner.run()
    runner.enqueue(b"H.ell.o, World! .ell.")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 2)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("Hello, World!")
    out2 = runner.get_flowfiles_for_relationship("success")[1]
    out2.assert_content_equals("Htesto, World! test")


def test_nifi_back_reference(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testBackReference."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "(ell)")
    runner.set_property("Replacement Value", "[$1]")
    runner.enqueue(resource("hello.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("H[ell]o, World!")


def test_nifi_back_ref_followed_by_numbers(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testBackRefFollowedByNumbers."""
    runner = make_runner("ReplaceText")
    expected = "Hell23o, World!"
    runner.set_property("Search Value", "(ell)")
    runner.set_property("Replacement Value", "$123")
    attributes: dict[str, str] = {}
    attributes["abc"] = "notSupported"
    runner.enqueue(resource("hello.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    actual = out.content.decode()
    assert actual == expected


def test_nifi_back_ref_with_no_capturing_group(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testBackRefWithNoCapturingGroup."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "ell")
    runner.set_property("Replacement Value", "$0123")
    attributes: dict[str, str] = {}
    attributes["abc"] = "notSupported"
    runner.enqueue(resource("hello.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    actual = out.content.decode()
    assert actual == "Hell123o, World!"


def test_nifi_replacement_with_expression_language(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testReplacementWithExpressionLanguage."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "${replaceKey}")
    runner.set_property("Replacement Value", "GoodBye")
    attributes: dict[str, str] = {}
    attributes["replaceKey"] = "H.*o"
    runner.enqueue(resource("hello.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("Hello, World!")


def test_nifi_replacement_with_expression_language_is_escaped(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testReplacementWithExpressionLanguageIsEscaped."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "(ell)")
    runner.set_property("Replacement Value", "[${abc}]")
    attributes: dict[str, str] = {}
    attributes["abc"] = "$1"
    runner.enqueue(resource("hello.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("H[$1]o, World!")


def test_nifi_regex_with_expression_language(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testRegexWithExpressionLanguage."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "${replaceKey}")
    runner.set_property("Replacement Value", "${replaceValue}")
    attributes: dict[str, str] = {}
    attributes["replaceKey"] = "Hello"
    attributes["replaceValue"] = "Good-bye"
    runner.enqueue(resource("hello.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("Good-bye, World!")


def test_nifi_regex_with_expression_language_is_escaped(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testRegexWithExpressionLanguageIsEscaped."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "${replaceKey}")
    runner.set_property("Replacement Value", "${replaceValue}")
    attributes: dict[str, str] = {}
    attributes["replaceKey"] = "H.*o"
    attributes["replaceValue"] = "Good-bye"
    runner.enqueue(resource("hello.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("Hello, World!")


def test_nifi_back_reference_with_too_large_of_index_is_escaped(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testBackReferenceWithTooLargeOfIndexIsEscaped."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "(ell)")
    runner.set_property("Replacement Value", "$1$2")
    attributes: dict[str, str] = {}
    attributes["replaceKey"] = "H.*o"
    attributes["replaceValue"] = "Good-bye"
    runner.enqueue(resource("hello.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("Hell$2o, World!")


def test_nifi_back_reference_with_invalid_reference_is_escaped(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testBackReferenceWithInvalidReferenceIsEscaped."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "(ell)")
    runner.set_property("Replacement Value", "$d")
    attributes: dict[str, str] = {}
    attributes["replaceKey"] = "H.*o"
    attributes["replaceValue"] = "Good-bye"
    runner.enqueue(resource("hello.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("H$do, World!")


def test_nifi_escaping_dollar_sign(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testEscapingDollarSign."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "(ell)")
    runner.set_property("Replacement Value", "\\$1")
    attributes: dict[str, str] = {}
    attributes["replaceKey"] = "H.*o"
    attributes["replaceValue"] = "Good-bye"
    runner.enqueue(resource("hello.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("H$1o, World!")


def test_nifi_replace_with_empty_string(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testReplaceWithEmptyString."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "(ell)")
    runner.set_property("Replacement Value", "")
    runner.enqueue(resource("hello.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("Ho, World!")


def test_nifi_with_no_match(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testWithNoMatch."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "Z")
    runner.set_property("Replacement Value", "Morning")
    runner.enqueue(resource("hello.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("Hello, World!")


def test_nifi_with_multiple_matches(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testWithMultipleMatches."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "l")
    runner.set_property("Replacement Value", "R")
    runner.enqueue(resource("hello.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("HeRRo, WorRd!")


def test_nifi_attribute_to_content(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAttributeToContent."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", ".*")
    runner.set_property("Replacement Value", "${abc}")
    attributes: dict[str, str] = {}
    attributes["abc"] = "Good"
    runner.enqueue(resource("hello.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("Good")


def test_nifi_routes_to_failure_if_too_large(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testRoutesToFailureIfTooLarge."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "[123]")
    runner.set_property("Maximum Buffer Size", "1 b")
    runner.set_property("Replacement Value", "${abc}")
    runner.set_property("Evaluation Mode", "Entire text")
    attributes: dict[str, str] = {}
    attributes["abc"] = "Good"
    runner.enqueue(resource("hello.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_nifi_routes_to_failure_if_line_too_large(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testRoutesToFailureIfLineTooLarge."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "[123]")
    runner.set_property("Maximum Buffer Size", "5 kb")
    runner.set_property("Replacement Value", "${abc}")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    attributes: dict[str, str] = {}
    attributes["abc"] = "Good"
    runner.enqueue(resource("TestReplaceTextLineByLine/apacheLicenseOnOneLine.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_nifi_routes_to_success_if_too_large_but_regex_is_dot_asterisk(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testRoutesToSuccessIfTooLargeButRegexIsDotAsterisk."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", ".*")
    runner.set_property("Maximum Buffer Size", "1 b")
    runner.set_property("Replacement Value", "${abc}")
    attributes: dict[str, str] = {}
    attributes["abc"] = "Good"
    runner.enqueue(resource("hello.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("Good")


def test_nifi_problematic_case1(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testProblematicCase1."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", ".*")
    runner.set_property(
        "Replacement Value",
        "${filename}\t${now():format(\"yyyy/MM/dd'T'HHmmss'Z'\")}\t${fileSize}\n",
    )
    attributes: dict[str, str] = {}
    attributes["filename"] = "abc.txt"
    runner.enqueue(resource("hello.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out_content = out.content.decode()
    assert out_content.startswith("abc.txt\t")
    assert out_content.endswith("13\n")


def test_nifi_get_existing_content(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testGetExistingContent."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "(?s)(^.*)")
    runner.set_property(
        "Replacement Value", "attribute header\n\n${filename}\n\ndata header\n\n$1\n\nfooter"
    )
    runner.set_property("Evaluation Mode", "Entire text")
    attributes: dict[str, str] = {}
    attributes["filename"] = "abc.txt"
    runner.enqueue(b"Hello\nWorld!", attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out_content = out.content.decode()
    assert out_content == "attribute header\n\nabc.txt\n\ndata header\n\nHello\nWorld!\n\nfooter"


def test_nifi_replace_within_curly_braces(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testReplaceWithinCurlyBraces."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", ".+")
    runner.set_property("Replacement Value", "{ ${filename} }")
    attributes: dict[str, str] = {}
    attributes["filename"] = "abc.txt"
    runner.enqueue(b"Hello", attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("{ abc.txt }")


def test_nifi_default_replacement(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testDefaultReplacement."""
    runner = make_runner("ReplaceText")
    default_value = "default-replacement-value"
    # leave the default regex settings
    runner.set_property("Replacement Value", default_value)
    attributes: dict[str, str] = {}
    runner.enqueue(b"original-text", attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(default_value)


def test_nifi_default_multiline_replacement(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testDefaultMultilineReplacement."""
    runner = make_runner("ReplaceText")
    default_value = "default-replacement-value"
    # leave the default regex settings
    runner.set_property("Replacement Value", default_value)
    runner.set_property("Evaluation Mode", "Entire text")
    attributes: dict[str, str] = {}
    runner.enqueue(
        ("original-text-line-1" + "\n" + "original-text-line-2").encode(),
        attributes,
    )
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(default_value)


def test_nifi_simple_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testSimpleLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "odo")
    runner.set_property("Replacement Value", "ood")
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/food.txt"))


def test_nifi_zero_byte_content_file_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testZeroByteContentFileLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "odo")
    runner.set_property("Replacement Value", "ood")
    zero_byte_file = b""
    runner.enqueue(zero_byte_file)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(zero_byte_file)


def test_nifi_prepend_simple_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testPrependSimpleLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Replacement Strategy", "Prepend")
    runner.set_property("Replacement Value", "TEST ")
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/PrependLineByLineTest.txt"))


def test_nifi_append_simple_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAppendSimpleLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Replacement Strategy", "Append")
    runner.set_property("Replacement Value", " TEST")
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/AppendLineByLineTest.txt"))


def test_nifi_append_endline_cr(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAppendEndlineCR."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Replacement Value", "TEST")
    runner.set_property("Replacement Strategy", "Append")
    runner.enqueue(b"Hello \rWorld \r")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(b"Hello TEST\rWorld TEST\r")


def test_nifi_append_endline_crlf(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAppendEndlineCRLF."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Replacement Value", "TEST")
    runner.set_property("Replacement Strategy", "Append")
    runner.enqueue(b"Hello \r\nWorld \r\n")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(b"Hello TEST\r\nWorld TEST\r\n")


def test_nifi_simple_literal(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testSimpleLiteral."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "odo")
    runner.set_property("Replacement Value", "ood")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/food.txt"))


def test_nifi_literal_back_reference_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testLiteralBackReferenceLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "jo")
    runner.set_property("Replacement Value", "[$1]")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/cu[$1]_Po[$1].txt"))


def test_nifi_literal_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testLiteralLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", ".ell.")
    runner.set_property("Replacement Value", "test")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.enqueue(b"H.ell.o, World! .ell. \n .ell. .ell.")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("Htesto, World! test \n test test")


def test_nifi_back_reference_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testBackReferenceLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "(DODO)")
    runner.set_property("Replacement Value", "[$1]")
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/[DODO].txt"))


def test_nifi_replacement_with_expression_language_is_escaped_line_by_line(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testReplacementWithExpressionLanguageIsEscapedLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "(jo)")
    runner.set_property("Replacement Value", "[${abc}]")
    attributes: dict[str, str] = {}
    attributes["abc"] = "$1"
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/cu[$1]_Po[$1].txt"))


def test_nifi_regex_with_expression_language_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testRegexWithExpressionLanguageLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "${replaceKey}")
    runner.set_property("Replacement Value", "${replaceValue}")
    attributes: dict[str, str] = {}
    attributes["replaceKey"] = "Riley"
    attributes["replaceValue"] = "Spider"
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/Spider.txt"))


def test_nifi_regex_with_expression_language_is_escaped_line_by_line(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testRegexWithExpressionLanguageIsEscapedLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "${replaceKey}")
    runner.set_property("Replacement Value", "${replaceValue}")
    attributes: dict[str, str] = {}
    attributes["replaceKey"] = "R.*y"
    attributes["replaceValue"] = "Spider"
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/testFile.txt"))


def test_nifi_back_reference_with_too_large_of_index_is_escaped_line_by_line(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testBackReferenceWithTooLargeOfIndexIsEscapedLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "(lu)")
    runner.set_property("Replacement Value", "$1$2")
    attributes: dict[str, str] = {}
    attributes["replaceKey"] = "R.*y"
    attributes["replaceValue"] = "Spiderman"
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/Blu$2e_clu$2e.txt"))


def test_nifi_back_reference_with_too_large_of_index_is_escaped_first_line(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testBackReferenceWithTooLargeOfIndexIsEscapedFirstLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "First-Line")
    runner.set_property("Search Value", "(H)")
    runner.set_property("Replacement Value", "$1$2")
    attributes: dict[str, str] = {}
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/ReplaceFirstLine.txt"))


def test_nifi_back_reference_with_too_large_of_index_is_escaped_last_line(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testBackReferenceWithTooLargeOfIndexIsEscapedLastLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Last-Line")
    runner.set_property("Search Value", "(O)")
    runner.set_property("Replacement Value", "$1$2")
    attributes: dict[str, str] = {}
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/ReplaceLastLine.txt"))


def test_nifi_back_reference_with_too_large_of_index_is_escaped_except_first_line(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testBackReferenceWithTooLargeOfIndexIsEscapedExceptFirstLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Except-First-Line")
    runner.set_property("Search Value", "(H)")
    runner.set_property("Replacement Value", "$1$2")
    attributes: dict[str, str] = {}
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/ReplaceExceptFirstLine.txt"))


def test_nifi_back_reference_with_too_large_of_index_is_escaped_except_last_line(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testBackReferenceWithTooLargeOfIndexIsEscapedExceptLastLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Except-Last-Line")
    runner.set_property("Search Value", "(O)")
    runner.set_property("Replacement Value", "$1$2")
    attributes: dict[str, str] = {}
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/ReplaceExceptLastLine.txt"))


def test_nifi_literal_back_reference_fist_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testLiteralBackReferenceFistLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "First-Line")
    runner.set_property("Search Value", "H")
    runner.set_property("Replacement Value", "[$1]")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/LiteralReplaceFirstLine.txt"))


def test_nifi_literal_back_reference_except_first_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testLiteralBackReferenceExceptFirstLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Except-First-Line")
    runner.set_property("Search Value", "H")
    runner.set_property("Replacement Value", "[$1]")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(
        resource("TestReplaceTextLineByLine/LiteralReplaceExceptFirstLine.txt")
    )


def test_nifi_literal_back_reference_last_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testLiteralBackReferenceLastLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Last-Line")
    runner.set_property("Search Value", "O")
    runner.set_property("Replacement Value", "[$1]")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/LiteralReplaceLastLine.txt"))


def test_nifi_literal_back_reference_except_last_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testLiteralBackReferenceExceptLastLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Line-by-Line Evaluation Mode", "Except-Last-Line")
    runner.set_property("Search Value", "O")
    runner.set_property("Replacement Value", "[$1]")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(
        resource("TestReplaceTextLineByLine/LiteralReplaceExceptLastLine.txt")
    )


def test_nifi_back_reference_with_invalid_reference_is_escaped_line_by_line(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testBackReferenceWithInvalidReferenceIsEscapedLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "(ew)")
    runner.set_property("Replacement Value", "$d")
    attributes: dict[str, str] = {}
    attributes["replaceKey"] = "H.*o"
    attributes["replaceValue"] = "Good-bye"
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/D$d_h$d.txt"))


def test_nifi_escaping_dollar_sign_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testEscapingDollarSignLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "(DO)")
    runner.set_property("Replacement Value", "\\$1")
    attributes: dict[str, str] = {}
    attributes["replaceKey"] = "H.*o"
    attributes["replaceValue"] = "Good-bye"
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/$1$1.txt"))


def test_nifi_replace_with_empty_string_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testReplaceWithEmptyStringLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "(jo)")
    runner.set_property("Replacement Value", "")
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/cu_Po.txt"))


def test_nifi_with_no_match_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testWithNoMatchLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "Z")
    runner.set_property("Replacement Value", "Morning")
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/testFile.txt"))


def test_nifi_with_multiple_matches_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testWithMultipleMatchesLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "l")
    runner.set_property("Replacement Value", "R")
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(resource("TestReplaceTextLineByLine/BRue_cRue_RiRey.txt"))


def test_nifi_attribute_to_content_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAttributeToContentLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", ".*")
    runner.set_property("Replacement Value", "${abc}")
    attributes: dict[str, str] = {}
    attributes["abc"] = "Good"
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("Good\nGood\nGood\nGood\nGood\nGood\nGood\nGood\nGood\nGood\nGood")


def test_nifi_attribute_to_content_windows(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAttributeToContentWindows."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", ".*")
    runner.set_property("Replacement Value", "${abc}")
    attributes: dict[str, str] = {}
    attributes["abc"] = "Good"
    runner.enqueue(b"<<<HEADER>>>\r\n<<BODY>>\r\n<<<FOOTER>>>\r", attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("Good\r\nGood\r\nGood\r")


def test_nifi_problematic_case1_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testProblematicCase1LineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", ".*")
    runner.set_property(
        "Replacement Value",
        "${filename}\t${now():format(\"yyyy/MM/dd'T'HHmmss'Z'\")}\t${fileSize}\n",
    )
    attributes: dict[str, str] = {}
    attributes["filename"] = "abc.txt"
    runner.enqueue(resource("TestReplaceTextLineByLine/testFile.txt"), attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out_content = out.content.decode()
    assert out_content.startswith("abc.txt\t")
    assert out_content.endswith("193\n") or out_content.endswith("203\r\n")


def test_nifi_get_existing_content_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testGetExistingContentLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "(?s)(^.*)")
    runner.set_property(
        "Replacement Value", "attribute header\n\n${filename}\n\ndata header\n\n$1\n\nfooter\n"
    )
    attributes: dict[str, str] = {}
    attributes["filename"] = "abc.txt"
    runner.enqueue(b"Hello\nWorld!", attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out_content = out.content.decode()
    line_content = "attribute header\n\nabc.txt\n\ndata header\n\n"
    expected_content = line_content + "Hello\n\n\nfooter\n" + line_content + "World!\n\nfooter\n"
    assert out_content == expected_content


def test_nifi_capturing_group_in_expression_language(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testCapturingGroupInExpressionLanguage."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "(.*?),(.*?),(\\d+.*)")
    runner.set_property(
        "Replacement Value", "$1,$2,${ '$3':toDate('ddMMMyyyy'):format('yyyy/MM/dd') }"
    )
    csv_in = "2006,10-01-2004,10may2004\n2007,15-05-2006,10jun2005\r\n2009,8-8-2008,10aug2008"
    expected_csv_out = (
        "2006,10-01-2004,2004/05/10\n2007,15-05-2006,2005/06/10\r\n2009,8-8-2008,2008/08/10"
    )
    runner.enqueue(csv_in.encode())
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(expected_csv_out)


def test_nifi_capturing_group_in_expression_language2(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testCapturingGroupInExpressionLanguage2."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Search Value", "(.*)/(.*?).jpg")
    runner.set_property("Replacement Value", "$1/${ '$2':substring(0,1) }.png")
    csv_in = (
        "1,2,3,https://123.jpg,email@mydomain.com\n3,2,1,https://321.jpg,other.email@mydomain.com"
    )
    expected_csv_out = (
        "1,2,3,https://1.png,email@mydomain.com\n3,2,1,https://3.png,other.email@mydomain.com"
    )
    runner.enqueue(csv_in.encode())
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals(expected_csv_out)


def test_nifi_always_replace_entire_text(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAlwaysReplaceEntireText."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Entire text")
    runner.set_property("Replacement Strategy", "Always Replace")
    runner.set_property("Search Value", "i do not exist anywhere in the text")
    runner.set_property("Replacement Value", "${filename}")
    attributes: dict[str, str] = {}
    attributes["filename"] = "abc.txt"
    runner.enqueue(b"Hello\nWorld!", attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("abc.txt")


def test_nifi_always_replace_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testAlwaysReplaceLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    runner.set_property("Replacement Strategy", "Always Replace")
    runner.set_property("Search Value", "i do not exist anywhere in the text")
    runner.set_property("Replacement Value", "${filename}")
    attributes: dict[str, str] = {}
    attributes["filename"] = "abc.txt"
    runner.enqueue(b"Hello\nWorld!\r\ntoday!\n", attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("abc.txt\nabc.txt\r\nabc.txt\n")


def test_nifi_regex_with_bad_capture_group(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testRegexWithBadCaptureGroup."""
    runner = make_runner("ReplaceText")
    # Test the old Default Regex and with a custom Replacement Value that should fail because the
    # Perl regex "(?s:^.*$)" must be written "(?s)(^.*$)" in Java for there to be a capture group.
    #      private static String DEFAULT_REGEX = "(?s:^.*$)"
    runner.set_property("Search Value", "(?s:^.*$)")
    runner.set_property("Replacement Value", "${'$1':toUpper()}")  # there is no group
    runner.set_property("Replacement Strategy", "Regex Replace")
    runner.set_property("Evaluation Mode", "Entire text")
    runner.enqueue(b"testing\n123")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("")


def test_nifi_regex_with_good_capture_group(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testRegexWithGoodCaptureGroup."""
    runner = make_runner("ReplaceText")
    # Test the new Default Regex and with a custom Replacement Values that should succeed.
    runner.set_property("Search Value", "(?s)(^.*$)")
    runner.set_property("Replacement Value", "${'$1':toUpper()}")  # a good Java group
    runner.set_property("Replacement Strategy", "Regex Replace")
    runner.set_property("Evaluation Mode", "Entire text")
    runner.enqueue(b"testing\n123")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("TESTING\n123")


def test_nifi_regex_no_capture_default_replacement(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testRegexNoCaptureDefaultReplacement."""
    runner = make_runner("ReplaceText")
    # Test the old Default Regex and new Default Regex with the default replacement.
    # NiFi fails because the regex does not create a capture group.
    runner.set_property("Search Value", "(?s:^.*$)")
    runner.set_property("Replacement Value", "$1")
    runner.set_property("Replacement Strategy", "Regex Replace")
    runner.set_property("Evaluation Mode", "Entire text")
    runner.enqueue(b"testing\n123")
    # NiFi throws IndexOutOfBoundsException ("No group 1"); flowcore routes it to failure
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals("testing\n123")


def test_nifi_processor_configuration_regex_not_valid(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testProcessorConfigurationRegexNotValid."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "(?<!\\),*")
    runner.set_property("Replacement Value", "hello")
    runner.set_property("Replacement Strategy", "Regex Replace")
    runner.set_property("Evaluation Mode", "Entire text")
    runner.assert_not_valid()
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.assert_valid()
    runner.enqueue(b"(?<!\\),*")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("hello")
    runner.set_property("Search Value", "")
    runner.assert_not_valid()
    runner.set_property("Replacement Strategy", "Append")
    runner.assert_valid()
    runner.set_property("Replacement Strategy", "Prepend")
    runner.assert_valid()
    runner.set_property("Replacement Strategy", "Always Replace")
    runner.assert_valid()


def test_nifi_surround_with_entire_text(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testSurroundWithEntireText."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Strategy", "Surround")
    runner.set_property("Text to Prepend", "<pre>")
    runner.set_property("Text to Append", "<post>")
    runner.set_property("Evaluation Mode", "Entire text")
    input = "Hello\nThere\nHow are you\nToday?"
    runner.enqueue(input)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    output = runner.get_flowfiles_for_relationship("success")[0]
    output.assert_content_equals("<pre>" + input + "<post>")


def test_nifi_surround_line_by_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testSurroundLineByLine."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Strategy", "Surround")
    runner.set_property("Text to Prepend", "<pre>")
    runner.set_property("Text to Append", "<post>")
    runner.set_property("Evaluation Mode", "Line-by-Line")
    input = "Hello\nThere\nHow are you\nToday?"
    runner.enqueue(input)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    output = runner.get_flowfiles_for_relationship("success")[0]
    output.assert_content_equals(
        "<pre>Hello<post>\n<pre>There<post>\n<pre>How are you<post>\n<pre>Today?<post>"
    )


def test_nifi_back_reference_escape_with_regex_replace_using_el(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testBackReferenceEscapeWithRegexReplaceUsingEL."""
    runner = make_runner("ReplaceText")
    runner.set_property("Search Value", "(?s)(^.*$)")
    runner.set_property("Replacement Value", "${'$1':toUpper()}")
    runner.set_property("Replacement Strategy", "Regex Replace")
    runner.set_property("Evaluation Mode", "Entire text")
    runner.assert_valid()
    runner.enqueue(b"wo$rd")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("WO$RD")
    runner.enqueue(b"wo$1rd")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 2)
    out = runner.get_flowfiles_for_relationship("success")[1]
    out.assert_content_equals("WO$1RD")
    runner.enqueue(b"wo$1r$2d")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 3)
    out = runner.get_flowfiles_for_relationship("success")[2]
    out.assert_content_equals("WO$1R$2D")


def test_nifi_substitute_variables_with_evaluation_mode_entire_text(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testSubstituteVariablesWithEvaluationModeEntireText."""
    runner = make_runner("ReplaceText")
    _substitute_variables(
        runner, "Line1: ${var1}\nLine2: ${var2}", "Line1: foo\nLine2: bar", "Entire text", VARIABLES
    )


def test_nifi_substitute_variables_with_evaluation_mode_line_by_line(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testSubstituteVariablesWithEvaluationModeLineByLine."""
    runner = make_runner("ReplaceText")
    _substitute_variables(
        runner,
        "Line1: ${var1}\nLine2: ${var2}",
        "Line1: foo\nLine2: bar",
        "Line-by-Line",
        VARIABLES,
    )


def test_nifi_substitute_variables_when_variable_value_missing(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testSubstituteVariablesWhenVariableValueMissing."""
    runner = make_runner("ReplaceText")
    _substitute_variables(
        runner,
        "Line1: ${var1}\nLine2: ${var2}",
        "Line1: ${var1}\nLine2: ${var2}",
        "Entire text",
        {},
    )


def test_nifi_substitute_variables_when_variable_reference_escaped(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestReplaceText.testSubstituteVariablesWhenVariableReferenceEscaped."""
    runner = make_runner("ReplaceText")
    _substitute_variables(
        runner,
        "Line1: $${var1}\nLine2: $${var2}",
        "Line1: ${var1}\nLine2: ${var2}",
        "Entire text",
        VARIABLES,
    )


def test_nifi_substitute_variables_when_variable_name_empty(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testSubstituteVariablesWhenVariableNameEmpty."""
    runner = make_runner("ReplaceText")
    _substitute_variables(
        runner, "Line1: ${}\nLine2: ${}", "Line1: ${}\nLine2: ${}", "Entire text", VARIABLES
    )


def test_nifi_for_stack_overflow(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testForStackOverflow."""
    runner = make_runner("ReplaceText")
    runner.set_property("Replacement Value", "New text")
    runner.set_property("Replacement Strategy", "Regex Replace")
    runner.set_property("Evaluation Mode", "Entire text")
    runner.set_property("Maximum Buffer Size", "10 MB")
    runner.set_property("Search Value", "(?s)(^(A|B)*$)")
    runner.assert_valid()
    runner.enqueue("A" * 1_000_000)
    runner.run()
    # NiFi: Java's regex engine overflows its stack on this input and the FlowFile goes to
    # failure rather than rolling back; flowcore's engine does not overflow and replaces
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals("New text")


def test_nifi_with_invalid_expression(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testWithInvalidExpression."""
    runner = make_runner("ReplaceText")
    runner.set_property("Evaluation Mode", "Entire text")
    runner.set_property("Search Value", ".*")
    runner.set_property("Replacement Value", '${date:toDate("yyyy/MM/dd")}')
    attributes: dict[str, str] = {}
    attributes["date"] = "12"
    runner.enqueue("hi", attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    out = runner.get_flowfiles_for_relationship("failure")[0]
    out_content = out.content.decode()
    assert out_content == "hi"


def test_nifi_migrate_properties(make_runner: RunnerFactory) -> None:
    """NiFi: TestReplaceText.testMigrateProperties."""
    runner = make_runner("ReplaceText")
    mapping = nifi_mapping("org.apache.nifi.processors.standard.ReplaceText", "processor")
    assert mapping is not None
    assert dict(mapping.aliases) == {"Regular Expression": "Search Value"}
    # NiFi 1's name is renamed when a NiFi flow is imported (flowcore has no migration
    # step on the processor itself)
    runner.set_property("Search Value", "World")
