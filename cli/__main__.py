"""``python -m cli``: the ``flowcore`` command without its console script."""

from cli import main

main()
