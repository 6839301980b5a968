// The fields a cosmetic change touched (item_summary.cc; item_summary_trailer is in poll.h).

#pragma once

#include <string>

#include "feeddiff/diff.h"

namespace feeddiff {

/// The fields a cosmetic change touched: its channel fields, then its items' ("ignored
/// fields" when only `ignore`d ones), comma-separated: for skip_cosmetic's line and the
/// Item-Summary trailer.
std::string cosmetic_fields(const ItemDiff& d);

}  // namespace feeddiff
