// Filter: the public face of engine::Filter, the parser and evaluator queries use.

#include "partkv/filter.h"

#include "engine/filter_expr.h"

namespace partkv {

static_assert(Filter::kMaxComparisons == engine::Filter::kMaxComparisons);
static_assert(Filter::kMaxNesting == engine::Filter::kMaxNesting);

Filter::Filter() = default;
Filter::~Filter() = default;
Filter::Filter(const Filter&) = default;
Filter& Filter::operator=(const Filter&) = default;
Filter::Filter(Filter&&) noexcept = default;
Filter& Filter::operator=(Filter&&) noexcept = default;

Result<Filter> Filter::Parse(std::string_view odata_filter) {
  PARTKV_ASSIGN_OR_RETURN(engine::Filter parsed, engine::Filter::Parse(odata_filter));
  Filter filter;
  if (!parsed.empty()) filter.parsed_ = std::make_shared<const engine::Filter>(std::move(parsed));
  return filter;
}

bool Filter::empty() const { return parsed_ == nullptr; }

bool Filter::Matches(const Entity& entity) const {
  return parsed_ == nullptr || parsed_->Matches(entity);
}

std::string Filter::Canonical() const { return parsed_ == nullptr ? "" : parsed_->Canonical(); }

std::vector<std::string> Filter::PropertyNames() const {
  return parsed_ == nullptr ? std::vector<std::string>() : parsed_->PropertyNames();
}

}  // namespace partkv
