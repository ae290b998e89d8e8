"""ExtractText: evaluates Java regular expressions (dynamic properties) against the
content and puts their capture groups into attributes.

Follows NiFi's ExtractText: a property ``name`` whose pattern matches sets ``name``
(group 1), ``name.1`` ... ``name.N`` and, with Include Capture Group 0, ``name.0``; with
Enable Repeating Capture Group later matches continue the numbering; with Enable Named
Groups the attributes are ``name.<group>`` (``name.<group>.<n>`` for repeats). Empty
groups set nothing. Only the first Maximum Buffer Size bytes of the content are searched,
as in NiFi. Choices made here:

* Patterns are Java's, through flowcore's Java regex translation (which also gives
  ``.``, ``^`` and ``$`` Java's line terminators: "\r\n", "\r", "\n" and the Unicode
  ones). The flags map to inline flags: case-insensitive, comments, DOTALL, multiline,
  Unix lines and literal as in Java. Unicode-aware case folding and Unicode character
  classes are always on (Python's text matching is Unicode throughout); Canonical
  Equivalence has no equivalent and is accepted without effect.
"""

from __future__ import annotations

from flowcore.el.regex import Pattern, java_finditer, java_regex
from flowcore.errors import ExpressionError
from flowcore.processor import (
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    ValidationResult,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from processors.standard._charsets import decode
from processors.standard._support import character_set
from processors.standard._text import java_quote, read_prefix


def _flag(name: str, description: str, default: str = "false") -> PropertyDescriptor:
    return PropertyDescriptor(
        name=name,
        display_name=name,
        description=description,
        default=default,
        required=True,
        allowable_values=["true", "false"],
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
    description="Specifies the maximum amount of data to buffer (per FlowFile) in order to "
    "apply the regular expressions. FlowFiles larger than the specified maximum will not be "
    "fully evaluated.",
    default="1 MB",
    required=True,
    validators=[validators.data_size],
)
MAX_CAPTURE_GROUP_LENGTH = PropertyDescriptor(
    name="Maximum Capture Group Length",
    display_name="Maximum Capture Group Length",
    description="Specifies the maximum number of characters a given capture group value can "
    "have. Any characters beyond the max will be truncated.",
    default="1024",
    validators=[validators.positive_integer],
)
CANON_EQ = _flag(
    "Enable Canonical Equivalence",
    "Indicates that two characters match only when their full canonical decompositions match.",
)
CASE_INSENSITIVE = _flag(
    "Enable Case-insensitive Matching",
    "Indicates that two characters match even if they are in a different case. Can also be "
    "specified via the embedded flag (?i).",
)
COMMENTS = _flag(
    "Permit Whitespace and Comments in Pattern",
    "In this mode, whitespace is ignored, and embedded comments starting with # are ignored "
    "until the end of a line. Can also be specified via the embedded flag (?x).",
)
DOTALL = _flag(
    "Enable DOTALL Mode",
    "Indicates that the expression '.' should match any character, including a line "
    "terminator. Can also be specified via the embedded flag (?s).",
)
LITERAL = _flag(
    "Enable Literal Parsing of the Pattern",
    "Indicates that Metacharacters and escape characters should be given no special meaning.",
)
MULTILINE = _flag(
    "Enable Multiline Mode",
    "Indicates that '^' and '$' should match just after and just before a line terminator "
    "or end of sequence, instead of only the beginning or end of the entire input. Can also "
    "be specified via the embeded flag (?m).",
)
UNICODE_CASE = _flag(
    "Enable Unicode-aware Case Folding",
    "When used with 'Enable Case-insensitive Matching', matches in a manner consistent with "
    "the Unicode Standard. Can also be specified via the embedded flag (?u).",
)
UNICODE_CHARACTER_CLASS = _flag(
    "Enable Unicode Predefined Character Classes",
    "Specifies conformance with the Unicode Technical Standard #18: Unicode Regular "
    "Expression Annex C: Compatibility Properties. Can also be specified via the embedded "
    "flag (?U).",
)
UNIX_LINES = _flag(
    "Enable Unix Lines Mode",
    "Indicates that only the '\\n' line terminator is recognized in the behavior of '.', "
    "'^', and '$'. Can also be specified via the embedded flag (?d).",
)
INCLUDE_CAPTURE_GROUP_ZERO = _flag(
    "Include Capture Group 0",
    "Indicates that Capture Group 0 should be included as an attribute. Capture Group 0 "
    "represents the entirety of the regular expression match, is typically not used, and "
    "could have considerable length.",
    default="true",
)
ENABLE_REPEATING_CAPTURE_GROUP = _flag(
    "Enable Repeating Capture Group",
    "If set to true, every string matching the capture groups will be extracted. Otherwise, "
    "if the Regular Expression matches more than once, only the first match will be "
    "extracted.",
)
ENABLE_NAMED_GROUPS = _flag(
    "Enable Named Groups",
    "If set to true, when named groups are present in the regular expression, the name of "
    "the group will be used in the attribute name as opposed to the group index. All "
    "capturing groups must be named, if the number of groups (not including capture group "
    "0) does not equal the number of named groups validation will fail.",
)

MATCHED = Relationship(
    "matched",
    "FlowFiles are routed to this relationship when the Regular Expression is successfully "
    "evaluated and the FlowFile is modified as a result",
)
UNMATCHED = Relationship(
    "unmatched",
    "FlowFiles are routed to this relationship when no provided Regular Expression matches "
    "the content of the FlowFile",
)


def _inline_flags(context: ProcessContext) -> str:
    flags = ""
    for descriptor, letter in (
        (CASE_INSENSITIVE, "i"),
        (COMMENTS, "x"),
        (DOTALL, "s"),
        (MULTILINE, "m"),
        (UNIX_LINES, "d"),
    ):
        if context.get_property(descriptor).as_bool():
            flags += letter
    return f"(?{flags})" if flags else ""


def compile_pattern(context: ProcessContext, text: str) -> Pattern:
    """The pattern of a dynamic property with the flags the properties set."""
    if context.get_property(LITERAL).as_bool():
        text = java_quote(text)
    return java_regex(_inline_flags(context) + text)


@processor("ExtractText")
class ExtractText(Processor):
    description = (
        "Evaluates one or more Regular Expressions against the content of a FlowFile. The "
        "results of those Regular Expressions are assigned to FlowFile Attributes."
    )
    tags = ("evaluate", "extract", "Text", "Regular Expression", "regex")
    property_descriptors = (
        CHARACTER_SET,
        MAX_BUFFER_SIZE,
        MAX_CAPTURE_GROUP_LENGTH,
        CANON_EQ,
        CASE_INSENSITIVE,
        COMMENTS,
        DOTALL,
        LITERAL,
        MULTILINE,
        UNICODE_CASE,
        UNICODE_CHARACTER_CLASS,
        UNIX_LINES,
        INCLUDE_CAPTURE_GROUP_ZERO,
        ENABLE_REPEATING_CAPTURE_GROUP,
        ENABLE_NAMED_GROUPS,
    )
    relationships = (MATCHED, UNMATCHED)
    supports_dynamic_properties = True

    def __init__(self) -> None:
        super().__init__()
        self._patterns: list[tuple[str, Pattern]] = []

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        return PropertyDescriptor(
            name=name,
            display_name=name,
            description="The first capture group, if any found, will be placed into that "
            "attribute name. But all capture groups, including the matching string sequence "
            "itself will also be provided at that attribute name with an index value "
            "provided.",
            dynamic=True,
            validators=[validators.java_regular_expression],
        )

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        problems: list[ValidationResult] = []
        group_zero = context.get_property(INCLUDE_CAPTURE_GROUP_ZERO).as_bool()
        named = context.get_property(ENABLE_NAMED_GROUPS).as_bool()
        for name, value in context.dynamic_properties().items():
            try:
                pattern = compile_pattern(context, value)
            except ExpressionError:
                continue  # the property's own validator says so
            if not group_zero and not 1 <= pattern.groups <= 40:
                problems.append(
                    ValidationResult(
                        name,
                        False,
                        value,
                        "RegEx is required to have between 1 and 40 Capturing Groups but has "
                        f"{pattern.groups}",
                    )
                )
            if named and pattern.groups != len(pattern.groupindex):
                problems.append(
                    ValidationResult(
                        name, False, value, "Named group count does not match total group count"
                    )
                )
        return problems

    def on_scheduled(self, context: ProcessContext) -> None:
        self._patterns = [
            (name, compile_pattern(context, value))
            for name, value in context.dynamic_properties().items()
        ]

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        charset = context.get_property(CHARACTER_SET).as_str().strip()
        max_buffer = context.get_property(MAX_BUFFER_SIZE).as_data_size() or 0
        max_length = context.get_property(MAX_CAPTURE_GROUP_LENGTH).as_int() or 1024
        start_group = 0 if context.get_property(INCLUDE_CAPTURE_GROUP_ZERO).as_bool() else 1
        named = context.get_property(ENABLE_NAMED_GROUPS).as_bool()
        repeating = context.get_property(ENABLE_REPEATING_CAPTURE_GROUP).as_bool()
        data = read_prefix(session.stream(flowfile), max_buffer)
        text = decode(data, charset)

        results: dict[str, str] = {}
        for base, pattern in self._patterns:
            names = sorted(pattern.groupindex, key=pattern.groupindex.__getitem__)
            j = 0
            for match in java_finditer(pattern, text):
                if named and pattern.groups == len(names):
                    for group in names:
                        key = f"{base}.{group}" + (f".{j}" if j > 0 else "")
                        value = match.group(group)
                        if value:
                            results[key] = value[:max_length]
                    if start_group == 0 and j == 0:
                        results[base] = match.group(0)
                    j += 1
                else:
                    first = start_group if j == 0 else 1
                    for i in range(first, pattern.groups + 1):
                        value = match.group(i)
                        if value:
                            value = value[:max_length]
                            results[f"{base}.{i + j}"] = value
                            if i == 1 and j == 0:
                                results[base] = value
                    j += pattern.groups
                if not repeating:
                    break
        if results:
            flowfile = session.put_all_attributes(flowfile, results)
            session.provenance.modify_attributes(flowfile)
            session.transfer(flowfile, MATCHED)
        else:
            session.transfer(flowfile, UNMATCHED)
