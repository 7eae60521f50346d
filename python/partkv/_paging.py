"""Lazy paging, shaped as azure.core.paging.ItemPaged / PageIterator."""

import itertools

from .exceptions import AzureError, StoreCorruptionError

__all__ = ["ItemPaged", "PageIterator"]


class PageIterator:
    """Iterates the pages of a query: each ``next()`` reads one page from the store and returns
    an iterator over its items (azure.core.paging.PageIterator).

    :ivar continuation_token: the token of the next page (a str), or None once the last page has
        been read. Pass it to ``by_page(continuation_token=...)`` to resume later, in this
        process or another one that opened the same store.
    """

    def __init__(self, fetch, continuation_token=None):
        self._fetch = fetch
        self.continuation_token = continuation_token
        self._did_a_call_already = False
        self._current_page = None
        # The hashes of the tokens followed: a server that hands one back a second time (a
        # cycle of pages) would keep the iteration going for ever.
        self._seen = set()
        self._pages = 0

    def __iter__(self):
        """The iterator itself."""
        return self

    def __next__(self):
        """Read the next page; returns an iterator over its items (StopIteration after the last)."""
        if self.continuation_token is None and self._did_a_call_already:
            raise StopIteration("End of paging")
        try:
            items, token = self._fetch(self.continuation_token)
        except AzureError as error:
            if not error.continuation_token:
                error.continuation_token = self.continuation_token
            raise
        self._did_a_call_already = True
        self._pages += 1
        if token is not None:
            key = hash(token)
            if key in self._seen:
                raise StoreCorruptionError(
                    "page %d answered with a continuation token it was given before: following "
                    "it would never end" % self._pages, continuation_token=self.continuation_token)
            self._seen.add(key)
        self.continuation_token = token
        self._current_page = items
        return iter(items)

    next = __next__


class ItemPaged:
    """An iterable of all items of a query, read page by page as iteration proceeds
    (azure.core.paging.ItemPaged). Nothing is read before the first item is asked for.

    ``by_page(continuation_token=None)`` iterates the pages themselves (each an iterator of
    items), exposing ``continuation_token`` after each page.
    """

    def __init__(self, page_fetcher_factory):
        self._factory = page_fetcher_factory
        self._page_iterator = None

    def by_page(self, continuation_token=None):
        """An iterator of pages, starting at `continuation_token` (None: the first page)."""
        if continuation_token is not None and not isinstance(continuation_token, str):
            raise TypeError("continuation_token must be a str returned by a previous page, got %s"
                            % type(continuation_token).__name__)
        return PageIterator(self._factory(), continuation_token=continuation_token or None)

    def __iter__(self):
        """The iterator itself."""
        return self

    def __next__(self):
        """The next item, reading the next page when the current one is exhausted."""
        if self._page_iterator is None:
            self._page_iterator = itertools.chain.from_iterable(self.by_page())
        return next(self._page_iterator)

    next = __next__

    def __repr__(self):
        return "<partkv ItemPaged>"
