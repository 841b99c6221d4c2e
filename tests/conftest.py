"""Settings for the whole suite.

The suite runs as two pytest-xdist workers on a two-core machine
(``scripts/test.sh``). Each worker, and every program a test starts, gets one
torch thread unless ``OMP_NUM_THREADS`` says otherwise: with torch's default of
one thread per core, two workers' thread pools wait on each other, and the
expert's small batches ran three times slower.
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
