#pragma once
// JSON pieces the change page and the history page share.

#include <nlohmann/json.hpp>
#include <string>

#include "feeddiff/diff.h"

namespace feeddiff::page {

/// A changed field, before and after, as the change page's JSON writes it.
nlohmann::ordered_json field_change_to_json(const FieldChange& change);

/// A document as the JSON pages write it: two-space indent, invisible characters escaped, a
/// final line end.
std::string json_document(const nlohmann::ordered_json& document);

}  // namespace feeddiff::page
