"""Observations and actions hold only the text spaces' characters (sanitise)."""

from __future__ import annotations

from collabsim.envs.session_env import CHARSET, sanitise


def test_allowed_text_is_kept_as_it_is() -> None:
    text = "Result: 3400 BCE\n\tr = 0.51 — amber ≥ 2 … ok"
    assert sanitise(text) == text
    assert sanitise("plain ascii\r\n") == "plain ascii\r\n"


def test_characters_outside_the_charset_become_question_marks_on_both_paths() -> None:
    # ASCII control characters (fast path) and non-ASCII ones (regex path)
    assert sanitise("a\x00b\x07c\x7f") == "a?b?c?"
    assert sanitise("a\x00b ✓ 中") == "a?b ? ?"
    every_ascii = "".join(chr(c) for c in range(128))
    assert sanitise(every_ascii) == "".join(c if c in CHARSET else "?" for c in every_ascii)


def test_long_text_is_cut_with_a_marker() -> None:
    out = sanitise("x" * 100, limit=50)
    assert len(out) <= 50 and out.endswith("...[truncated]")
