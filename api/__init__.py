"""The REST API under /api/v1/: thin views over the same services and permission layer as the pages."""
