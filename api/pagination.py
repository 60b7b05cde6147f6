from rest_framework.pagination import PageNumberPagination as DrfPageNumberPagination


class PageNumberPagination(DrfPageNumberPagination):
    """``?page=2&page_size=50``: 20 a page unless asked, at most 100."""

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100
    page_size_query_description = "Rows a page: 20 unless asked, at most 100."
