"""``python -m rummy_env.scenario FILE``: the conformance harness's public command.

The harness lives in ``rummy_env.tools.scenario``; this module keeps the
documented command working.
"""

import sys

from rummy_env.tools.cli import run_program
from rummy_env.tools.scenario import main

if __name__ == "__main__":
    sys.exit(run_program(main, sys.argv[1:]))
