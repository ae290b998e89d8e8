"""LogAttribute: logs the attributes (and optionally the content) of FlowFiles.

Follows NiFi's LogAttribute. Choices made here:

* Messages go to the processor's logger (``context.logger``, a Python logger named
  ``flowcore.processor.<component>``). Python has no TRACE level: trace logs at level 5,
  below DEBUG.
* Property names: NiFi's current display names ("Attributes to Log Regular Expression",
  "Log Prefix"), keyed by the API names of NiFi 2.0 ("attributes-to-log-regex",
  "Log prefix", "character-set"), so a NiFi flow with either imports.
* Attributes to Log / Attributes to Ignore are comma-separated names; the "Regular
  Expression" variants are regular expressions matched against whole names. As in NiFi,
  logging is limited to the listed names and/or the names matching the regex, then the
  ignored ones are removed; names are logged in sorted order.
* The payload is logged only below 1 MB, decoded with the Character Set (undecodable
  bytes replaced).
* Dates of the FlowFile properties are rendered in ISO 8601 UTC.
* FlowFiles are not modified (no provenance event) and are logged in batches of 1000.
* Control characters in attribute names and values and in the prefix are escaped
  (``\x00``, ``\n``); in the payload all but newlines and tabs. NiFi logs them raw.
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime

from flowcore.logsafe import PREFORMATTED, escape_control, escape_control_keep_lines
from flowcore.model import FlowFile
from flowcore.processor import (
    AllowableValue,
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from processors.standard._support import character_set

BATCH_SIZE = 1000
ONE_MB = 1024 * 1024
TRACE = 5

_LEVELS = {
    "trace": TRACE,
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "error": logging.ERROR,
}
LINE_PER_ATTRIBUTE = "Line per Attribute"
SINGLE_LINE = "Single Line"

LOG_LEVEL = PropertyDescriptor(
    name="Log Level",
    display_name="Log Level",
    description="The Log Level to use when logging the Attributes",
    default="info",
    required=True,
    allowable_values=list(_LEVELS),
)
LOG_PAYLOAD = PropertyDescriptor(
    name="Log Payload",
    display_name="Log Payload",
    description="If true, the FlowFile's payload will be logged, in addition to its "
    "attributes; otherwise, just the Attributes will be logged.",
    default="false",
    required=True,
    allowable_values=["true", "false"],
    validators=[validators.boolean],
)
ATTRIBUTES_TO_LOG = PropertyDescriptor(
    name="Attributes to Log",
    display_name="Attributes to Log",
    description="A comma-separated list of Attributes to Log. If not specified, all "
    "attributes will be logged unless `Attributes to Log by Regular Expression` is "
    "modified. There's an AND relationship between the two properties.",
    validators=[validators.non_empty],
)
ATTRIBUTES_TO_LOG_REGEX = PropertyDescriptor(
    name="attributes-to-log-regex",
    display_name="Attributes to Log Regular Expression",
    description="A regular expression indicating the Attributes to Log. If not specified, "
    "all attributes will be logged unless `Attributes to Log` is modified. There's an AND "
    "relationship between the two properties.",
    default=".*",
    validators=[validators.regular_expression],
)
ATTRIBUTES_TO_IGNORE = PropertyDescriptor(
    name="Attributes to Ignore",
    display_name="Attributes to Ignore",
    description="A comma-separated list of Attributes to ignore. If not specified, no "
    "attributes will be ignored unless `Attributes to Ignore by Regular Expression` is "
    "modified. There's an OR relationship between the two properties.",
    validators=[validators.non_empty],
)
ATTRIBUTES_TO_IGNORE_REGEX = PropertyDescriptor(
    name="attributes-to-ignore-regex",
    display_name="Attributes to Ignore Regular Expression",
    description="A regular expression indicating the Attributes to Ignore. If not "
    "specified, no attributes will be ignored unless `Attributes to Ignore` is modified. "
    "There's an OR relationship between the two properties.",
    validators=[validators.regular_expression],
)
LOG_FLOWFILE_PROPERTIES = PropertyDescriptor(
    name="Log FlowFile Properties",
    display_name="Log FlowFile Properties",
    description='Specifies whether or not to log FlowFile "properties", such as Entry '
    "Date, Lineage Start Date, and content size",
    default="true",
    required=True,
    allowable_values=["true", "false"],
    validators=[validators.boolean],
)
OUTPUT_FORMAT = PropertyDescriptor(
    name="Output Format",
    display_name="Output Format",
    description="Specifies the format to use for logging FlowFile attributes",
    default=LINE_PER_ATTRIBUTE,
    required=True,
    allowable_values=[
        AllowableValue(
            LINE_PER_ATTRIBUTE,
            LINE_PER_ATTRIBUTE,
            "Each FlowFile attribute will be logged using a single line for the "
            "attribute name and another line for the attribute value. This format "
            "is often most advantageous when looking at the attributes of a "
            "single FlowFile.",
        ),
        AllowableValue(
            SINGLE_LINE,
            SINGLE_LINE,
            "All FlowFile attribute names and values will be logged on a single "
            "line. This format is often most advantageous when comparing logs "
            "from multiple FlowFiles.",
        ),
    ],
)
LOG_PREFIX = PropertyDescriptor(
    name="Log prefix",
    display_name="Log Prefix",
    description="Log prefix appended to the log lines. It helps to distinguish the output "
    "of multiple LogAttribute processors.",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.non_empty],
)
CHARSET = PropertyDescriptor(
    name="character-set",
    display_name="Character Set",
    description="The name of the CharacterSet to use",
    default="UTF-8",
    required=True,
    validators=[character_set],
)

SUCCESS = Relationship("success", "All FlowFiles are routed to this relationship")


def _csv(text: str | None) -> set[str]:
    return {part.strip() for part in (text or "").split(",") if part.strip()}


def _date(epoch_ms: int) -> str:
    return datetime.fromtimestamp(epoch_ms / 1000, tz=UTC).isoformat(timespec="milliseconds")


def select_attributes(
    keys: set[str] | list[str],
    to_log: set[str],
    to_log_regex: str | None,
    to_ignore: set[str],
    to_ignore_regex: str | None,
) -> list[str]:
    """NiFi's ``getAttributesToLog``: the names to log, sorted."""
    log_pattern = re.compile(to_log_regex) if to_log_regex else None
    if not to_log and (log_pattern is None or to_log_regex == ".*"):
        result = set(keys)
    else:
        result = set(to_log) if to_log else set(keys)
        if log_pattern is not None:
            result = {key for key in result if log_pattern.fullmatch(key)}
    result -= to_ignore
    if to_ignore_regex:
        ignore_pattern = re.compile(to_ignore_regex)
        result = {key for key in result if not ignore_pattern.fullmatch(key)}
    return sorted(result)


@processor("LogAttribute")
class LogAttribute(Processor):
    description = "Emits attributes of the FlowFile at the specified log level"
    tags = ("attributes", "logging")
    property_descriptors = (
        LOG_LEVEL,
        LOG_PAYLOAD,
        ATTRIBUTES_TO_LOG,
        ATTRIBUTES_TO_LOG_REGEX,
        ATTRIBUTES_TO_IGNORE,
        ATTRIBUTES_TO_IGNORE_REGEX,
        LOG_FLOWFILE_PROPERTIES,
        OUTPUT_FORMAT,
        LOG_PREFIX,
        CHARSET,
    )
    relationships = (SUCCESS,)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfiles = session.get_batch(BATCH_SIZE)
        if not flowfiles:
            return
        logger = context.logger
        level = _LEVELS[context.get_property(LOG_LEVEL).as_str()]
        enabled = logger.isEnabledFor(level)
        for flowfile in flowfiles:
            if enabled:
                text = self.message(context, session, flowfile)
                logger.log(level, "%s", text, extra={PREFORMATTED: True})
            session.transfer(flowfile, SUCCESS)

    def message(self, context: ProcessContext, session: ProcessSession, flowfile: FlowFile) -> str:
        """The text NiFi's LogAttribute logs for one FlowFile."""
        keys = select_attributes(
            list(flowfile.attributes),
            _csv(context.get_property(ATTRIBUTES_TO_LOG).value),
            context.get_property(ATTRIBUTES_TO_LOG_REGEX).value,
            _csv(context.get_property(ATTRIBUTES_TO_IGNORE).value),
            context.get_property(ATTRIBUTES_TO_IGNORE_REGEX).value,
        )
        prefix = escape_control(context.get_property(LOG_PREFIX).evaluate(flowfile).as_str())
        if prefix.strip():
            if len(prefix) > 40:
                prefix = prefix[:37] + "..."
            dashed = "-" * 5 + prefix.center(40, "-") + "-" * 5
        else:
            dashed = "-" * 50
        properties = context.get_property(LOG_FLOWFILE_PROPERTIES).as_bool()
        # Names and values are the FlowFile's: control characters in them are escaped, so
        # a value can neither forge log lines nor put a NUL in the log.
        values = {
            escape_control(key): escape_control(flowfile.attributes.get(key, "null"))
            for key in keys
        }
        lines: list[str] = []
        if context.get_property(OUTPUT_FORMAT).as_str() == SINGLE_LINE:
            text = f"logging for flow file {flowfile.uuid}\n{dashed}\n"
            if properties:
                text += (
                    f"FlowFile Properties [entryDate={_date(flowfile.entry_date)}, "
                    f"lineageStartDate={_date(flowfile.lineage_start_date)}, "
                    f"fileSize={flowfile.size}]\n"
                )
            text += (
                "FlowFile Attribute Map Content ["
                + ", ".join(f"{key}={value}" for key, value in values.items())
                + "]\n"
                + dashed
            )
            lines.append(text)
        else:
            lines += [f"logging for flow file {flowfile.uuid}", dashed]
            if properties:
                lines.append("FlowFile Properties")
                for key, value in (
                    ("entryDate", _date(flowfile.entry_date)),
                    ("lineageStartDate", _date(flowfile.lineage_start_date)),
                    ("fileSize", str(flowfile.size)),
                ):
                    lines.append(f"Key: '{key}'\n\tValue: '{value}'")
            lines.append("FlowFile Attribute Map Content")
            for key, value in values.items():
                lines.append(f"Key: '{key}'\n\tValue: '{value}'")
            lines.append(dashed)
        if context.get_property(LOG_PAYLOAD).as_bool():
            if flowfile.size < ONE_MB:
                charset = context.get_property(CHARSET).as_str().strip()
                payload = session.read(flowfile).decode(charset, errors="replace")
                lines.append(escape_control_keep_lines(payload))
            else:
                lines.append("\n Not including payload since it is larger than one mb.")
        return "\n".join(lines).strip()
