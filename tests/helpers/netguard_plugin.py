"""pytest plugin: fail every test that reaches beyond the loopback interface.

Enable it in the root ``tests/conftest.py`` with::

    pytest_plugins = ["helpers.netguard_plugin"]

The guard (:mod:`collabsim.llm.netguard`) is installed when the plugin loads, before test
collection, so imports are covered too. A test that tries to connect to (or resolve) a
non-loopback host fails, even when the code under test caught the
:class:`~collabsim.llm.netguard.NetworkBlocked` error.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from collabsim.llm import netguard

netguard.install_network_guard()


def _check() -> None:
    found = netguard.take_violations()
    if found:
        targets = ", ".join(f"{v.event} {v.target}" for v in found)
        pytest.fail(f"network access beyond loopback: {targets}", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """Check the test's fixtures' setup."""
    netguard.take_violations()
    result = yield
    _check()
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Fail the test itself when its body attempted network access beyond loopback."""
    netguard.take_violations()
    result = yield
    _check()
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Check the test's fixtures' teardown."""
    netguard.take_violations()
    result = yield
    _check()
    return result
