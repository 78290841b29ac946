"""Reporting: results tables (aggregation and printing)."""

from collabsim.reporting.tables import (
    METRIC_COLUMNS,
    aggregate,
    format_table,
    metrics_table,
    session_metrics_row,
)

__all__ = ["METRIC_COLUMNS", "aggregate", "format_table", "metrics_table", "session_metrics_row"]
