"""The GM's desk (issue 17; issue 20 builds on it): the Django admin of every app, at the top of
the layers with the pages and the API, so the apps below it never import an admin."""
