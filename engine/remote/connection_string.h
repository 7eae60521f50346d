// Where a remote store is: an Azure Storage connection string or a table endpoint URL with a SAS,
// read as the Azure SDKs read them, for Azure Table Storage, Azure Cosmos DB for Table, Azurite
// and `partkv serve`.
//
// A location is one of
//
//   UseDevelopmentStorage=true[;DevelopmentStorageProxyUri=URL]
//       http://127.0.0.1:10002/devstoreaccount1 with the development account's published key;
//       a proxy URI's scheme and host replace http://127.0.0.1, the port stays 10002 (a proxy
//       URI with a port, a path or a query is refused rather than partly ignored).
//   [DefaultEndpointsProtocol=https|http;]AccountName=A;AccountKey=KEY[;EndpointSuffix=S]
//       PROTOCOL://A.table.S (https and core.windows.net by default), signed with the key.
//   [AccountName=A;]TableEndpoint=URL;AccountKey=KEY | SharedAccessSignature=SAS
//       the URL as given (Cosmos DB for Table, Azurite, `partkv serve`, a custom domain).
//   https://A.table.core.windows.net/?sv=…&sig=…      an endpoint URL, its query the SAS.
//
// Connection strings: `Setting=value` segments separated by ';'; empty segments and a trailing
// ';' are allowed; whitespace around a setting's name and its value is dropped; a value is split
// from its name at the first '=' (so a SAS or base64 padding stays whole); names compare
// case-insensitively, values keep their case. A setting given twice, or empty, is refused. The
// other services' settings (BlobEndpoint, QueueEndpoint, FileEndpoint and their secondaries)
// and TableSecondaryEndpoint are accepted and not used; any other name is refused.
// UseDevelopmentStorage takes no other table setting. AccountKey needs AccountName (Shared Key
// signs with it) and excludes SharedAccessSignature; a SAS must hold a `sig`, and a leading '?'
// is dropped. An AccountName is 1 to 63 letters, digits and '-', as it goes into a host name.
//
// URLs: http or https; the host as written ("[::1]" keeps its brackets); the port as written,
// else 80 or 443; no user information, fragment or whitespace. An endpoint is path-style
// (base_path "/ACCOUNT"), the account its path's one segment, when its host is an IP address or
// `localhost` or its path is not empty; otherwise it is host-style (base_path ""). A host of
// Azure's form ACCOUNT.table.SUFFIX names the account itself and takes no path (a table's URL is
// not an endpoint). Trailing '/' are dropped. The account a URL names fills `account` and must
// agree with AccountName when both are given. TableEndpoint takes no query: the SAS is a setting.
//
// Every error is InvalidArgument naming the setting and what is wrong. No message holds an
// account key or a signature: URLs are shown through Redact, other values only when they are
// valid names.
//
// All functions are pure and thread-safe.

#ifndef PARTKV_ENGINE_REMOTE_CONNECTION_STRING_H_
#define PARTKV_ENGINE_REMOTE_CONNECTION_STRING_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "partkv/result.h"

namespace partkv::remote {

// Where a remote store is, and how requests to it are signed: by Shared Key when `key` is set,
// by SAS when `sas` is (never both).
struct Endpoint {
  std::string scheme;     // "http" or "https"
  std::string host;       // as in the URL, brackets kept for IPv6 ("[::1]")
  uint16_t port = 0;      // the URL's, else 80 / 443
  std::string base_path;  // "" (host-style) or "/ACCOUNT" (path-style); never a trailing '/'
  std::string account;    // the account name; empty only with a SAS that names none
  std::string key;        // the decoded account key (raw bytes); empty when signing by SAS
  std::string sas;        // the SAS query without a leading '?'; empty when signing by key
  bool development_storage = false;  // UseDevelopmentStorage=true

  // scheme://host[:port]base_path, the port only when it is not the scheme's default.
  std::string Url() const;
};

// True when `location` names a remote store rather than a directory: it starts with http:// or
// https:// (case-insensitive), or one of its ';'-separated segments is `Setting=…` with a setting
// name this file knows (case-insensitive). So "./data", "/var/lib/x", "C:\data" and "data=1"
// are directories, and so is "./AccountName=x" (the name is "./AccountName"), the way to name
// a directory that would otherwise read as a connection string. Any segment, not only the
// first, counts, so that a misspelt first setting ("AcountName=a;AccountKey=…") is refused as
// a connection string rather than taken for a directory named after the key.
bool IsRemoteLocation(std::string_view location);

// Parses a connection string or an endpoint URL with a SAS as its query; surrounding whitespace
// is ignored. InvalidArgument, naming the setting, for anything the rules above refuse, for a
// location that is neither, and for a location without a credential (an AccountKey with its
// AccountName, or a SAS).
Result<Endpoint> ParseLocation(std::string_view location);

// `location` with its secrets hidden, for messages and logs: the values of AccountKey and
// SharedAccessSignature, every `sig` in a query and the user information of a URL become
// "<redacted>". A secret given without its setting name cannot be recognised: never show text
// that failed to parse as a setting.
std::string Redact(std::string_view location);

}  // namespace partkv::remote

#endif  // PARTKV_ENGINE_REMOTE_CONNECTION_STRING_H_
