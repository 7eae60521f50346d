// Azure Table's error replies: status codes, error codes and bodies
// (Azure's "Table Storage error codes"; docs/serve.md "Errors").
//
// Every failure answers with the HTTP status and the error code the Table service uses, in the
// `x-ms-error-code` header and in Azure's JSON error body
//   {"odata.error":{"code":"…","message":{"lang":"en-US","value":"…\nRequestId:…\nTime:…"}}}
// whose message is Azure's sentence for the code, followed by partkv's own detail line when it
// says more (which limit, which property, where a filter is wrong).
//
// A failure of the store itself (an I/O error, corruption) is answered 500 InternalError with
// the kind of failure ("the store could not write: no space left on device") but never the
// library's message, which names files of the server ("/data/store/000012.log: ..."): that goes
// to stderr, one line with the reply's request id, for the operator.

#ifndef PARTKV_TOOLS_SERVE_ERRORS_H_
#define PARTKV_TOOLS_SERVE_ERRORS_H_

#include <ctime>
#include <string>
#include <string_view>

#include "partkv/status.h"
#include "tools/serve/http_types.h"

namespace partkv::serve {

struct AzureError {
  int status = 500;
  std::string code;
  std::string message;  // Azure's sentence, then the detail (without RequestId / Time)
  // Never sent: the full library status of an internal failure, which the reply building
  // functions below write to stderr with the request id. Empty for the client's own errors.
  std::string log_detail;
};

// What a NotFound refers to: Azure names a missing table TableNotFound on entity operations,
// and a missing entity (or a table on table operations) ResourceNotFound.
enum class Subject { kTableOperation, kEntityOperation };

// The Azure error for a failed library Status. InvalidArgument is refined by what it names
// (a property over 64 KiB → PropertyValueTooLarge, an entity over 1 MiB → EntityTooLarge, ...).
// IOError, Corruption and anything unexpected are 500 InternalError whose message names the
// kind of failure only; the status itself goes to log_detail.
AzureError ErrorFor(const Status& status, Subject subject);

// An error with Azure's standard sentence for `code` and an optional detail.
AzureError MakeError(int status, std::string_view code, std::string_view detail = {});

// The reply for an error. `index_prefix` (e.g. "3:") starts the message of a batch failure.
HttpReply ErrorReply(const AzureError& error, std::string_view index_prefix = {});

// The reply for an error of an XML operation (service properties, table ACLs): Azure's XML
// error body, <m:error><m:code>…</m:code><m:message xml:lang="en-US">…</m:message></m:error>,
// as application/xml.
HttpReply XmlErrorReply(const AzureError& error);

// The JSON error body alone (for batch sub-responses), with its request id. Like ErrorReply
// and XmlErrorReply, it writes a set log_detail to stderr with that request id.
std::string ErrorBody(const AzureError& error, std::string_view request_id,
                      std::string_view index_prefix = {});

// A random UUID (version 4), as Azure's request ids.
std::string NewRequestId();
// `when` in RFC 1123 form ("Sun, 06 Nov 1994 08:49:37 GMT").
std::string HttpDate(std::time_t when);
// The current time in that form, for the Date header.
std::string HttpDateNow();

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_ERRORS_H_
