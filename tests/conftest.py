"""Settings for the whole suite.

The suite runs as two pytest-xdist workers on a two-core machine
(``scripts/test.sh``). Each worker, and every program a test starts, gets one
torch thread unless ``OMP_NUM_THREADS`` says otherwise: with torch's default of
one thread per core, two workers' thread pools wait on each other, and the
expert's small batches ran three times slower.

Programs that train with stable-baselines3 log to ``SB3_LOGDIR``; without it
every ``learn`` call leaves an empty ``SB3-<time>`` folder in the system's
temporary directory, so the suite points it into pytest's own temporary folders.
"""

import os

import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_pytest_temp(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ.setdefault("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3-logs")))
