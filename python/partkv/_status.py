"""Turns a partkv_status_t* into the exception the SDK would raise, and frees it."""

from ._lib import ffi, lib
from . import exceptions as _e

# partkv_code_t
OK = 0
NOT_FOUND = 1
ALREADY_EXISTS = 2
PRECONDITION_FAILED = 3
INVALID_ARGUMENT = 4
THROTTLED = 5
CORRUPTION = 6
IO_ERROR = 7
BUSY = 8
PERMISSION_DENIED = 9
TRIMMED = 10

_CODE_NAMES = {OK: "OK", NOT_FOUND: "NotFound", ALREADY_EXISTS: "AlreadyExists",
               PRECONDITION_FAILED: "PreconditionFailed", INVALID_ARGUMENT: "InvalidArgument",
               THROTTLED: "Throttled", CORRUPTION: "Corruption", IO_ERROR: "IOError",
               BUSY: "Busy", PERMISSION_DENIED: "PermissionDenied", TRIMMED: "Trimmed"}

_CLASSES = {
    NOT_FOUND: _e.ResourceNotFoundError,
    ALREADY_EXISTS: _e.ResourceExistsError,
    PRECONDITION_FAILED: _e.ResourceModifiedError,
    INVALID_ARGUMENT: _e.InvalidArgumentError,
    THROTTLED: _e.ServerBusyError,
    CORRUPTION: _e.StoreCorruptionError,
    IO_ERROR: _e.StoreIOError,
    BUSY: _e.StoreBusyError,
    PERMISSION_DENIED: _e.ClientAuthenticationError,
    TRIMMED: _e.ChangeFeedTrimmedError,
}

_STATUS = {NOT_FOUND: 404, ALREADY_EXISTS: 409, PRECONDITION_FAILED: 412, INVALID_ARGUMENT: 400,
           THROTTLED: 503, CORRUPTION: 500, IO_ERROR: 500, BUSY: 503, PERMISSION_DENIED: 403,
           TRIMMED: 410}

# The Table service's error code for each partkv code, by what the call was about.
_ERROR_CODES = {
    NOT_FOUND: "ResourceNotFound",
    ALREADY_EXISTS: "EntityAlreadyExists",
    PRECONDITION_FAILED: "UpdateConditionNotSatisfied",
    INVALID_ARGUMENT: "InvalidInput",
    THROTTLED: "ServerBusy",
    CORRUPTION: "InternalError",
    IO_ERROR: "InternalError",
    BUSY: "ServerBusy",
    PERMISSION_DENIED: "AuthenticationFailed",
    TRIMMED: "Trimmed",
}


def _read(status):
    code = lib.partkv_status_code(status)
    length = ffi.new("size_t *")
    text = lib.partkv_status_message(status, length)
    message = ffi.unpack(text, length[0]).decode("utf-8", "replace") if text != ffi.NULL else ""
    return code, message, lib.partkv_status_retry_after_ms(status), lib.partkv_status_failed_op(status)


# InvalidArgument messages (engine/validation.h, docs/errors.md) and the service's error code
# for the same refusal; the first fragment found wins.
_INVALID_CODES = (
    ("is already present in the batch", "InvalidDuplicateRow"),
    ("properties; the limit is 252", "TooManyProperties"),
    ("by Azure's size formula", "EntityTooLarge"),
    ("characters; the limit is 255", "PropertyNameTooLong"),
    ("property name", "PropertyNameInvalid"),
    ("String value is", "PropertyValueTooLarge"),
    ("Binary value is", "PropertyValueTooLarge"),
    ("table name", "InvalidResourceName"),
    ("outside the range", "OutOfRangeInput"),
)


def _error_code(code, message, table_level):
    if code == NOT_FOUND and (table_level or message.lower().startswith("table")):
        return "TableNotFound"
    if code == ALREADY_EXISTS and table_level:
        return "TableAlreadyExists"
    if code == INVALID_ARGUMENT:
        for fragment, error_code in _INVALID_CODES:
            if fragment in message:
                return error_code
    return _ERROR_CODES.get(code, "InternalError")


def error_from(status, table_level=False):
    """The exception for `status` (which is destroyed): table_level for table operations."""
    try:
        code, message, retry_ms, _ = _read(status)
    finally:
        lib.partkv_status_destroy(status)
    error_code = _error_code(code, message, table_level)
    cls = _CLASSES.get(code, _e.HttpResponseError)
    kwargs = dict(status_code=_STATUS.get(code, 500), error_code=error_code,
                  code=_CODE_NAMES.get(code, "Unknown"), partkv_message=message)
    if code == THROTTLED:
        kwargs["retry_after_ms"] = retry_ms
    return cls("%s\nErrorCode:%s" % (message, error_code), **kwargs)


def transaction_error_from(status):
    """The TableTransactionError for a failed batch's `status` (which is destroyed)."""
    try:
        code, message, retry_ms, failed_op = _read(status)
    finally:
        lib.partkv_status_destroy(status)
    error_code = _error_code(code, message, False)
    if code == INVALID_ARGUMENT and "(4 MiB)" in message:
        cls, status_code, error_code = _e.RequestTooLargeError, 413, "RequestBodyTooLarge"
    elif code == INVALID_ARGUMENT:
        cls, status_code = _e.InvalidTransactionError, 400
    else:
        cls, status_code = _e.TableTransactionError, _STATUS.get(code, 500)
    error = cls("%s\nErrorCode:%s" % (message, error_code), status_code=status_code,
                error_code=error_code, code=_CODE_NAMES.get(code, "Unknown"),
                partkv_message=message, index=failed_op if failed_op >= 0 else 0)
    error.retry_after_ms = retry_ms
    error.retry_after = retry_ms / 1000.0
    return error


def check(status, table_level=False):
    """Raise the error of a non-NULL status."""
    if status:
        raise error_from(status, table_level)
