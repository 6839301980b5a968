// When an archived page's extraction is not to be trusted as the article: the rules of
// docs/articles.md ("Honest in doubt"). A version in doubt is archived and marked, never
// reported as an edit, and the next trusted version is compared with the last trusted one.

#include <fmt/format.h>
#include <array>

#include "feeddiff/poll.h"

namespace feeddiff {

namespace {

// Pages under this many words may be a wall or an error page rather than an article that
// mentions one; a long article that says "subscribe" or "404" is still the article.
constexpr std::size_t kShortPageWords = 200;

// Bytes of the page searched for a challenge's markers: they sit in its head and scripts,
// which some challenges pad to hundreds of KB (the corpus has one at 447 KB).
constexpr std::size_t kSniffBytes = std::size_t{1} << 20;

bool has_any(const std::string& haystack, std::initializer_list<std::string_view> needles) {
  for (std::string_view n : needles)
    if (haystack.find(n) != std::string::npos) return true;
  return false;
}

}  // namespace

std::string article_doubt(long status, std::string_view html, std::string_view title,
                          std::string_view text, std::size_t previous_words) {
  if (status < 200 || status > 299) return fmt::format("HTTP {}", status);
  const std::string page = to_lower(html.substr(0, kSniffBytes));
  const std::string head = to_lower(title);
  const std::size_t words = count_words(text);
  // A bot challenge (Cloudflare's, a CAPTCHA) whatever text stands beside it.
  if (has_any(page, {"/cdn-cgi/challenge-platform", "__cf$cv$params", "cf-browser-verification",
                     "cf_chl_", "/cdn-cgi/bm/cv/", "captcha-bypass", "g-recaptcha", "hcaptcha",
                     "ddos-guard", "px-captcha", "jschl", "checking your browser before"}) ||
      has_any(head, {"just a moment", "attention required", "are you a robot",
                     "verify you are human", "checking your browser", "access denied"}))
    return "the page is a bot challenge";
  if (words < kShortPageWords) {
    const std::string body = to_lower(text);
    if (has_any(page, {"<noscript"}) &&
        has_any(page + body,
                {"enable javascript", "javascript is required", "requires javascript",
                 "javascript is disabled", "turn on javascript", "javascript to run this app"}))
      return "the page needs JavaScript to show its text";
    if (has_any(head, {"before you continue", "cookie", "consent", "privacy choices"}) ||
        (has_any(body, {"cookie", "consent"}) &&
         has_any(body, {"accept all", "reject all", "manage options", "we value your privacy",
                        "before you continue"})))
      return "the page is a consent wall";
    if (has_any(body, {"subscribe to continue", "subscribe to read", "subscribers only",
                       "to continue reading", "already a subscriber", "sign in to read",
                       "log in to read", "this article is for subscribers"}))
      return "the page is a paywall";
    if (has_any(head,
                {"404", "not found", "page not found", "server error", "unavailable", "error"}))
      return "the page is an error page";
  }
  if (words == 0) return "the page has no text to read";
  if (words < kArticleMinWords) return fmt::format("only {} word{}", words, words == 1 ? "" : "s");
  if (previous_words && words * 2 < previous_words)
    return fmt::format("the text shrank from {} words to {}", previous_words, words);
  return {};
}

}  // namespace feeddiff
