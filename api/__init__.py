"""The REST API (FastAPI); see docs/api.md."""
