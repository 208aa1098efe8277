"""Analyses over sessions and summaries: what a summary lost (retention), two summaries side by
side (compare), how the context grew (timeline), and many sessions at once (batch)."""
