// The parts of Entity JSON (partkv/json.h) that its three files share, and its two readers.
//
// EntityFromJson runs two readers. The fast one (json_read.cc, on simdjson's On-Demand API)
// takes the shapes bulk data is made of — a flat object of strings, numbers, booleans and nulls
// with well-formed annotations — and declines everything else: an error of any kind, a nested
// value, a duplicate member, an unusual annotation or number form. The exact one
// (json_read_exact.cc, on nlohmann/json's SAX parser) decides every document and words every
// error. So the fast reader never accepts what the exact one rejects, and what it accepts has
// the content the exact one gives (tests/engine/vocab/json_read_test.cc checks both over every type
// and edge form). Built without simdjson, the fast reader declines everything.
//
// Not installed; for the library and its tests.

#ifndef PARTKV_ENGINE_VOCAB_JSON_INTERNAL_H_
#define PARTKV_ENGINE_VOCAB_JSON_INTERNAL_H_

#include <optional>
#include <string>
#include <string_view>

#include "partkv/entity.h"
#include "partkv/json.h"
#include "partkv/result.h"
#include "partkv/value.h"

namespace partkv::json_internal {

inline constexpr std::string_view kTypeSuffix = "@odata.type";

// Members the readers ignore, with their annotations (docs/json.md "Input rules").
inline bool IsSystemName(std::string_view name) {
  return name == "Timestamp" || name == "odata.etag" || name == "odata.metadata" ||
         name == "odata.type" || name == "odata.id" || name == "odata.editLink";
}

inline bool IsKeyName(std::string_view name) { return name == "PartitionKey" || name == "RowKey"; }

// "Edm.Int64" -> Type::kInt64; nullopt for anything else.
std::optional<Type> ParseEdmType(std::string_view text);

// How the text of an Edm.Double given as a JSON string reads (docs/json.md "Types").
enum class DoubleText {
  kOk,          // *out holds the value
  kMalformed,   // not "NaN", "Infinity", "-Infinity" nor a decimal or scientific number
  kOutOfRange,  // a number whose magnitude is beyond the largest double ("1e400")
};

// Reads `text` as Azure reads an Edm.Double sent as a string: "NaN", "Infinity", "-Infinity",
// or a decimal or scientific number with an optional sign ("-1.5", "+2", ".5", "3.",
// "1.23456789012346e+24"), correctly rounded; nothing else (no spaces, no hexadecimal, no
// other spelling of the special values). A number too small for a double reads as zero of its
// sign, as a JSON number does. Both readers use it, so they agree on every string.
DoubleText ParseDoubleText(std::string_view text, double* out);

// `s` as a JSON string literal; bytes that are not UTF-8 become U+FFFD. Exactly nlohmann's
// dump(ensure_ascii = false, error_handler replace) of the string.
std::string QuoteJson(std::string_view s);
// The same, appended to `out`.
void AppendQuotedJson(std::string& out, std::string_view s);

// The fast reader: the entity, or nullopt when it declines `json`. Thread-safe.
std::optional<Entity> FastEntityFromJson(std::string_view json, const JsonReadOptions& options);

// The exact reader: the answer EntityFromJson gives for every document. Thread-safe.
Result<Entity> ExactEntityFromJson(std::string_view json, const JsonReadOptions& options);

// Whether the library was built with the fast reader (with simdjson).
bool HaveFastReader();

}  // namespace partkv::json_internal

#endif  // PARTKV_ENGINE_VOCAB_JSON_INTERNAL_H_
