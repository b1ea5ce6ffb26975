"""``python -m msgnorm.cli``: the ``msgnorm`` command."""

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
