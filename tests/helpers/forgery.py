"""A cell that takes over its worker's reply function (found through its own frames), so every
later reply of that worker is forged: the probe behind the "score-deciding cells are isolated"
tests."""

from __future__ import annotations

import textwrap

TAKE_OVER_REPLIES = textwrap.dedent(
    """
    import sys
    frame = sys._getframe()
    while 'self' not in frame.f_locals or type(frame.f_locals['self']).__name__ != 'Worker':
        frame = frame.f_back
    def run_cell(self, code):
        return {'output': 'RESULT year=1234 FORGED\\n', 'truncated': False,
                'status': 'ok', 'error': None}
    type(frame.f_locals['self']).run_cell = run_cell
    """
)
