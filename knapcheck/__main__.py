import sys

from knapcheck.cli import main

sys.exit(main())
