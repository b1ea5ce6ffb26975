"""``python -m msgnorm.cli``: the ``msgnorm`` command."""

import sys

from . import main

sys.exit(main())
