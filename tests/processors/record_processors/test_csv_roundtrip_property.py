"""Text through ConvertRecord CSV to CSV comes back as it went in, whatever it holds.

Values with the separator, quotes, line breaks, blanks at either end, a leading ``#`` or
non-ASCII text are quoted and escaped by the writer so that a CSV parser reads the very
same values again (Trim Fields false, so blanks are data). Each value starts with a
letter, so it is text to the inference. (No backslash: it is the reader's Escape
Character, which Python's writer does not escape.)
"""

from __future__ import annotations

import csv
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from flowcore.testing import TestRunner

texts = st.builds(
    lambda head, rest: head + rest,
    st.sampled_from("xyzé"),
    st.text(
        alphabet=st.sampled_from(
            ["a", "b", " ", ",", '"', "\n", "\r", "\t", "#", ";", "'", "é", "€"]
        ),
        max_size=8,
    ),
)
tables = st.integers(1, 3).flatmap(
    lambda columns: st.lists(
        st.lists(texts, min_size=columns, max_size=columns), min_size=1, max_size=5
    )
)


@settings(max_examples=200, deadline=None)
@given(tables)
def test_text_survives_the_round_trip(rows: list[list[str]]) -> None:
    columns = len(rows[0])
    source = io.StringIO(newline="")
    writer = csv.writer(source, lineterminator="\r\n")  # quotes values with \r or \n
    writer.writerow([f"c{i}" for i in range(columns)])
    writer.writerows(rows)
    with TestRunner("ConvertRecord") as runner:
        runner.add_controller_service(
            "reader", "CSVReader", {"Treat First Line as Header": "true", "Trim Fields": "false"}
        )
        runner.add_controller_service("writer", "CSVRecordSetWriter", {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.enqueue(source.getvalue())
        runner.run()
        assert runner.get_flowfiles_for_relationship("failure") == []
        (out,) = runner.get_flowfiles_for_relationship("success")
        parsed = list(csv.reader(io.StringIO(out.text(), newline="")))
        assert parsed == [[f"c{i}" for i in range(columns)], *rows], out.text()
