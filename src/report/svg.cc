#include "report/svg.h"

#include <fmt/format.h>

#include <cmath>

namespace anatomy::report {
namespace {

// Advance width in em of one character. DejaVu Sans (units per em 2048):
// digits 0.636, a 0.613, m 0.974, W 0.989, i 0.278, space 0.318; these
// classes round each up so the estimate errs wide.
double advance_em(unsigned char c) {
  if (c >= 0x80) return 1.0;  // any non-ASCII character (counted once per code point)
  switch (c) {
    case ' ':
    case 'i':
    case 'j':
    case 'l':
    case 'I':
    case 'J':
    case '.':
    case ',':
    case ':':
    case ';':
    case '\'':
    case '|':
    case '!':
      return 0.36;
    case 'f':
    case 'r':
    case 't':
    case '(':
    case ')':
    case '[':
    case ']':
    case '/':
    case '\\':
    case '-':
    case '{':
    case '}':
    case '"':
    case '`':
      return 0.46;
    case 'm':
    case 'w':
    case 'M':
    case 'W':
    case '%':
    case '@':
      return 1.0;
    default:
      break;
  }
  if (c >= 'A' && c <= 'Z') return 0.8;
  if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') return 0.66;
  return 0.86;  // + = < > # & ~ * ^ $ ? and the like
}

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

}  // namespace

double text_width(std::string_view s, double font_px, bool bold) {
  double em = 0;
  for (unsigned char c : s)
    if (!continuation(c)) em += advance_em(c);
  return em * font_px * (bold ? 1.1 : 1.0);
}

std::string fit_text(std::string_view s, double font_px, double max_px, bool bold) {
  if (text_width(s, font_px, bold) <= max_px) return std::string(s);
  static constexpr std::string_view kEllipsis = "…";
  const double budget = max_px - text_width(kEllipsis, font_px, bold);
  if (budget < 0) return "";
  double used = 0;
  size_t cut = 0;
  for (size_t i = 0; i < s.size();) {
    size_t next = i + 1;
    while (next < s.size() && continuation(static_cast<unsigned char>(s[next]))) ++next;
    const double w = advance_em(static_cast<unsigned char>(s[i])) * font_px * (bold ? 1.1 : 1.0);
    if (used + w > budget) break;
    used += w;
    cut = next;
    i = next;
  }
  std::string out(s.substr(0, cut));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + std::string(kEllipsis);
}

std::string escape_xml(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string coord(double v) {
  const double r = std::round(v * 100) / 100;
  std::string s = fmt::format("{:.2f}", r == 0 ? 0.0 : r);  // no "-0.00"
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

Svg::Svg(double width, double height, std::string label) : width_(width), height_(height), label_(std::move(label)) {}

void Svg::rect(double x, double y, double w, double h, std::string_view fill, std::string_view title,
               std::string_view stroke) {
  body_ += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}")", coord(x), coord(y), coord(w),
                       coord(h), fill);
  if (!stroke.empty()) body_ += fmt::format(R"( stroke="{}" stroke-width="1")", stroke);
  if (title.empty()) {
    body_ += "/>\n";
  } else {
    body_ += "><title>" + escape_xml(title) + "</title></rect>\n";
  }
}

void Svg::line(double x1, double y1, double x2, double y2, std::string_view stroke, double stroke_width, bool dashed) {
  body_ +=
      fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}"{}/>)", coord(x1), coord(y1),
                  coord(x2), coord(y2), stroke, coord(stroke_width), dashed ? R"( stroke-dasharray="4 3")" : "");
  body_ += "\n";
}

void Svg::polyline(const std::vector<double>& xy, std::string_view stroke, double stroke_width) {
  std::string points;
  for (size_t i = 0; i + 1 < xy.size(); i += 2) {
    if (!points.empty()) points += ' ';
    points += coord(xy[i]) + "," + coord(xy[i + 1]);
  }
  body_ += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"/>)", points, stroke,
                       coord(stroke_width));
  body_ += "\n";
}

void Svg::circle(double cx, double cy, double r, std::string_view fill, std::string_view title) {
  body_ += fmt::format(R"(<circle cx="{}" cy="{}" r="{}" fill="{}")", coord(cx), coord(cy), coord(r), fill);
  if (title.empty()) {
    body_ += "/>\n";
  } else {
    body_ += "><title>" + escape_xml(title) + "</title></circle>\n";
  }
}

void Svg::text(double x, double y, std::string_view s, double font_px, Anchor anchor, std::string_view fill,
               bool bold) {
  if (s.empty()) return;
  const double w = text_width(s, font_px, bold);
  const double x0 = anchor == Anchor::kStart ? x : anchor == Anchor::kMiddle ? x - w / 2 : x - w;
  // The font's ascent (0.93 em above the baseline) and descent (0.24 em
  // below; DejaVu Sans), as a browser measures a text's box.
  boxes_.push_back(TextBox{x0, y - 0.93 * font_px, x0 + w, y + 0.24 * font_px, std::string(s)});
  const char* a = anchor == Anchor::kStart ? "start" : anchor == Anchor::kMiddle ? "middle" : "end";
  body_ += fmt::format(R"(<text x="{}" y="{}" font-size="{}" text-anchor="{}" fill="{}"{}>{}</text>)", coord(x),
                       coord(y), coord(font_px), a, fill, bold ? R"( font-weight="bold")" : "", escape_xml(s));
  body_ += "\n";
}

std::string Svg::str() const {
  return fmt::format(R"(<svg class="chart" width="{}" height="{}" viewBox="0 0 {} {}" role="img" aria-label="{}" )"
                     R"(font-family="{}">)"
                     "\n{}</svg>\n",
                     coord(width_), coord(height_), coord(width_), coord(height_), escape_xml(label_),
                     escape_xml(kChartFont), body_);
}

}  // namespace anatomy::report
