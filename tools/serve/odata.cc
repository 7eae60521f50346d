// OData JSON of the Table service's responses (odata.h).

#include "tools/serve/odata.h"

#include <nlohmann/json.hpp>

#include "tools/serve/uri.h"

namespace partkv::serve {
namespace {

std::string Quote(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false,
                                             nlohmann::json::error_handler_t::replace);
}

bool Mentions(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool IsSystem(std::string_view name) {
  return name == "PartitionKey" || name == "RowKey" || name == "Timestamp";
}

}  // namespace

JsonMetadata MetadataFor(const HttpRequest& request) {
  std::string wanted;
  if (const std::string* format = request.Param("$format")) wanted = *format;
  if (wanted.empty()) wanted = request.Header("Accept");
  if (Mentions(wanted, "odata=nometadata")) return JsonMetadata::kNone;
  if (Mentions(wanted, "odata=fullmetadata")) return JsonMetadata::kFull;
  return JsonMetadata::kMinimal;
}

std::string ContentTypeFor(JsonMetadata metadata) {
  switch (metadata) {
    case JsonMetadata::kNone:
      return "application/json;odata=nometadata;streaming=true;charset=utf-8";
    case JsonMetadata::kFull:
      return "application/json;odata=fullmetadata;streaming=true;charset=utf-8";
    case JsonMetadata::kMinimal:
      break;
  }
  return "application/json;odata=minimalmetadata;streaming=true;charset=utf-8";
}

std::string EntityJson(const Entity& entity, std::string_view table, const ODataContext& ctx,
                       bool element, const std::vector<std::string>& select) {
  JsonWriteOptions options;
  options.metadata = ctx.metadata;
  std::string body = EntityToJson(entity, options);  // "{...}"
  std::string prefix = "{";
  if (element && ctx.metadata != JsonMetadata::kNone) {
    prefix += "\"odata.metadata\":" +
              Quote(ctx.account_url + "/$metadata#" + std::string(table) + "/@Element") + ",";
  }
  if (ctx.metadata == JsonMetadata::kFull) {
    std::string path = EntityPath(table, entity.partition_key(), entity.row_key());
    prefix += "\"odata.type\":" + Quote(ctx.account + "." + std::string(table)) +
              ",\"odata.id\":" + Quote(ctx.account_url + "/" + path) +
              ",\"odata.editLink\":" + Quote(path) + ",";
  }
  body.replace(0, 1, prefix);
  if (!select.empty()) {
    std::string nulls;
    for (const std::string& name : select) {
      if (IsSystem(name) || entity.Get(name) != nullptr) continue;
      nulls.push_back(',');
      nulls += Quote(name);
      nulls += ":null";
    }
    if (!nulls.empty()) body.insert(body.size() - 1, nulls);
  }
  return body;
}

std::string EntityPageJson(const std::vector<Entity>& entities, std::string_view table,
                           const ODataContext& ctx, const std::vector<std::string>& select) {
  std::string out = "{";
  if (ctx.metadata != JsonMetadata::kNone) {
    out += "\"odata.metadata\":" + Quote(ctx.account_url + "/$metadata#" + std::string(table)) + ",";
  }
  out += "\"value\":[";
  for (size_t i = 0; i < entities.size(); ++i) {
    if (i > 0) out.push_back(',');
    out += EntityJson(entities[i], table, ctx, false, select);
  }
  out += "]}";
  return out;
}

namespace {

nlohmann::json TableObject(std::string_view name, const ODataContext& ctx) {
  nlohmann::json t = nlohmann::json::object();
  if (ctx.metadata == JsonMetadata::kFull) {
    // Table names are letters and digits: nothing to quote or encode.
    std::string path = "Tables('" + std::string(name) + "')";
    t["odata.type"] = ctx.account + ".Tables";
    t["odata.id"] = ctx.account_url + "/" + path;
    t["odata.editLink"] = path;
  }
  t["TableName"] = std::string(name);
  return t;
}

}  // namespace

std::string TableJson(std::string_view name, const ODataContext& ctx, bool element) {
  nlohmann::json t = TableObject(name, ctx);
  if (element && ctx.metadata != JsonMetadata::kNone) {
    t["odata.metadata"] = ctx.account_url + "/$metadata#Tables/@Element";
  }
  return t.dump();
}

std::string TablePageJson(const std::vector<std::string>& names, const ODataContext& ctx) {
  nlohmann::json page = nlohmann::json::object();
  if (ctx.metadata != JsonMetadata::kNone) {
    page["odata.metadata"] = ctx.account_url + "/$metadata#Tables";
  }
  nlohmann::json values = nlohmann::json::array();
  for (const std::string& name : names) values.push_back(TableObject(name, ctx));
  page["value"] = std::move(values);
  return page.dump();
}

}  // namespace partkv::serve
