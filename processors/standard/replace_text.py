"""ReplaceText: rewrites a FlowFile's text by prepending, appending, surrounding, regex or
literal replacement, a fixed value, or attribute substitution.

Follows NiFi's ReplaceText. Choices made here:

* Regular expressions are Java's, through flowcore's Java regex translation; the
  Replacement Value is a Java replacement string (``$1``, ``${name}``, ``\\$``). As in
  NiFi, ``$1`` may also be used inside Expression Language (``${'$1':toUpper()}``), a
  back-reference to a group the pattern lacks stays literal, and a replacement holding
  ``$`` followed by a non-digit is taken literally throughout.
* Attribute values used in the Search Value are quoted (literal), and ``$n`` in attribute
  values used in the Replacement Value is escaped, as NiFi's decorators do; the
  decoration applies to every value Expression Language reads, before its functions.
* Line-by-Line mode streams the content: one line (with its line ending) is held at a
  time, and a line larger than Maximum Buffer Size sends the FlowFile to failure. In
  Entire text mode content larger than Maximum Buffer Size goes to failure for the
  strategies that buffer it (Regex Replace, Literal Replace, Substitute Variables).
* The search pattern is compiled per FlowFile (it may hold Expression Language); the
  number of groups is that of the evaluated pattern.
* Replacement Value may be set to the empty string (NiFi accepts it though the property
  is required), which flowcore's required check would refuse; it is not marked required.
* A failure to evaluate Expression Language or to apply the replacement routes the
  FlowFile to failure, unchanged. Success reports CONTENT_MODIFIED.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping

from flowcore.el import compile_expression
from flowcore.el.lookup import FlowFileLookup
from flowcore.el.regex import Match, Pattern, java_regex, java_replacer, java_sub
from flowcore.errors import ExpressionError
from flowcore.model import FlowFile
from flowcore.processor import (
    AllowableValue,
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    ValidationResult,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from processors.standard._charsets import decode, encode
from processors.standard._support import Writer, character_set
from processors.standard._text import (
    BufferOverflow,
    DecoratedValues,
    TextSink,
    iter_text_lines,
    java_quote,
    line_ending,
)

LINE_BY_LINE = "Line-by-Line"
ENTIRE_TEXT = "Entire text"
ALL = "All"
FIRST_LINE = "First-Line"
EXCEPT_FIRST_LINE = "Except-First-Line"
LAST_LINE = "Last-Line"
EXCEPT_LAST_LINE = "Except-Last-Line"

PREPEND = "Prepend"
APPEND = "Append"
SURROUND = "Surround"
REGEX_REPLACE = "Regex Replace"
LITERAL_REPLACE = "Literal Replace"
ALWAYS_REPLACE = "Always Replace"
SUBSTITUTE_VARIABLES = "Substitute Variables"

DEFAULT_REGEX = "(?s)(^.*$)"

REPLACEMENT_STRATEGY = PropertyDescriptor(
    name="Replacement Strategy",
    display_name="Replacement Strategy",
    description="The strategy for how and what to replace within the FlowFile's text content.",
    default=REGEX_REPLACE,
    required=True,
    allowable_values=[
        AllowableValue(
            PREPEND,
            PREPEND,
            "Insert the Replacement Value at the beginning of "
            "the FlowFile or the beginning of each line",
        ),
        AllowableValue(
            APPEND,
            APPEND,
            "Insert the Replacement Value at the end of the FlowFile or the end of each line",
        ),
        AllowableValue(
            SURROUND,
            SURROUND,
            "Prepend the FlowFile or each line with the Text "
            "to Prepend and append the Text to Append",
        ),
        AllowableValue(
            REGEX_REPLACE,
            REGEX_REPLACE,
            "Interpret the Search Value as a Regular "
            "Expression and replace all matches with the Replacement Value",
        ),
        AllowableValue(
            LITERAL_REPLACE,
            LITERAL_REPLACE,
            "Search for all instances of the "
            "Search Value and replace the matches with the Replacement Value",
        ),
        AllowableValue(
            ALWAYS_REPLACE,
            ALWAYS_REPLACE,
            "Always replaces the entire line or "
            "the entire contents of the FlowFile with the Replacement Value",
        ),
        AllowableValue(
            SUBSTITUTE_VARIABLES,
            SUBSTITUTE_VARIABLES,
            "Substitute variable references (${var}) with the value of the FlowFile attribute",
        ),
    ],
)
SEARCH_VALUE = PropertyDescriptor(
    name="Search Value",
    display_name="Search Value",
    description="The Search Value to search for in the FlowFile content. Only used for "
    "'Literal Replace' and 'Regex Replace' matching strategies",
    default=DEFAULT_REGEX,
    # Required in NiFi, but only checked with the strategies that use it (its dependsOn),
    # and there only as custom_validate checks it: flowcore's required check would refuse
    # the empty string under Append, where NiFi accepts it.
    required=False,
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
REPLACEMENT_VALUE = PropertyDescriptor(
    name="Replacement Value",
    display_name="Replacement Value",
    description="The value to insert using the 'Replacement Strategy'. With \"Regex "
    "Replace\" back-references to capturing groups are supported ($1, or '$1' in Expression "
    "Language).",
    default="$1",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
PREPEND_TEXT = PropertyDescriptor(
    name="Text to Prepend",
    display_name="Text to Prepend",
    description="The text to prepend to the start of the FlowFile, or each line, depending "
    "on the configured value of the Evaluation Mode property",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
APPEND_TEXT = PropertyDescriptor(
    name="Text to Append",
    display_name="Text to Append",
    description="The text to append to the end of the FlowFile, or each line, depending on "
    "the configured value of the Evaluation Mode property",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
CHARACTER_SET = PropertyDescriptor(
    name="Character Set",
    display_name="Character Set",
    description="The Character Set in which the file is encoded",
    default="UTF-8",
    required=True,
    validators=[character_set],
)
MAX_BUFFER_SIZE = PropertyDescriptor(
    name="Maximum Buffer Size",
    display_name="Maximum Buffer Size",
    description="Specifies the maximum amount of data to buffer (per file or per line, "
    "depending on the Evaluation Mode) in order to apply the replacement.",
    default="1 MB",
    required=True,
    validators=[validators.data_size],
)
EVALUATION_MODE = PropertyDescriptor(
    name="Evaluation Mode",
    display_name="Evaluation Mode",
    description="Run the 'Replacement Strategy' against each line separately (Line-by-Line) "
    "or buffer the entire file into memory (Entire Text) and run against that.",
    default=LINE_BY_LINE,
    required=True,
    allowable_values=[LINE_BY_LINE, ENTIRE_TEXT],
)
LINE_BY_LINE_EVALUATION_MODE = PropertyDescriptor(
    name="Line-by-Line Evaluation Mode",
    display_name="Line-by-Line Evaluation Mode",
    description="Run the 'Replacement Strategy' against each line separately for all "
    "lines, the First Line (Header) alone, the Last Line (Footer) alone, all Except the "
    "First Line or all Except the Last Line.",
    default=ALL,
    allowable_values=[ALL, FIRST_LINE, LAST_LINE, EXCEPT_FIRST_LINE, EXCEPT_LAST_LINE],
)

SUCCESS = Relationship(
    "success",
    "FlowFiles that have been successfully processed are routed to this relationship. This "
    "includes both FlowFiles that had text replaced and those that did not.",
)
FAILURE = Relationship(
    "failure",
    "FlowFiles that could not be updated are routed to this relationship",
)

_BACK_REFERENCE = re.compile(r"(?<!\\)\$(\d+)")
_DOLLAR_NON_DIGIT = re.compile(r"\$\D")
_DOLLAR_DIGITS = re.compile(r"(\$\d)")
_VARIABLE = re.compile(r"\$(\$?)\{([^}]*)\}")

LineReplacer = Callable[[str], str]


def escape_missing_back_references(replacement: str, groups: int) -> str:
    """``$n`` naming a group the pattern lacks becomes ``\\$n`` (a literal), as NiFi."""
    if groups == 0:
        return replacement

    def fix(match: re.Match[str]) -> str:
        digits = match.group(1)
        if digits.startswith("0"):
            return match.group(0)
        index = int(digits)
        while index > groups and index >= 10:
            index //= 10
        return "\\" + match.group(0) if index > groups else match.group(0)

    return _BACK_REFERENCE.sub(fix, replacement)


def quote_replacement(text: str) -> str:
    """``Matcher.quoteReplacement``."""
    return text.replace("\\", "\\\\").replace("$", "\\$")


def normalize_replacement(replacement: str) -> str:
    """A replacement holding ``$`` then a non-digit is taken literally (NiFi)."""
    return quote_replacement(replacement) if _DOLLAR_NON_DIGIT.search(replacement) else replacement


def substitute_variables(text: str, attributes: Mapping[str, str]) -> str:
    """``StringSubstitutor.replace``: ``${name}`` is the attribute, ``$${name}`` a literal
    ``${name}``; unknown names stay as they are."""

    def substitute(match: re.Match[str]) -> str:
        name = match.group(2)
        if match.group(1):
            return "${" + name + "}"
        value = attributes.get(name)
        return match.group(0) if value is None else value

    return _VARIABLE.sub(substitute, text)


def _substitute(pattern: Pattern, replacer: Callable[[Match], str], text: str) -> str:
    """Every match replaced; ``text`` itself when nothing matched."""
    return java_sub(pattern, replacer, text)[0]


def _selected(mode: str, index: int, last: bool) -> bool:
    """Whether the line at ``index`` (``last`` if it is the last line) is replaced."""
    if mode == FIRST_LINE:
        return index == 0
    if mode == EXCEPT_FIRST_LINE:
        return index != 0
    if mode == LAST_LINE:
        return last
    if mode == EXCEPT_LAST_LINE:
        return not last
    return True


def _with_last(lines: Iterable[str]) -> Iterable[tuple[int, str, bool]]:
    iterator = iter(lines)
    previous = next(iterator, None)
    index = 0
    for line in iterator:
        assert previous is not None
        yield index, previous, False
        previous = line
        index += 1
    if previous is not None:
        yield index, previous, True


@processor("ReplaceText")
class ReplaceText(Processor):
    description = (
        "Updates the content of a FlowFile by searching for some textual value in the "
        "FlowFile content (via Regular Expression/regex, or literal value) and replacing the "
        "section of the content that matches with some alternate value. It can also be used "
        "to append or prepend text to the contents of a FlowFile."
    )
    tags = ("Text", "Regular Expression", "Update", "Change", "Replace", "Modify", "Regex")
    property_descriptors = (
        REPLACEMENT_STRATEGY,
        SEARCH_VALUE,
        REPLACEMENT_VALUE,
        PREPEND_TEXT,
        APPEND_TEXT,
        CHARACTER_SET,
        MAX_BUFFER_SIZE,
        EVALUATION_MODE,
        LINE_BY_LINE_EVALUATION_MODE,
    )
    relationships = (SUCCESS, FAILURE)

    def __init__(self) -> None:
        super().__init__()
        self._strategy = REGEX_REPLACE

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        strategy = context.get_property(REPLACEMENT_STRATEGY).as_str()
        search = context.get_property(SEARCH_VALUE).as_str()
        if strategy == LITERAL_REPLACE:
            result = validators.non_empty(SEARCH_VALUE.label, search)  # NiFi's NON_EMPTY
            return [] if result.valid else [result]
        if strategy == REGEX_REPLACE and "${" not in search:
            result = validators.java_regular_expression(SEARCH_VALUE.label, search)
            return [] if result.valid else [result]
        return []

    def on_scheduled(self, context: ProcessContext) -> None:
        strategy = context.get_property(REPLACEMENT_STRATEGY).as_str()
        if strategy == REGEX_REPLACE:
            search = context.get_property(SEARCH_VALUE).as_str()
            entire = context.get_property(EVALUATION_MODE).as_str() == ENTIRE_TEXT
            replacement = context.get_property(REPLACEMENT_VALUE).as_str()
            if search == ".*" or (search == DEFAULT_REGEX and entire and not replacement):
                strategy = ALWAYS_REPLACE  # NiFi's shortcut: the whole text is replaced
        self._strategy = strategy

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        charset = context.get_property(CHARACTER_SET).as_str().strip()
        max_buffer = context.get_property(MAX_BUFFER_SIZE).as_data_size() or 0
        entire = context.get_property(EVALUATION_MODE).as_str() == ENTIRE_TEXT
        buffered = self._strategy in (REGEX_REPLACE, LITERAL_REPLACE, SUBSTITUTE_VARIABLES)
        if entire and buffered and flowfile.size > max_buffer:
            self.logger.warning(
                "Transferred %s to 'failure' because it was larger than the buffer size",
                flowfile.uuid,
            )
            session.transfer(flowfile, FAILURE)
            return
        start = context.now_ms()
        try:
            flowfile = self._replace(context, session, flowfile, charset, max_buffer, entire)
        except (BufferOverflow, ExpressionError, UnicodeError, IndexError, ValueError) as exc:
            self.logger.warning("Transferred %s to 'failure': %s", flowfile.uuid, exc)
            session.transfer(flowfile, FAILURE)
            return
        session.provenance.modify_content(flowfile, duration_ms=context.now_ms() - start)
        session.transfer(flowfile, SUCCESS)

    # -- strategies ------------------------------------------------------------------------

    def _replace(
        self,
        context: ProcessContext,
        session: ProcessSession,
        flowfile: FlowFile,
        charset: str,
        max_buffer: int,
        entire: bool,
    ) -> FlowFile:
        strategy = self._strategy
        value = context.get_property(REPLACEMENT_VALUE)
        if strategy in (PREPEND, APPEND, SURROUND):
            if strategy == SURROUND:
                before = context.get_property(PREPEND_TEXT).evaluate(flowfile).as_str()
                after = context.get_property(APPEND_TEXT).evaluate(flowfile).as_str()
            elif strategy == PREPEND:
                before, after = value.evaluate(flowfile).as_str(), ""
            else:
                before, after = "", value.evaluate(flowfile).as_str()
            if entire:
                return session.write(
                    flowfile, self._surround_all(session, flowfile, before, after, charset)
                )

            def surround(line: str) -> str:
                text, ending = line_ending(line)
                return before + text + after + ending

            return self._by_line(context, session, flowfile, charset, max_buffer, surround)
        if strategy == ALWAYS_REPLACE:
            replacement = value.evaluate(flowfile).as_str()
            if entire:
                return session.write(flowfile, encode(replacement, charset))
            return self._by_line(
                context,
                session,
                flowfile,
                charset,
                max_buffer,
                lambda line: replacement + line_ending(line)[1],
            )
        if strategy == LITERAL_REPLACE:
            search = context.get_property(SEARCH_VALUE).evaluate(flowfile).as_str()
            replacement = value.evaluate(flowfile).as_str()
            replace: LineReplacer = lambda text: text.replace(search, replacement)  # noqa: E731
        elif strategy == SUBSTITUTE_VARIABLES:
            attributes = flowfile.attributes
            replace = lambda text: substitute_variables(text, attributes)  # noqa: E731
        else:
            replace = self._regex_replacer(context, flowfile)
        if entire:
            text = decode(session.read(flowfile), charset)
            replaced = replace(text)
            if strategy == REGEX_REPLACE and replaced is text:
                # NiFi leaves content the pattern does not match untouched: not decoded and
                # encoded again, which would turn bytes invalid in the charset into U+FFFD.
                return flowfile
            return session.write(flowfile, encode(replaced, charset))
        return self._by_line(context, session, flowfile, charset, max_buffer, replace)

    @staticmethod
    def _regex_replacer(context: ProcessContext, flowfile: FlowFile) -> LineReplacer:
        lookup = FlowFileLookup(flowfile)
        env = os.environ
        now = context.now_ms()
        search_text = context.get_property(SEARCH_VALUE).as_str()
        if "${" in search_text or "#{" in search_text:
            search_text = compile_expression(search_text).evaluate(
                DecoratedValues(lookup, java_quote), env=env, now_ms=now
            )
        pattern: Pattern = java_regex(search_text)
        groups = pattern.groups
        replacement_text = context.get_property(REPLACEMENT_VALUE).as_str()
        if "${" not in replacement_text and "#{" not in replacement_text:
            fixed = normalize_replacement(escape_missing_back_references(replacement_text, groups))
            replacer = java_replacer(pattern, fixed)
            return lambda text: _substitute(pattern, replacer, text)
        expression = compile_expression(replacement_text)

        def escape(value: str) -> str:
            return _DOLLAR_DIGITS.sub(r"\\\1", value)

        def per_match(match: Match) -> str:
            extra = {f"${i}": match.group(i) or "" for i in range(groups + 1)}
            evaluated = expression.evaluate(
                DecoratedValues(lookup, escape, extra), env=env, now_ms=now
            )
            fixed = normalize_replacement(escape_missing_back_references(evaluated, groups))
            return java_replacer(pattern, fixed)(match)

        return lambda text: _substitute(pattern, per_match, text)

    @staticmethod
    def _surround_all(
        session: ProcessSession, flowfile: FlowFile, before: str, after: str, charset: str
    ) -> Callable[[Writer], None]:
        def write(writer: Writer) -> None:
            if before:
                writer.write(encode(before, charset))
            for chunk in session.stream(flowfile):
                writer.write(chunk)
            if after:
                writer.write(encode(after, charset))

        return write

    @staticmethod
    def _by_line(
        context: ProcessContext,
        session: ProcessSession,
        flowfile: FlowFile,
        charset: str,
        max_buffer: int,
        replace: LineReplacer,
    ) -> FlowFile:
        mode = context.get_property(LINE_BY_LINE_EVALUATION_MODE).as_str() or ALL

        def write(writer: Writer) -> None:
            sink = TextSink(writer.write, charset)
            lines = iter_text_lines(session.stream(flowfile), charset, max_buffer)
            for index, line, last in _with_last(lines):
                sink(replace(line) if _selected(mode, index, last) else line)
            sink.flush()

        return session.write(flowfile, write)
