"""`python -m sessionscope` runs the command line."""
from __future__ import annotations

import sys

from sessionscope.cli.main import main

sys.exit(main())
