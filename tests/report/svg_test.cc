// Text measurement, truncation and escaping of the SVG writer.

#include "report/svg.h"

#include <gtest/gtest.h>

namespace anatomy::report {
namespace {

TEST(TextWidth, GrowsWithLengthAndFontSize) {
  EXPECT_GT(text_width("stage 10", 12), text_width("stage 1", 12));
  EXPECT_DOUBLE_EQ(text_width("abc", 24), 2 * text_width("abc", 12));
}

TEST(TextWidth, IsAtLeastDejaVuSansWidth) {
  // DejaVu Sans advance widths (units per em 2048): '0' 1303, 'a' 1255,
  // 'm' 1995, 'W' 2025, ' ' 651. The estimate may err wide, never narrow.
  EXPECT_GE(text_width("0", 100), 100 * 1303.0 / 2048);
  EXPECT_GE(text_width("a", 100), 100 * 1255.0 / 2048);
  EXPECT_GE(text_width("m", 100), 100 * 1995.0 / 2048);
  EXPECT_GE(text_width("W", 100), 100 * 2025.0 / 2048);
  EXPECT_GE(text_width(" ", 100), 100 * 651.0 / 2048);
}

TEST(TextWidth, CountsAMultiByteCharacterOnce) { EXPECT_DOUBLE_EQ(text_width("→", 10), text_width("\xe2", 10)); }

TEST(FitText, KeepsTextThatFits) { EXPECT_EQ(fit_text("stage 0", 12, 200), "stage 0"); }

TEST(FitText, TruncatesWithAnEllipsisWithinTheWidth) {
  const std::string s = fit_text("scale-up switch 256 → gpu 7 over a very long route", 12, 120);
  EXPECT_LE(text_width(s, 12), 120);
  EXPECT_EQ(s.substr(s.size() - 3), "…");
  EXPECT_EQ(s.rfind("scale-up", 0), 0u);
}

TEST(FitText, NeverSplitsAUtf8Character) {
  const std::string s = fit_text("→→→→→→→→→→", 10, 45);
  EXPECT_EQ(s, "→→→…");  // 3 arrows + ellipsis = 4 em = 40 px
}

TEST(FitText, GivesNothingWhenNotEvenTheEllipsisFits) { EXPECT_EQ(fit_text("abc", 12, 3), ""); }

TEST(EscapeXml, EscapesMarkupCharacters) {
  EXPECT_EQ(escape_xml(R"(<a href="x">&'</a>)"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
}

TEST(Coord, RoundsToHundredthsWithoutTrailingZeros) {
  EXPECT_EQ(coord(12), "12");
  EXPECT_EQ(coord(12.5), "12.5");
  EXPECT_EQ(coord(3.14159), "3.14");
  EXPECT_EQ(coord(-0.001), "0");
}

TEST(Svg, RecordsTheBoxOfEachTextByItsAnchor) {
  Svg svg(200, 50, "t");
  svg.text(100, 20, "ab", 10, Anchor::kMiddle);
  svg.text(100, 40, "ab", 10, Anchor::kEnd);
  ASSERT_EQ(svg.text_boxes().size(), 2u);
  const double w = text_width("ab", 10);
  EXPECT_DOUBLE_EQ(svg.text_boxes()[0].x0, 100 - w / 2);
  EXPECT_DOUBLE_EQ(svg.text_boxes()[1].x1, 100);
}

TEST(Svg, WritesTooltipsAndEscapesText) {
  Svg svg(100, 20, "a < b");
  svg.rect(0, 0, 10, 10, "#fff", "x & y");
  svg.text(0, 10, "<b>", 10, Anchor::kStart);
  const std::string s = svg.str();
  EXPECT_NE(s.find("<title>x &amp; y</title>"), std::string::npos);
  EXPECT_NE(s.find("&lt;b&gt;"), std::string::npos);
  EXPECT_NE(s.find(R"(aria-label="a &lt; b")"), std::string::npos);
}

}  // namespace
}  // namespace anatomy::report
