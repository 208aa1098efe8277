"""The compaction pipeline of SPEC.md: format, templates, structured summary, extraction,
summarize with the overflow ladder."""
