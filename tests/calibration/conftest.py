"""Fixtures for calibration tests: the Kolab sample and its calibration, computed once."""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.calibration.fit import Calibration, calibrate
from collabsim.calibration.kolab_sample import KolabSample, load_kolab_sample


@pytest.fixture(scope="session")
def kolab_sample(kolab_sessions_path: Path) -> KolabSample:
    """Calibration figures of the shared Kolab explorer file."""
    return load_kolab_sample(kolab_sessions_path)[1]


@pytest.fixture(scope="session")
def kolab_calibration(kolab_sample: KolabSample) -> Calibration:
    """The behaviour model fitted to the shared Kolab file."""
    return calibrate(kolab_sample)
