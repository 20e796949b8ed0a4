import sys

from symbiosis.cli import main

sys.exit(main())
