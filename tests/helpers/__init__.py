"""Shared test helpers: builders, stand-ins and the network-guard plugin.

Import them as ``from helpers.<module> import ...`` (``tests/`` is on ``sys.path`` through the
root ``conftest.py``). None of these modules is named ``test_*``: pytest never collects them.

============================  ==============================================================
module                        holds
============================  ==============================================================
``helpers.tasks``             :func:`make_task` (a one-file task), DiscoveryBench loaders
``helpers.executors``         :class:`InProcessExecutor` (a fast stand-in for the sandbox)
``helpers.cli``               :func:`collabsim_in_process` (the command without a subprocess)
``helpers.participants``      hand-written participants and fuzz strings for engine tests
``helpers.observations``      :func:`sample_observation`
``helpers.netguard_plugin``   pytest plugin failing any test that reaches the network
============================  ==============================================================
"""
