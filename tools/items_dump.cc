// Prints what normalize makes of a feed file, for scripts that compare it with other parsers
// (until `feeddiff items --json` exists):
//   items_dump FILE...            one JSON line per item: {"file","id","title"}, and one per
//                                 file {"file","format","items","error"}
//   items_dump --canonical FILE   the canonical text
//   items_dump --repairs FILE     the repairs, one a line
// A file may be followed by ":charset=..." in a separate argument starting with "--hint=".

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "feeddiff/normalize.h"

int main(int argc, char** argv) {
  std::string mode = "items", hint;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--canonical" || arg == "--repairs" || arg == "--items") {
      mode = arg.substr(2);
      continue;
    }
    if (arg.rfind("--hint=", 0) == 0) {
      hint = arg.substr(7);
      continue;
    }
    std::ifstream in(arg, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    const auto r = feeddiff::normalize(s.str(), hint);
    hint.clear();
    if (mode == "canonical") {
      if (r)
        std::cout << r->text;
      else
        std::cerr << arg << ": " << r.error().message << "\n";
      continue;
    }
    if (mode == "repairs") {
      if (r)
        for (const auto& rep : r->repairs) std::cout << rep.line << ": " << rep.what << "\n";
      else
        std::cerr << arg << ": " << r.error().message << "\n";
      continue;
    }
    nlohmann::json head = {{"file", arg}};
    if (!r) {
      head["error"] = r.error().message;
      std::cout << head.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      continue;
    }
    head["format"] = r->feed.format;
    head["items"] = r->feed.items.size();
    head["encoding"] = r->encoding;
    std::cout << head.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    for (const auto& item : r->feed.items) {
      nlohmann::json j = {
          {"file", arg}, {"id", item.id}, {"title", item.title}, {"link", item.link}};
      std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
  }
}
