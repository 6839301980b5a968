#pragma once
// An item for the diff tests' feeds, written out.

#include <string>

#include "feeddiff/normalize.h"

namespace feeddiff::test {

/// An item of this id and title, every other field empty.
inline Item item(std::string id, std::string title = "t") {
  Item it;
  it.id = std::move(id);
  it.title = std::move(title);
  return it;
}

}  // namespace feeddiff::test
