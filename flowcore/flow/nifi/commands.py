"""``flowcore import nifi`` and ``flowcore export nifi``: convert between the two formats."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Annotated

import typer
import yaml
from rich.console import Console

from flowcore.errors import FlowCoreError
from flowcore.flow.definition import FlowDefinition, FlowDefinitionError, read_flow_document
from flowcore.flow.nifi.exporter import export_nifi
from flowcore.flow.nifi.loader import convert

import_app = typer.Typer(
    help="Convert a flow from another format to flowcore YAML.", no_args_is_help=True
)
export_app = typer.Typer(help="Convert a flowcore flow to another format.", no_args_is_help=True)
err = Console(stderr=True, soft_wrap=True)

AllowUnsupported = Annotated[
    bool,
    typer.Option(
        "--allow-unsupported",
        help="For a NiFi flow: put unsupported components in place as stopped stubs.",
    ),
]
"""The ``--allow-unsupported`` option, for every command that reads a flow."""

Output = Annotated[
    Path | None, typer.Option("--output", "-o", help="File to write (default: standard output).")
]


class _Dumper(yaml.SafeDumper):
    """Multi-line strings as literal blocks, so imported text reads as it was written."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def _write(text: str, output: Path | None) -> None:
    if output is None:
        typer.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        err.print(f"written: {output}")


@import_app.command("nifi")
def import_nifi_command(
    flow: Annotated[Path, typer.Argument(help="NiFi flow definition (JSON, or .json.gz).")],
    output: Output = None,
    allow_unsupported: AllowUnsupported = False,
) -> None:
    """Convert a NiFi flow definition ("Download flow definition") to flowcore YAML."""
    try:
        data = json.loads(_read(flow))
        result = convert(data, str(flow))
    except (FlowCoreError, ValueError) as exc:
        err.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(code=2) from None
    for component in result.unsupported:
        err.print(f"[yellow]unsupported:[/] {component.line}")
    if result.unsupported and not allow_unsupported:
        err.print(
            f"[bold red]error:[/] {len(result.unsupported)} component(s) not supported; "
            "--allow-unsupported stubs them as stopped"
        )
        raise typer.Exit(code=2)
    for note in result.notes:
        err.print(f"[dim]note:[/] {note}")
    header = [f"# Imported from the NiFi flow definition {flow.name} by `flowcore import nifi`."]
    header += [f"# note: {note}" for note in result.notes]
    header += [f"# stubbed, stopped: {c.line}" for c in result.unsupported]
    body = yaml.dump(
        result.document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100
    )
    _write("\n".join(header) + "\n" + body, output)


def _read(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise FlowDefinitionError(str(path), "no such file") from None
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8")


@export_app.command("nifi")
def export_nifi_command(
    flow: Annotated[Path, typer.Argument(help="Flow definition (flowcore YAML).")],
    output: Output = None,
) -> None:
    """Convert a flowcore flow to a NiFi flow definition that NiFi can upload."""
    try:
        document = read_flow_document(flow)
        definition = FlowDefinition.model_validate(document)
        definition.set_folder(flow.parent)
        result = export_nifi(definition)
    except FlowCoreError as exc:
        err.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(code=2) from None
    except ValueError as exc:  # pydantic's ValidationError
        err.print(f"[bold red]error:[/] {flow}: not a valid flow: {exc}")
        raise typer.Exit(code=2) from None
    for note in result.notes:
        err.print(f"[dim]note:[/] {note}")
    _write(json.dumps(result.document, indent=2) + "\n", output)
