"""The compaction pipeline of docs/pipeline.md: format, templates, structured summary, extraction,
summarize with the overflow ladder."""
