#pragma once
// Svg: a tiny writer of inline SVG for the HTML report, with a text-width
// estimate so that charts can lay labels out without overlapping them.
//
// Browsers measure text; anatomy cannot, so it estimates. text_width() uses
// per-character advance widths a little wider than DejaVu Sans / Verdana
// (the widest common sans-serif faces, and the ones the report asks for),
// so a label that fits by the estimate fits on the page. Every text the
// writer emits records its estimated box; tests check that no two boxes
// of a chart overlap and that all lie inside it.
//
//   Svg svg(600, 120, "where the time goes");
//   svg.rect(10, 10, 200, 16, "#4e79a7", "forward compute: 373 ms");
//   svg.text(5, 30, fit_text(label, 11, 140), 11, Anchor::kStart);
//   std::string markup = svg.str();
//
// Coordinates are written with at most two decimals, so the same chart is
// always the same bytes.

#include <string>
#include <string_view>
#include <vector>

namespace anatomy::report {

// The font every chart's text uses (see text_width).
inline constexpr const char* kChartFont = "'DejaVu Sans', Verdana, 'Bitstream Vera Sans', sans-serif";

// Estimated advance width, in px, of UTF-8 `s` at `font_px` (bold: 10% wider).
double text_width(std::string_view s, double font_px, bool bold = false);

// `s` itself when it fits in `max_px`, else its longest prefix (whole UTF-8
// characters) followed by "…" that does; "" when not even "…" fits.
std::string fit_text(std::string_view s, double font_px, double max_px, bool bold = false);

// Escapes &, <, >, " and ' for XML/HTML text and attribute values.
std::string escape_xml(std::string_view s);

// A coordinate or length as written into the markup: rounded to 0.01,
// without trailing zeros ("12", "12.5", "-3.25").
std::string coord(double v);

enum class Anchor { kStart, kMiddle, kEnd };

struct TextBox {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // estimated extent, y down
  std::string text;
};

class Svg {
 public:
  Svg(double width, double height, std::string label);

  double width() const { return width_; }
  double height() const { return height_; }

  // `title`, when given, is the hover tooltip; `stroke`, a 1 px outline.
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view title = {},
            std::string_view stroke = {});
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double stroke_width = 1,
            bool dashed = false);
  // An open polyline through `xy` (x0, y0, x1, y1, ...).
  void polyline(const std::vector<double>& xy, std::string_view stroke, double stroke_width = 2);
  void circle(double cx, double cy, double r, std::string_view fill, std::string_view title = {});
  // Text with its baseline at y. The caller fits it (fit_text) beforehand;
  // the estimated box is recorded as given.
  void text(double x, double y, std::string_view s, double font_px, Anchor anchor, std::string_view fill = "#222",
            bool bold = false);

  const std::vector<TextBox>& text_boxes() const { return boxes_; }
  std::string str() const;

 private:
  double width_, height_;
  std::string label_;
  std::string body_;
  std::vector<TextBox> boxes_;
};

}  // namespace anatomy::report
