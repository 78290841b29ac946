"""Calibration of simulated humans on real data, and fidelity of simulated sessions.

``collabsim calibrate`` fits the behaviour model (:mod:`collabsim.participants.behaviour`)
to the Kolab workflow graphs (:mod:`.kolab_sample`, :mod:`.fit`, :mod:`.write`);
``collabsim fidelity`` compares simulated and real session dynamics (:mod:`.fidelity`). No
Hydra, no CLI imports: the commands sit in ``collabsim.cli``.
"""
