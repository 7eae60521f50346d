"""partkv's exceptions, named and shaped as azure-core's and azure-data-tables' are.

Code written against azure-data-tables catches the same names here::

    from partkv.exceptions import ResourceNotFoundError, ResourceModifiedError

Every error the store reports is an :class:`HttpResponseError` carrying the HTTP status and the
Table service error code Azure would answer with (``status_code``, ``error_code``), the message
partkv gave (``message``; ``str(error)``), and partkv's own code name (``code``: ``"NotFound"``,
``"InvalidArgument"``, ...). The mapping from partkv's codes:

============================  ==============================  ======  ===========================
partkv code                   exception                       status  error_code
============================  ==============================  ======  ===========================
NotFound                      ResourceNotFoundError           404     ResourceNotFound,
                                                                      TableNotFound
AlreadyExists                 ResourceExistsError             409     EntityAlreadyExists,
                                                                      TableAlreadyExists
PreconditionFailed            ResourceModifiedError           412     UpdateConditionNotSatisfied
InvalidArgument               InvalidArgumentError            400     InvalidInput
                              (also a ValueError)
Throttled                     ServerBusyError (retry_after)   503     ServerBusy
Busy                          StoreBusyError                  503     ServerBusy
Corruption                    StoreCorruptionError            500     InternalError
IOError                       StoreIOError                    500     InternalError
PermissionDenied              ClientAuthenticationError       403     AuthenticationFailed
                              (a remote store refused the key or the SAS)
Trimmed                       ChangeFeedTrimmedError          410     Trimmed
                              (a change feed position that retention removed)
============================  ==============================  ======  ===========================

A failed transaction (:meth:`partkv.TableClient.submit_transaction`) raises
:class:`TableTransactionError` whatever the code, with ``index`` the failing operation, as
azure-data-tables does.

Errors found in Python before anything reaches the store are the built-in ones: ``TypeError``
for a value of the wrong Python type (naming the property), ``ValueError`` for a bad value
(a ``str`` that cannot be encoded as UTF-8, ...), :class:`ClosedError` (a ``ValueError``) for a
call on a closed client.
"""

from enum import Enum

__all__ = [
    "AzureError",
    "HttpResponseError",
    "ClientAuthenticationError",
    "ResourceExistsError",
    "ResourceNotFoundError",
    "ResourceModifiedError",
    "TableTransactionError",
    "RequestTooLargeError",
    "InvalidArgumentError",
    "InvalidTransactionError",
    "ServerBusyError",
    "StoreBusyError",
    "StoreCorruptionError",
    "StoreIOError",
    "ChangeFeedTrimmedError",
    "ClosedError",
    "ValueOutOfRangeError",
    "TableErrorCode",
]


class TableErrorCode(str, Enum):
    """The Table service's error codes (azure.data.tables.TableErrorCode)."""

    ACCOUNT_ALREADY_EXISTS = "AccountAlreadyExists"
    ACCOUNT_BEING_CREATED = "AccountBeingCreated"
    ACCOUNT_IS_DISABLED = "AccountIsDisabled"
    AUTHENTICATION_FAILED = "AuthenticationFailed"
    AUTHORIZATION_FAILURE = "AuthorizationFailure"
    NO_AUTHENTICATION_INFORMATION = "NoAuthenticationInformation"
    CONDITION_HEADERS_NOT_SUPPORTED = "ConditionHeadersNotSupported"
    CONDITION_NOT_MET = "ConditionNotMet"
    EMPTY_METADATA_KEY = "EmptyMetadataKey"
    INSUFFICIENT_ACCOUNT_PERMISSIONS = "InsufficientAccountPermissions"
    INTERNAL_ERROR = "InternalError"
    INVALID_AUTHENTICATION_INFO = "InvalidAuthenticationInfo"
    INVALID_HEADER_VALUE = "InvalidHeaderValue"
    INVALID_HTTP_VERB = "InvalidHttpVerb"
    INVALID_INPUT = "InvalidInput"
    INVALID_MD5 = "InvalidMd5"
    INVALID_METADATA = "InvalidMetadata"
    INVALID_QUERY_PARAMETER_VALUE = "InvalidQueryParameterValue"
    INVALID_RANGE = "InvalidRange"
    INVALID_RESOURCE_NAME = "InvalidResourceName"
    INVALID_URI = "InvalidUri"
    INVALID_XML_DOCUMENT = "InvalidXmlDocument"
    INVALID_XML_NODE_VALUE = "InvalidXmlNodeValue"
    MD5_MISMATCH = "Md5Mismatch"
    METADATA_TOO_LARGE = "MetadataTooLarge"
    MISSING_CONTENT_LENGTH_HEADER = "MissingContentLengthHeader"
    MISSING_REQUIRED_QUERY_PARAMETER = "MissingRequiredQueryParameter"
    MISSING_REQUIRED_HEADER = "MissingRequiredHeader"
    MISSING_REQUIRED_XML_NODE = "MissingRequiredXmlNode"
    MULTIPLE_CONDITION_HEADERS_NOT_SUPPORTED = "MultipleConditionHeadersNotSupported"
    OPERATION_TIMED_OUT = "OperationTimedOut"
    OUT_OF_RANGE_INPUT = "OutOfRangeInput"
    OUT_OF_RANGE_QUERY_PARAMETER_VALUE = "OutOfRangeQueryParameterValue"
    REQUEST_BODY_TOO_LARGE = "RequestBodyTooLarge"
    RESOURCE_TYPE_MISMATCH = "ResourceTypeMismatch"
    REQUEST_URL_FAILED_TO_PARSE = "RequestUrlFailedToParse"
    RESOURCE_ALREADY_EXISTS = "ResourceAlreadyExists"
    RESOURCE_NOT_FOUND = "ResourceNotFound"
    SERVER_BUSY = "ServerBusy"
    UNSUPPORTED_HEADER = "UnsupportedHeader"
    UNSUPPORTED_XML_NODE = "UnsupportedXmlNode"
    UNSUPPORTED_QUERY_PARAMETER = "UnsupportedQueryParameter"
    UNSUPPORTED_HTTP_VERB = "UnsupportedHttpVerb"
    DUPLICATE_PROPERTIES_SPECIFIED = "DuplicatePropertiesSpecified"
    ENTITY_NOT_FOUND = "EntityNotFound"
    ENTITY_ALREADY_EXISTS = "EntityAlreadyExists"
    ENTITY_TOO_LARGE = "EntityTooLarge"
    HOST_INFORMATION_NOT_PRESENT = "HostInformationNotPresent"
    INVALID_DUPLICATE_ROW = "InvalidDuplicateRow"
    INVALID_VALUE_TYPE = "InvalidValueType"
    JSON_FORMAT_NOT_SUPPORTED = "JsonFormatNotSupported"
    METHOD_NOT_ALLOWED = "MethodNotAllowed"
    NOT_IMPLEMENTED = "NotImplemented"
    PROPERTIES_NEED_VALUE = "PropertiesNeedValue"
    PROPERTY_NAME_INVALID = "PropertyNameInvalid"
    PROPERTY_NAME_TOO_LONG = "PropertyNameTooLong"
    PROPERTY_VALUE_TOO_LARGE = "PropertyValueTooLarge"
    TABLE_ALREADY_EXISTS = "TableAlreadyExists"
    TABLE_BEING_DELETED = "TableBeingDeleted"
    TABLE_NOT_FOUND = "TableNotFound"
    TOO_MANY_PROPERTIES = "TooManyProperties"
    UPDATE_CONDITION_NOT_SATISFIED = "UpdateConditionNotSatisfied"
    X_METHOD_INCORRECT_COUNT = "XMethodIncorrectCount"
    X_METHOD_INCORRECT_VALUE = "XMethodIncorrectValue"
    X_METHOD_NOT_USING_POST = "XMethodNotUsingPost"


class AzureError(Exception):
    """Base of every error the store reports (azure.core.exceptions.AzureError).

    :ivar str message: the error's message (also ``str(error)``).
    :ivar continuation_token: for an error met while paging, the token of the page that failed.
    """

    def __init__(self, message=None, *args, **kwargs):
        self.message = str(message) if message is not None else ""
        self.inner_exception = kwargs.get("error")
        self.continuation_token = kwargs.get("continuation_token")
        self.exc_type = self.exc_value = self.exc_traceback = None
        self.exc_msg = self.message
        super().__init__(self.message, *args)


_REASONS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 409: "Conflict", 410: "Gone", 412: "Precondition Failed",
            413: "Request Entity Too Large", 500: "Internal Server Error",
            503: "Server Busy"}


class HttpResponseError(AzureError):
    """An error the store answered with (azure.core.exceptions.HttpResponseError).

    :ivar int status_code: the HTTP status Azure answers such an error with (400, 404, ...).
    :ivar str reason: the HTTP reason phrase.
    :ivar error_code: the Table service's error code (a :class:`TableErrorCode`).
    :ivar str code: partkv's code name ("NotFound", "InvalidArgument", ...), or None.
    :ivar str partkv_message: partkv's message without the appended error code.
    :ivar dict additional_info: empty (kept for the SDK's shape).
    :ivar response: always None (there is no HTTP response in an embedded store).
    """

    _default_status = None
    _default_error_code = None

    def __init__(self, message=None, response=None, **kwargs):
        self.response = response
        self.status_code = kwargs.pop("status_code", self._default_status)
        self.reason = kwargs.pop("reason", _REASONS.get(self.status_code))
        error_code = kwargs.pop("error_code", self._default_error_code)
        try:
            error_code = TableErrorCode(error_code) if error_code is not None else None
        except ValueError:
            pass
        self.error_code = error_code
        self.code = kwargs.pop("code", None)
        self.partkv_message = kwargs.pop("partkv_message", message)
        self.additional_info = kwargs.pop("additional_info", {})
        self.error = None
        self.model = None
        super().__init__(message, **kwargs)


class ResourceExistsError(HttpResponseError):
    """The table or entity exists already (409; azure.core.exceptions.ResourceExistsError)."""

    _default_status = 409
    _default_error_code = "EntityAlreadyExists"


class ResourceNotFoundError(HttpResponseError):
    """The table or entity does not exist (404; azure.core.exceptions.ResourceNotFoundError)."""

    _default_status = 404
    _default_error_code = "ResourceNotFound"


class ResourceModifiedError(HttpResponseError):
    """An ETag condition did not hold: the entity changed since it was read (412;
    azure.core.exceptions.ResourceModifiedError)."""

    _default_status = 412
    _default_error_code = "UpdateConditionNotSatisfied"


class InvalidArgumentError(HttpResponseError, ValueError):
    """The store refused the input (400 InvalidInput): fix the request, retrying will not help.

    Also a ``ValueError``, so code that validates input with ``except ValueError`` catches it.
    """

    _default_status = 400
    _default_error_code = "InvalidInput"


class ServerBusyError(HttpResponseError):
    """Over a throughput budget (503 ServerBusy, partkv's Throttled): retry after the wait.

    :ivar float retry_after: the seconds to wait before retrying.
    :ivar int retry_after_ms: the same in milliseconds.
    """

    _default_status = 503
    _default_error_code = "ServerBusy"

    def __init__(self, message=None, response=None, **kwargs):
        self.retry_after_ms = int(kwargs.pop("retry_after_ms", 0) or 0)
        self.retry_after = self.retry_after_ms / 1000.0
        super().__init__(message, response, **kwargs)


class ClientAuthenticationError(HttpResponseError):
    """A remote store refused the credential, or the call is beyond what it allows (401/403
    AuthenticationFailed; azure.core.exceptions.ClientAuthenticationError): fix the account key
    or the SAS, retrying will not help. The message never holds the key or the signature."""

    _default_status = 403
    _default_error_code = "AuthenticationFailed"


class StoreBusyError(HttpResponseError):
    """A resource is held elsewhere (partkv's Busy): the store's directory is open in another
    process, or the storage engine held writes back too long. Retrying later may succeed."""

    _default_status = 503
    _default_error_code = "ServerBusy"


class StoreCorruptionError(HttpResponseError):
    """Stored bytes could not be decoded (partkv's Corruption; 500 InternalError)."""

    _default_status = 500
    _default_error_code = "InternalError"


class StoreIOError(HttpResponseError):
    """The file system, the storage engine or the network failed (partkv's IOError; 500)."""

    _default_status = 500
    _default_error_code = "InternalError"


class ChangeFeedTrimmedError(HttpResponseError):
    """A change feed position that retention removed (partkv's Trimmed; 410, error code
    "Trimmed"): the changes between it and the oldest position kept are gone. The message names
    the oldest position kept; :meth:`partkv.TableClient.get_change_feed_state` gives its token
    (``first_token``) to read on from there, knowing some changes were missed."""

    _default_status = 410
    _default_error_code = "Trimmed"


class TableTransactionError(HttpResponseError):
    """A transaction failed and none of its operations was applied
    (azure.data.tables.TableTransactionError).

    :ivar int index: the index of the operation that failed; 0 when the failure is not tied to
        one operation (as azure-data-tables).
    :ivar error_code: the error code of the failing operation (EntityAlreadyExists, ...).
    """

    def __init__(self, message=None, response=None, **kwargs):
        index = kwargs.pop("index", None)
        super().__init__(message, response, **kwargs)
        self.index = index if index is not None else self._extract_index()

    def _extract_index(self):
        try:
            return int(self.message.split(":", 1)[0])
        except (ValueError, AttributeError):
            return 0


class RequestTooLargeError(TableTransactionError):
    """A transaction over the 4 MiB payload limit (413; azure.data.tables.RequestTooLargeError)."""

    _default_status = 413
    _default_error_code = "RequestBodyTooLarge"


class InvalidTransactionError(TableTransactionError, ValueError):
    """A transaction refused for bad input (400): a :class:`TableTransactionError` that is also a
    ``ValueError``, as :class:`InvalidArgumentError` is."""

    _default_status = 400
    _default_error_code = "InvalidInput"


class ClosedError(ValueError):
    """A call on a client whose store or table was closed ("store is closed")."""


class ValueOutOfRangeError(TypeError, ValueError):
    """A Python value outside the range of the EDM type it maps to (an ``int`` beyond Int32,
    an Int64 beyond 64 bits). A ``TypeError`` as in azure-data-tables ("... is too large to be
    cast to type Edm.Int32"), and a ``ValueError`` too."""
