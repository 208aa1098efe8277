"""Summarizer backends behind one small protocol (litellm, replay, offline)."""
