"""Key strategies (partkv/keys.h, docs/keys.md) as Python values."""

from ._lib import ffi, lib
from . import _codec
from ._status import error_from

__all__ = ["KeyStrategy"]


class KeyStrategy:
    """A key strategy: how a PartitionKey (or RowKey) is derived from an entity's properties.

    Made from its text form, e.g. ``KeyStrategy("hash-suffix(date,orderId,16)")``; the accepted
    forms are ``concat(FIELD,...,sep=-)``, ``random-suffix(FIELD,N)``,
    ``hash-suffix(FIELD,SOURCE,N,hash=xxh3|md5|codepoint-product)``, ``md5-bits(FIELD,K)``,
    ``asc-ticks(FIELD)`` and ``desc-ticks(FIELD)`` (docs/keys.md). A bad text raises
    :class:`partkv.exceptions.InvalidArgumentError` (a ValueError) listing them.
    """

    __slots__ = ("_ptr", "_text")

    def __init__(self, text):
        if isinstance(text, KeyStrategy):
            text = text.text
        data = _codec.utf8(text, "key strategy")
        out = ffi.new("partkv_key_strategy_t **")
        status = lib.partkv_key_strategy_parse(data, len(data), out)
        if status:
            raise error_from(status)
        self._ptr = ffi.gc(out[0], lib.partkv_key_strategy_destroy)
        length = ffi.new("size_t *")
        self._text = _codec.owned_text(lib.partkv_key_strategy_to_string(self._ptr, length), length)

    @property
    def text(self):
        """The canonical text form, e.g. ``"hash-suffix(date,orderId,16,hash=xxh3)"``."""
        return self._text

    @property
    def is_sharded(self):
        """True for random-suffix and hash-suffix, whose keys are ``base.1`` .. ``base.N``."""
        return bool(lib.partkv_key_strategy_is_sharded(self._ptr))

    @property
    def shard_count(self):
        """N for the sharded kinds, 1 for the others."""
        return int(lib.partkv_key_strategy_shard_count(self._ptr))

    def shard_keys(self, base):
        """Every key a sharded strategy writes for `base` (``base.1`` .. ``base.N``)."""
        if not self.is_sharded:
            return [base]
        return ["%s.%d" % (base, i) for i in range(1, self.shard_count + 1)]

    def compute(self, entity):
        """The key for the properties of `entity` (a mapping); random-suffix draws its suffix.
        InvalidArgumentError (a ValueError) naming the field when one is missing or cannot form
        a key (a NaN Double, a Binary, ...)."""
        return self._compute(entity, lib.partkv_key_strategy_compute)

    def compute_base(self, entity):
        """The part of the key before the shard suffix (the whole key for unsharded kinds)."""
        return self._compute(entity, lib.partkv_key_strategy_compute_base)

    def _compute(self, entity, function):
        source = _codec.new_entity(entity, False, False)
        try:
            out = ffi.new("char **")
            length = ffi.new("size_t *")
            status = function(self._ptr, source, out, length)
            if status:
                raise error_from(status)
            return _codec.owned_text(out[0], length)
        finally:
            lib.partkv_entity_destroy(source)

    def __str__(self):
        return self._text

    def __repr__(self):
        return "KeyStrategy(%r)" % (self._text,)

    def __eq__(self, other):
        return isinstance(other, KeyStrategy) and other._text == self._text

    def __hash__(self):
        return hash(self._text)


def strategy_ptr(value, what):
    """A partkv_key_strategy_t* (or NULL) for None, a str or a KeyStrategy; returns (ptr, keep)."""
    if value is None:
        return ffi.NULL, None
    if not isinstance(value, KeyStrategy):
        if not isinstance(value, str):
            raise TypeError("%s must be a str or KeyStrategy, got %s" % (what, type(value).__name__))
        value = KeyStrategy(value)
    return value._ptr, value
