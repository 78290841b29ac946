"""The session engine: actions, workspace, structures, virtual clock, traces."""
