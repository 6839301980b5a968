// fmt's implementation, compiled once for the static build.
//
// Debian's libfmt-dev ships the shared libfmt.so but no libfmt.a, and header-only fmt
// (FMT_HEADER_ONLY) compiles fmt's whole implementation again in every file that formats:
// about a fifth of each such file's build time, in some 65 files. Here fmt's own
// format-inl.h is compiled once, with the explicit instantiations that fmt's format.h
// declares extern (or that its header-only mode would otherwise instantiate where used), as
// fmt's src/format.cc does in fmt's own build. Nothing of fmt is written here.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void vformat_to(buffer<char>&, string_view,
                                 basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
template FMT_API void buffer<wchar_t>::append(const wchar_t*, const wchar_t*);

}  // namespace detail
FMT_END_NAMESPACE
