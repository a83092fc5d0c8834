"""``python -m launchplan``: the same commands as the ``launchplan`` script (for a venv
whose scripts folder is not on PATH)."""

import sys

from launchplan.commands.main import cli

if __name__ == "__main__":  # imported (a tool walking the package), it runs nothing
    sys.exit(cli())
