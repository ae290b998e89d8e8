"""The REST API (FastAPI); see issue 5."""
