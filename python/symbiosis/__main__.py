"""`python -m symbiosis`: the same as the `symbiosis` command."""

import sys

from symbiosis.cli import main

sys.exit(main())
