"""The project's own tests load the simulation plugin here: the shared virtual
environment's installed metadata may predate its ``pytest11`` entry point (once it has
it, pytest has loaded the plugin already)."""

from importlib.metadata import entry_points

_PLUGIN = "flowcore.simulation.pytest_plugin"

pytest_plugins = (
    [] if any(ep.value == _PLUGIN for ep in entry_points(group="pytest11")) else [_PLUGIN]
)
