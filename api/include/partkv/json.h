// Entity JSON — Azure Table's JSON entity payload (OData "JSON light"), one entity per object.
//
// EntityFromJson reads what Azure Table clients send; EntityToJson writes what the service
// returns, at one of the three OData metadata levels. A property's EDM type travels in the JSON
// form of its value and, where that form is ambiguous, in an annotation member
// "Name@odata.type":"Edm.X" (before or after the value). docs/json.md gives every accepted form,
// the output rules and the error messages; in short:
//
//   String    "text"                                   Int32    5
//   Boolean   true                                     Double   1.5
//   Double    2.0, "NaN", "Infinity", "-Infinity"      + "@odata.type":"Edm.Double"
//             (also any number as a string, "1.5e+24")
//   Int64     "9007199254740993"                       + "@odata.type":"Edm.Int64"
//   DateTime  "2024-01-02T03:04:05.5Z"                 + "@odata.type":"Edm.DateTime"
//             (written as Azure returns it: no trailing zeros in the fraction)
//   Guid      "c9da6455-213d-42c9-9a79-3e9149a57833"   + "@odata.type":"Edm.Guid"
//   Binary    "AAEC" (base64)                          + "@odata.type":"Edm.Binary"
//
// EntityToJson(e) read back with EntityFromJson has the same content as e (Entity::SameContent)
// for every value at kMinimal and kFull (kNone drops the annotations, so non-inferable types come
// back as String). Exceptions: NaN comes back as the canonical quiet NaN (sign and payload are
// not kept), and strings that are not valid UTF-8 are written with U+FFFD in place of the bad
// bytes. The store's own entities always hold valid UTF-8.
//
// Neither function validates against the table's limits (key characters, name rules, sizes);
// that happens when the entity is written. Both are pure functions and thread-safe.

#ifndef PARTKV_JSON_H_
#define PARTKV_JSON_H_

#include <string>
#include <string_view>

#include "partkv/entity.h"
#include "partkv/result.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

// How much type metadata EntityToJson writes, after the OData "odata=" Accept parameter.
enum class JsonMetadata {
  kNone,     // odata=nometadata: no annotations, no odata.etag
  kMinimal,  // odata=minimalmetadata: annotations only where the JSON form is ambiguous
  kFull,     // odata=fullmetadata: annotations on every non-String property
};

struct JsonWriteOptions {
  JsonMetadata metadata = JsonMetadata::kMinimal;
  // Write the system properties: Timestamp (when nonzero) and, for kMinimal and kFull,
  // odata.etag (when nonempty).
  bool include_system = true;
};

struct JsonReadOptions {
  // When false, a missing PartitionKey or RowKey leaves the entity's key empty (for callers that
  // compute keys themselves); when true, a missing key is InvalidArgument.
  bool require_keys = false;
  // When true, "Timestamp" (a DateTime string) and "odata.etag" (a string) set the entity's
  // timestamp() and etag() instead of being ignored, as a client reads the service's entities;
  // either being of another JSON type is then InvalidArgument.
  bool read_system = false;
};

// Parses one JSON object into an Entity. PartitionKey and RowKey, when present, must be strings.
// Timestamp, odata.etag, odata.metadata, odata.type, odata.id, odata.editLink and their
// annotations are ignored (but see JsonReadOptions::read_system); a property whose value is null
// is omitted.
//
// Returns InvalidArgument, with a message naming the property and what is wrong, for: malformed
// JSON or invalid UTF-8 (the message gives the byte offset), a value that is not an object, a
// duplicate member, a nested object or array, an unknown Edm type, an annotation without its
// property, a value that does not fit its annotated type, and an unannotated integer outside
// the Int32 range (Int64 must travel as an annotated decimal string, so no precision is lost).
Result<Entity> EntityFromJson(std::string_view json, const JsonReadOptions& options = {});

// Writes `entity` as compact single-line JSON (no newline; UTF-8 left unescaped), members in
// this order: odata.etag, PartitionKey, RowKey, Timestamp, then the properties in the entity's
// order, each annotation immediately before its value. Doubles are written in the shortest form
// that reads back to the same bits, always with a decimal point or an exponent.
std::string EntityToJson(const Entity& entity, const JsonWriteOptions& options = {});

// Whether EntityToJson writes a "Name@odata.type" annotation before `value` at this metadata
// level: never for kNone; for kFull on every non-String; for kMinimal where the JSON form alone
// would read back as another type (Int64, DateTime, Guid, Binary, and Doubles whose shortest
// digits read as an integer or that are not finite: 12.0 and NaN, not 12.5 or 1e+24, as Azure
// answers). For writers of Azure's JSON that build the text themselves (partkv serve).
bool JsonNeedsAnnotation(const Value& value, JsonMetadata metadata);

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_JSON_H_
