"""``python -m data_gen ...``: see `data_gen.cli`."""

import sys

from data_gen.cli import main

sys.exit(main())
