"""``python -m launchplan``: the same commands as the ``launchplan`` script (for a venv
whose scripts folder is not on PATH)."""

import sys

from launchplan.commands.main import main

sys.exit(main())
