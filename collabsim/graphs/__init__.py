"""Workflow graphs shared by simulated and real sessions."""

from collabsim.graphs.model import (
    RESPONSE_LABELS,
    Edge,
    Node,
    Response,
    SessionInfo,
    Step,
    WorkflowGraph,
)

__all__ = ["RESPONSE_LABELS", "Edge", "Node", "Response", "SessionInfo", "Step", "WorkflowGraph"]
