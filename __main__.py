"""`python -m sessionscope` runs the command line."""
from __future__ import annotations

import sys

from sessionscope.cli import main

sys.exit(main())
