"""Random Avro schemas with records for them, and what NiFi's JSON writer prints for each.

``avro_contents`` draws an Avro record schema over every Avro type NiFi's AvroTypeUtil
reads (primitives, enum, fixed, bytes, arrays, maps, nested records, unions with null on
either side, ``int | long``, and the logical types date, time-millis/micros,
timestamp-millis/micros (as Python values and as raw numbers of any size), decimal on
bytes and fixed, uuid) and records for it (nulls,
unicode, extreme numbers, NaN and infinities when asked, empty arrays and maps).
``nifi_json`` is the oracle: the value NiFi's AvroReader then JsonRecordSetWriter give,
as ``json.loads(..., parse_float=Decimal)`` reads it back.
"""

from __future__ import annotations

import base64
import io
import itertools
import json
import math
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import avro.schema
import fastavro
import numpy as np
from hypothesis import strategies as st

Schema = dict[str, Any]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NAMES = ["a", "b", "_c", "é", "dø", "Z9", "long_name_12"]
_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=6)


class JavaDouble(Decimal):
    """A float or double NiFi prints (the digits of Java's ``toString``)."""


def _java_digits(shortest: str, exact: float) -> Decimal:
    """Java's ``toString`` digits (JDK 19+): the shortest that read back as the value, but
    two when one would do and the two-digit one is nearer (``1.4E-45``, ``4.9E-324``)."""
    digits = Decimal(shortest)
    if len(digits.normalize().as_tuple().digits) > 1 or digits == 0:
        return digits
    value = Decimal(exact)
    two = Decimal(f"{value:.1e}")
    return two if abs(two - value) < abs(digits - value) else digits


def _float32_text(value: float) -> Decimal:
    return _java_digits(np.format_float_scientific(np.float32(value), unique=True), value)


def java_double(value: float) -> JavaDouble:
    """A double as NiFi prints it (its digits)."""
    return JavaDouble(_java_digits(repr(value), value))


def _millis(moment: datetime) -> int:
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def _micros_to_millis(micros: int) -> int:
    """NiFi reads a timestamp-micros as ``TimeUnit.MICROSECONDS.toMillis`` (toward zero);
    flowcore keeps the microseconds and its writers round down, which differs before 1970
    by one millisecond when there are microseconds (docs/records.md): the oracle takes
    flowcore's rule there."""
    return micros // 1000


_RAW = {"date": 86_400_000, "time-millis": 1, "timestamp-millis": 1}
_RAW.update({"time-micros": 1, "timestamp-micros": 1})
_INT = st.integers(-(1 << 31), (1 << 31) - 1)
_LONG = st.integers(-(1 << 63), (1 << 63) - 1)


def nifi_json(avro: Any, value: Any) -> Any:
    """What NiFi's JSON writer prints for ``value`` of Avro type ``avro`` (read back)."""
    if value is None:
        return None
    if isinstance(avro, list):
        branches = [b for b in avro if b != "null"]
        if all(b in ("int", "long") for b in branches):
            return value
        [branch] = branches
        return nifi_json(branch, value)
    kind = avro if isinstance(avro, str) else avro["type"]
    logical = avro.get("logicalType") if isinstance(avro, dict) else None
    if isinstance(value, int) and logical in _RAW:
        # A raw number (any, not only Python's years 1..9999): NiFi reads it as it is.
        return _micros_to_millis(value) if logical.endswith("micros") else value * _RAW[logical]
    if logical == "date":
        return (value - date(1970, 1, 1)).days * 86_400_000
    if logical in ("time-millis", "time-micros"):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + (
            value.microsecond // 1000
        )
    if logical == "timestamp-millis":
        return _millis(value)
    if logical == "timestamp-micros":
        delta = value - _EPOCH
        micros = (delta.days * 86_400 + delta.seconds) * 10**6 + delta.microseconds
        return _micros_to_millis(micros)
    if logical == "decimal":
        return value
    if kind == "float":
        return JavaDouble(_float32_text(value))
    if kind == "double":
        return java_double(value)
    if kind in ("bytes", "fixed"):
        return base64.b64encode(value).decode()  # NiFi: an array of numbers (docs/records.md)
    if kind == "array":
        return [nifi_json(avro["items"], v) for v in value]
    if kind == "map":
        return {k: nifi_json(avro["values"], v) for k, v in value.items()}
    if kind == "record":
        return {f["name"]: nifi_json(f["type"], value.get(f["name"])) for f in avro["fields"]}
    return value  # boolean, int, long, string, enum, uuid


def same_json(got: Any, want: Any) -> bool:
    """Equal as JSON values: numbers by value (a Boolean is not a number), a decimal with
    its scale (its digits as written), a double not written as an integer within Java's
    plain range (``8.0``)."""
    if isinstance(want, Decimal):
        if isinstance(got, bool) or not isinstance(got, int | Decimal):
            return False
        if isinstance(want, JavaDouble):
            if isinstance(got, int) and 1e-3 <= abs(want) < 10**7:
                return False
        elif Decimal(got).as_tuple().exponent != min(want.as_tuple().exponent, 0):
            return False
        return Decimal(got) == want
    if isinstance(want, bool) or isinstance(got, bool):
        return got is want
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(same_json(g, w) for g, w in zip(got, want, strict=True))
        )
    if isinstance(want, dict):
        return (
            isinstance(got, dict)
            and got.keys() == want.keys()
            and all(same_json(got[k], want[k]) for k in want)
        )
    return type(got) is type(want) and got == want


def _decimal_values(precision: int, scale: int) -> st.SearchStrategy[Decimal]:
    bound = 10**precision - 1
    return st.integers(-bound, bound).map(lambda n: Decimal(n).scaleb(-scale))


class _Schemas:
    """Draws Avro types with values, naming each named type once."""

    def __init__(self, draw: st.DrawFn, special_floats: bool) -> None:
        self.draw = draw
        self.special = special_floats
        self.names = itertools.count()

    def name(self, stem: str) -> str:
        return f"{stem}{next(self.names)}"

    def primitive(self) -> tuple[Any, st.SearchStrategy[Any]]:
        kind = self.draw(
            st.sampled_from(
                [
                    "boolean", "int", "long", "float", "double", "string", "bytes",
                    "enum", "fixed", "date", "time-millis", "time-micros",
                    "timestamp-millis", "timestamp-micros", "decimal", "fixed-decimal",
                    "uuid", "int|long",
                ]
            )
        )  # fmt: skip
        floats = {"allow_nan": self.special, "allow_infinity": self.special}
        moments = st.datetimes(
            datetime(1900, 1, 1),  # noqa: DTZ001 (hypothesis bounds are naive)
            datetime(2200, 1, 1),  # noqa: DTZ001
            timezones=st.just(UTC),
        )
        match kind:
            case "boolean":
                return "boolean", st.booleans()
            case "int":
                return "int", _INT
            case "long" | "int|long":
                return "long" if kind == "long" else ["int", "long"], _LONG
            case "float":
                return "float", st.floats(width=32, **floats)
            case "double":
                return "double", st.floats(**floats)
            case "string":
                return "string", _TEXT
            case "bytes":
                return "bytes", st.binary(max_size=6)
            case "enum":
                symbols = ["A", "B_2", "c"]
                return {
                    "type": "enum",
                    "name": self.name("E"),
                    "symbols": symbols,
                }, st.sampled_from(symbols)
            case "fixed":
                size = self.draw(st.integers(1, 4))
                fixed = {"type": "fixed", "name": self.name("F"), "size": size}
                return fixed, st.binary(min_size=size, max_size=size)
            case "date":
                return {"type": "int", "logicalType": "date"}, _INT | st.dates(
                    date(1, 1, 1), date(9999, 12, 31)
                )
            case "time-millis":
                return {"type": "int", "logicalType": "time-millis"}, _INT | st.times().map(
                    lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000)
                )
            case "time-micros":
                return {"type": "long", "logicalType": "time-micros"}, _LONG | st.times()
            case "timestamp-millis":
                return {"type": "long", "logicalType": "timestamp-millis"}, _LONG | moments.map(
                    lambda m: m.replace(microsecond=m.microsecond // 1000 * 1000)
                )
            case "timestamp-micros":
                return {"type": "long", "logicalType": "timestamp-micros"}, _LONG | moments
            case "decimal" | "fixed-decimal":
                precision = self.draw(st.integers(1, 20))
                scale = self.draw(st.integers(0, precision))
                base: Schema = {"type": "bytes"}
                if kind == "fixed-decimal":
                    base = {"type": "fixed", "name": self.name("D"), "size": 9}
                schema = {**base, "logicalType": "decimal", "precision": precision, "scale": scale}
                return schema, _decimal_values(precision, scale)
            case _:
                return {"type": "string", "logicalType": "uuid"}, st.uuids().map(str)

    def any_type(self, depth: int) -> tuple[Any, st.SearchStrategy[Any]]:
        shape = self.draw(st.sampled_from(["primitive"] * 3 + ["array", "map", "record"]))
        if depth <= 0 or shape == "primitive":
            avro, values = self.primitive()
        elif shape == "array":
            items, item_values = self.nullable(depth - 1)
            avro = {"type": "array", "items": items}
            values = st.lists(item_values, max_size=3)
        elif shape == "map":
            items, item_values = self.nullable(depth - 1)
            avro = {"type": "map", "values": items}
            values = st.dictionaries(_TEXT, item_values, max_size=3)
        else:
            avro, values = self.record(depth - 1)
        return avro, values

    def nullable(self, depth: int) -> tuple[Any, st.SearchStrategy[Any]]:
        avro, values = self.any_type(depth)
        where = self.draw(st.sampled_from(["not null", "null first", "null last"]))
        if where == "not null":
            return avro, values
        if isinstance(avro, list):  # int | long
            avro = ["null", *avro] if where == "null first" else [*avro, "null"]
        else:
            avro = ["null", avro] if where == "null first" else [avro, "null"]
        return avro, st.none() | values

    def record(self, depth: int) -> tuple[Schema, st.SearchStrategy[dict[str, Any]]]:
        names = self.draw(st.lists(st.sampled_from(_NAMES), min_size=1, max_size=4, unique=True))
        fields: list[Schema] = []
        values: dict[str, st.SearchStrategy[Any]] = {}
        for field_name in names:
            avro, field_values = self.nullable(depth)
            fields.append({"name": field_name, "type": avro})
            values[field_name] = field_values
        schema = {"type": "record", "name": self.name("R"), "fields": fields}
        return schema, st.fixed_dictionaries(values)


@st.composite
def avro_contents(
    draw: st.DrawFn, files: int = 1, special_floats: bool = False, max_records: int = 4
) -> tuple[Schema, list[list[dict[str, Any]]]]:
    """An Avro record schema and, per file, its records."""
    schemas = _Schemas(draw, special_floats)
    schema, records = schemas.record(depth=2)
    schema["namespace"] = "test.avro"
    contents = [
        draw(st.lists(records, min_size=0 if files > 1 else 1, max_size=max_records))
        for _ in range(files)
    ]
    return schema, contents


def avro_file(schema: Schema, records: list[dict[str, Any]], codec: str = "null") -> bytes:
    """An Avro container file with the schema embedded, as fastavro writes it."""
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(schema), records, codec=codec)
    return out.getvalue()


def read_avro(content: bytes) -> tuple[Any, list[dict[str, Any]]]:
    """The embedded schema and the records, dates, times and timestamps as their raw
    numbers (fastavro's Python values stop at the year 9999)."""
    blocks = fastavro.block_reader(io.BytesIO(content))
    raw = fastavro.parse_schema(_without_temporal(blocks.writer_schema))
    records = [
        fastavro.schemaless_reader(block.bytes_, raw, None)
        for block in blocks
        for _ in range(block.num_records)
    ]
    return blocks.writer_schema, records


def raw_values(avro: Any, value: Any) -> Any:
    """A value of ``avro`` as ``read_avro`` gives it back (a date its days, a time or a
    timestamp its number in the schema's unit)."""
    if value is None:
        return None
    if isinstance(avro, list):
        branches = [b for b in avro if b != "null"]
        return value if len(branches) > 1 else raw_values(branches[0], value)
    kind = avro if isinstance(avro, str) else avro["type"]
    logical = avro.get("logicalType") if isinstance(avro, dict) else None
    if logical in _RAW and not isinstance(value, int):
        if logical == "date":
            return (value - date(1970, 1, 1)).days
        if logical.startswith("time-"):
            micros = ((value.hour * 60 + value.minute) * 60 + value.second) * 10**6
            micros += value.microsecond
            return micros // 1000 if logical == "time-millis" else micros
        delta = value - _EPOCH
        micros = (delta.days * 86_400 + delta.seconds) * 10**6 + delta.microseconds
        return micros // 1000 if logical == "timestamp-millis" else micros
    if kind == "array":
        return [raw_values(avro["items"], v) for v in value]
    if kind == "map":
        return {k: raw_values(avro["values"], v) for k, v in value.items()}
    if kind == "record":
        return {f["name"]: raw_values(f["type"], value.get(f["name"])) for f in avro["fields"]}
    return value


def _without_temporal(avro: Any) -> Any:
    if isinstance(avro, list):
        return [_without_temporal(b) for b in avro]
    if not isinstance(avro, dict):
        return avro
    out = {k: v for k, v in avro.items() if not (k == "logicalType" and v in _RAW)}
    for key in ("type", "items", "values"):
        if key in out:
            out[key] = _without_temporal(out[key])
    if isinstance(out.get("fields"), list):
        out["fields"] = [_without_temporal(f) for f in out["fields"]]
    return out


def has_special_float(avro: Any, value: Any) -> bool:
    """Whether a NaN or an infinity is among the float and double values."""
    if value is None:
        return False
    if isinstance(avro, list):
        branches = [b for b in avro if b != "null"]
        return len(branches) == 1 and has_special_float(branches[0], value)
    kind = avro if isinstance(avro, str) else avro["type"]
    if kind in ("float", "double"):
        return not math.isfinite(value)
    if kind == "array":
        return any(has_special_float(avro["items"], v) for v in value)
    if kind == "map":
        return any(has_special_float(avro["values"], v) for v in value.values())
    if kind == "record":
        return any(has_special_float(f["type"], value.get(f["name"])) for f in avro["fields"])
    return False


def java_avro_name(name: str) -> bool:
    """Java Avro's (and NiFi's) rule for a name: a letter or ``_``, then letters, digits
    and ``_``, each a 16-bit Java character (so nothing beyond the Basic Plane)."""
    return (
        bool(name)
        and all(ord(c) <= 0xFFFF for c in name)
        and (name[0] == "_" or name[0].isalpha())
        and all(c == "_" or c.isalpha() or c.isdecimal() for c in name[1:])
    )


def assert_valid_avro(schema: Any) -> None:
    """The schema is one Java Avro (NiFi) reads: Apache Avro's own parser accepts it
    (unions, duplicate fields and names, defaults), and every field and type name
    follows Java's rule (Apache's Python parser allows ASCII names only)."""
    avro.schema.parse(json.dumps(schema), validate_names=False)
    _assert_java_names(schema)


def _assert_java_names(avro_type: Any) -> None:
    if isinstance(avro_type, list):
        for branch in avro_type:
            _assert_java_names(branch)
        return
    if not isinstance(avro_type, dict):
        return
    if avro_type.get("type") in ("record", "enum", "fixed"):
        for part in str(avro_type["name"]).split("."):
            assert java_avro_name(part), avro_type["name"]
    for field in avro_type.get("fields", []):
        assert java_avro_name(field["name"]), field["name"]
        _assert_java_names(field["type"])
    for key in ("items", "values"):
        if key in avro_type:
            _assert_java_names(avro_type[key])
    if isinstance(avro_type.get("type"), dict | list):
        _assert_java_names(avro_type["type"])
