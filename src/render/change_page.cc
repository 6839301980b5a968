// A change page by the name of its format, as `show` and `diff` take it from the command line.

#include "feeddiff/render.h"

namespace feeddiff {

std::string render_change(const ChangeView& change, const RenderOptions& options,
                          std::string_view format, const HtmlLinks& links) {
  if (format == "markdown") return render_markdown(change, options);
  if (format == "json") return render_json(change, options);
  if (format == "html") return render_html(change, options, links);
  return render_text(change, options);
}

}  // namespace feeddiff
