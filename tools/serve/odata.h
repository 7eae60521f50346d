// OData JSON of the Table service's responses (docs/serve.md "Responses"): the metadata level a
// request asks for ($format, else Accept: odata=nometadata|minimalmetadata|fullmetadata; plain
// application/json is minimal), the Content-Type that names it, and the JSON of tables and
// entities at that level, with odata.metadata, odata.type, odata.id and odata.editLink as Azure
// writes them. Entity properties are written by partkv's own writer (partkv/json.h).
// Pure functions; thread-safe.

#ifndef PARTKV_TOOLS_SERVE_ODATA_H_
#define PARTKV_TOOLS_SERVE_ODATA_H_

#include <string>
#include <string_view>
#include <vector>

#include "partkv/entity.h"
#include "partkv/json.h"
#include "tools/serve/http_types.h"

namespace partkv::serve {

JsonMetadata MetadataFor(const HttpRequest& request);
std::string ContentTypeFor(JsonMetadata metadata);

// Where the response's resources live, for odata.metadata / odata.id: "http://host:port/account".
struct ODataContext {
  std::string account_url;
  std::string account;
  JsonMetadata metadata = JsonMetadata::kMinimal;
};

// One entity of `table`. `element` marks a single-entity response (point read, insert), which
// carries odata.metadata itself. `select` lists the $select names: those the entity lacks are
// written as null, as Azure does.
std::string EntityJson(const Entity& entity, std::string_view table, const ODataContext& ctx,
                       bool element, const std::vector<std::string>& select = {});

// A page of entities: {"odata.metadata":…,"value":[…]}.
std::string EntityPageJson(const std::vector<Entity>& entities, std::string_view table,
                           const ODataContext& ctx, const std::vector<std::string>& select);

// One table ({"TableName":…}) or a page of them.
std::string TableJson(std::string_view name, const ODataContext& ctx, bool element);
std::string TablePageJson(const std::vector<std::string>& names, const ODataContext& ctx);

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_ODATA_H_
