// Bytes in any encoding to valid UTF-8. Order of authority: a BOM, then the charset the
// transport named, then the XML declaration, then UTF-8 (RFC 7303). Labels are read as
// browsers read them (WHATWG Encoding): a feed labelled iso-8859-1 is in practice
// windows-1252, one labelled gb2312 in practice GBK.

#include <iconv.h>

#include <cerrno>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <memory>
#include <string>
#include <string_view>

#include "normalize/internal.h"

namespace feeddiff::normalize_detail {
namespace {

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string_view trim_space_and_quotes(std::string_view s) {
  while (!s.empty() && (is_space(s.front()) || s.front() == '"' || s.front() == '\''))
    s.remove_prefix(1);
  while (!s.empty() && (is_space(s.back()) || s.back() == '"' || s.back() == '\''))
    s.remove_suffix(1);
  return s;
}

// The iconv name to decode a label with; "" for UTF-8. Unknown labels pass through
// upper-cased for iconv to judge.
std::string decoder_for(std::string_view label) {
  const std::string l = lower_ascii(label);
  if (l == "utf-8" || l == "utf8" || l == "unicode-1-1-utf-8" || l == "x-unicode20utf8") return "";
  if (l == "us-ascii" || l == "ascii" || l == "iso-8859-1" || l == "iso8859-1" ||
      l == "iso_8859-1" || l == "latin1" || l == "latin-1" || l == "l1" || l == "cp819" ||
      l == "ibm819" || l == "windows-1252" || l == "cp1252" || l == "x-cp1252" ||
      l == "iso-ir-100" || l == "csisolatin1" || l == "ansi_x3.4-1968" || l == "iso646-us")
    return "WINDOWS-1252";
  if (l == "gb2312" || l == "gbk" || l == "gb18030" || l == "x-gbk" || l == "chinese" ||
      l == "csgb2312" || l == "euc-cn" || l == "cp936" || l == "gb_2312-80" || l == "iso-ir-58")
    return "GB18030";
  if (l == "big5" || l == "big5-hkscs" || l == "cn-big5" || l == "x-x-big5" || l == "csbig5")
    return "BIG5-HKSCS";
  if (l == "euc-kr" || l == "cp949" || l == "ks_c_5601-1987" || l == "windows-949" ||
      l == "ksc5601" || l == "csksc56011987" || l == "korean" || l == "uhc")
    return "CP949";
  if (l == "shift_jis" || l == "shift-jis" || l == "sjis" || l == "x-sjis" || l == "ms_kanji" ||
      l == "windows-31j" || l == "cp932" || l == "csshiftjis" || l == "ms932")
    return "CP932";
  if (l == "tis-620" || l == "windows-874" || l == "iso-8859-11") return "CP874";
  if (l == "macintosh" || l == "mac" || l == "x-mac-roman") return "MACINTOSH";
  if (l.starts_with("cp125") && l.size() == 6) return "WINDOWS-" + l.substr(2);
  if (l.starts_with("x-cp125") && l.size() == 8) return "WINDOWS-" + l.substr(4);
  std::string up(label);
  for (char& c : up)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return up;
}

// The charset parameter of a Content-Type value, or the value itself when it is bare.
std::string_view hint_label(std::string_view hint) {
  if (hint.find('/') == std::string_view::npos && hint.find(';') == std::string_view::npos &&
      hint.find('=') == std::string_view::npos)
    return trim_space_and_quotes(hint);
  const std::string l = lower_ascii(hint);
  std::size_t pos = l.find("charset");
  while (pos != std::string::npos) {
    std::size_t p = pos + 7;
    while (p < l.size() && is_space(l[p])) ++p;
    if (p < l.size() && l[p] == '=') {
      ++p;
      std::size_t end = p;
      while (end < l.size() && l[end] != ';') ++end;
      return trim_space_and_quotes(hint.substr(p, end - p));
    }
    pos = l.find("charset", pos + 7);
  }
  return {};
}

// The encoding attribute of an XML declaration in ASCII-compatible bytes, "" when none.
std::string_view declared_label(std::string_view bytes) {
  std::string_view head = bytes.substr(0, 1024);
  const std::size_t start = head.find("<?xml");
  if (start == std::string_view::npos) return {};
  const std::size_t end = head.find("?>", start);
  std::string_view decl = head.substr(start, end == std::string_view::npos ? 200 : end - start);
  const std::size_t enc = decl.find("encoding");
  if (enc == std::string_view::npos) return {};
  std::size_t p = enc + 8;
  while (p < decl.size() && is_space(decl[p])) ++p;
  if (p >= decl.size() || decl[p] != '=') return {};
  ++p;
  while (p < decl.size() && is_space(decl[p])) ++p;
  if (p >= decl.size() || (decl[p] != '"' && decl[p] != '\'')) return {};
  const char quote = decl[p++];
  const std::size_t close = decl.find(quote, p);
  if (close == std::string_view::npos || close - p > 40) return {};
  return decl.substr(p, close - p);
}

// `in` when it is valid UTF-8; else a copy in `out` with each invalid byte replaced.
std::string_view utf8_repair(std::string_view in, std::string& out, RepairLog& log) {
  std::size_t i = 0;
  const std::size_t n = in.size();
  std::size_t clean_from = 0;
  bool copying = false;
  while (i < n) {
    // Fast path over ASCII, sixteen (or eight) bytes at a time.
#if defined(__SSE2__)
    while (i + 16 <= n &&
           _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in.data() + i))) == 0)
      i += 16;
#endif
    while (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, in.data() + i, 8);
      if (w & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= n) break;
    const std::size_t len = decode_utf8(in, i).size;
    if (len != 0) {
      i += len;
      continue;
    }
    if (!copying) {
      out.clear();
      out.reserve(n + 16);
      copying = true;
    }
    out.append(in.substr(clean_from, i - clean_from));
    log.add(out, out.size(),
            "replaced a byte invalid in UTF-8 (0x" +
                std::string(1, "0123456789ABCDEF"[static_cast<unsigned char>(in[i]) >> 4]) +
                std::string(1, "0123456789ABCDEF"[static_cast<unsigned char>(in[i]) & 0xF]) +
                ") with U+FFFD");
    out += "\xEF\xBF\xBD";
    ++i;
    clean_from = i;
  }
  if (!copying) return in;
  out.append(in.substr(clean_from));
  return out;
}

struct IconvCloser {
  void operator()(iconv_t cd) const { iconv_close(cd); }
};

// Decodes with iconv; false when iconv does not know the encoding.
bool iconv_decode(std::string_view in, const std::string& from, std::size_t unit, std::string& out,
                  RepairLog& log) {
  iconv_t cd = iconv_open("UTF-8", from.c_str());
  if (cd == reinterpret_cast<iconv_t>(-1)) return false;
  std::unique_ptr<std::remove_pointer_t<iconv_t>, IconvCloser> guard(cd);
  out.clear();
  out.resize(in.size() * 2 + 16);
  char* src = const_cast<char*>(in.data());  // iconv's interface is not const-correct
  std::size_t src_left = in.size();
  std::size_t used = 0;
  while (src_left > 0) {
    char* dst = out.data() + used;
    std::size_t dst_left = out.size() - used;
    const std::size_t r = iconv(cd, &src, &src_left, &dst, &dst_left);
    used = out.size() - dst_left;
    if (r != static_cast<std::size_t>(-1)) break;
    if (errno == E2BIG) {
      out.resize(out.size() * 2);
      continue;
    }
    // EILSEQ (a byte sequence invalid here) or EINVAL (cut short at the end).
    out.resize(std::max(out.size(), used + 16));
    const std::string_view done(out.data(), used);
    log.add(done, used,
            errno == EINVAL ? "the input ends in the middle of a character; replaced with U+FFFD"
                            : "replaced bytes invalid in " + from + " with U+FFFD");
    std::memcpy(out.data() + used, "\xEF\xBF\xBD", 3);
    used += 3;
    const std::size_t skip = std::min(unit, src_left);
    src += skip;
    src_left -= skip;
    iconv(cd, nullptr, nullptr, nullptr, nullptr);
  }
  out.resize(used);
  return true;
}

}  // namespace

Decoded decode(std::string_view bytes, std::string_view charset_hint, RepairLog& log) {
  Decoded d;
  std::string from;  // iconv name, "" = UTF-8
  std::size_t unit = 1;
  const auto b = [&](std::size_t i) {
    return i < bytes.size() ? static_cast<unsigned char>(bytes[i]) : 0x100u;
  };
  if (b(0) == 0xEF && b(1) == 0xBB && b(2) == 0xBF) {
    bytes.remove_prefix(3);
  } else if (b(0) == 0 && b(1) == 0 && b(2) == 0xFE && b(3) == 0xFF) {
    from = "UTF-32BE", unit = 4, bytes.remove_prefix(4);
  } else if (b(0) == 0xFF && b(1) == 0xFE && b(2) == 0 && b(3) == 0) {
    from = "UTF-32LE", unit = 4, bytes.remove_prefix(4);
  } else if (b(0) == 0xFE && b(1) == 0xFF) {
    from = "UTF-16BE", unit = 2, bytes.remove_prefix(2);
  } else if (b(0) == 0xFF && b(1) == 0xFE) {
    from = "UTF-16LE", unit = 2, bytes.remove_prefix(2);
  } else if (b(0) == 0 && b(1) == 0 && b(2) == 0 && b(3) != 0 && b(3) < 0x80) {
    from = "UTF-32BE", unit = 4;
  } else if (b(0) != 0 && b(0) < 0x80 && b(1) == 0 && b(2) == 0 && b(3) == 0) {
    from = "UTF-32LE", unit = 4;
  } else if (b(0) == 0 && b(1) != 0 && b(1) < 0x80 && b(2) == 0 && b(3) != 0 && b(3) < 0x80) {
    from = "UTF-16BE", unit = 2;
  } else if (b(0) != 0 && b(0) < 0x80 && b(1) == 0 && b(2) != 0 && b(2) < 0x80 && b(3) == 0) {
    from = "UTF-16LE", unit = 2;
  } else {
    std::string_view label = hint_label(charset_hint);
    std::string_view source = "charset";
    if (label.empty() || lower_ascii(label).starts_with("utf-16") ||
        lower_ascii(label).starts_with("utf-32")) {
      label = declared_label(bytes);
      source = "declared encoding";
    }
    if (!label.empty()) {
      const std::string l = lower_ascii(label);
      if (l.starts_with("utf-16") || l.starts_with("utf-32") || l == "ucs-2" || l == "ucs-4") {
        log.add_line(1, std::string(source) + " '" + std::string(label) +
                            "' does not match 8-bit bytes; read as UTF-8");
      } else {
        from = decoder_for(label);
      }
    }
  }
  if (!from.empty()) {
    std::string out;
    if (iconv_decode(bytes, from, unit, out, log)) {
      d.encoding = lower_ascii(from);
      // iconv output is valid UTF-8 except for what a broken converter lets through.
      if (utf8_repair(out, d.storage, log).data() == out.data()) d.storage = std::move(out);
      return d;
    }
    log.add_line(1, "unknown encoding '" + from + "'; read as UTF-8");
  }
  d.encoding = "utf-8";
  const std::string_view text = utf8_repair(bytes, d.storage, log);
  d.borrowed = text.data() == bytes.data();
  if (d.borrowed) d.same = text;
  return d;
}

}  // namespace feeddiff::normalize_detail
