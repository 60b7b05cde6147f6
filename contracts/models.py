"""Contracts, clauses, breaches and parleys arrive with the Contracts issue."""
