"""Capture: the Stop and SessionStart handlers (transcript, triage, orientation)."""
