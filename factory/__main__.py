"""`python -m factory` runs the command line."""

import sys

from factory.cli import main

sys.exit(main())
