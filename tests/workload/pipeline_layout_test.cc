#include "workload/pipeline_layout.h"

#include <gtest/gtest.h>

namespace anatomy::workload {
namespace {

// The stages of `text` as "E3|2|mL" strings (E, decoder count, m x mtp, L),
// or the parse error.
std::string stages_of(std::string_view text) {
  PipelineLayout l;
  const std::string err = parse_pipeline_layout(text, l);
  if (!err.empty()) return "error: " + err;
  std::string out;
  for (size_t i = 0; i < l.stages.size(); ++i) {
    const LayoutStage& s = l.stages[i];
    if (i > 0) out += '|';
    if (s.embedding) out += 'E';
    if (s.decoders > 0) out += std::to_string(s.decoders);
    out += std::string(static_cast<size_t>(s.mtp), 'm');
    if (s.loss) out += 'L';
  }
  return out;
}

TEST(PipelineLayout, MegatronsDeepSeekV3ExampleUnrollsToThirtyTwoStages) {
  // Megatron-LM's docs: "Et*3|(tt|)*29,m|L" is [E t t t], 29 x [t t], [m],
  // [L]: 1 + 29 + 1 + 1 = 32 stages (PP 16 x VPP 2) holding 3 + 58 = 61
  // layers.
  PipelineLayout l;
  ASSERT_EQ(parse_pipeline_layout("Et*3|(tt|)*29,m|L", l), "");
  ASSERT_EQ(l.stages.size(), 32u);
  EXPECT_TRUE(l.stages[0].embedding);
  EXPECT_EQ(l.stages[0].decoders, 3);
  int64_t layers = 0;
  for (const LayoutStage& s : l.stages) layers += s.decoders;
  EXPECT_EQ(layers, 61);
  EXPECT_EQ(l.stages[30].mtp, 1);
  EXPECT_EQ(l.stages[30].decoders, 0);
  EXPECT_TRUE(l.stages[31].loss);
  EXPECT_EQ(l.text, "Et*3|(tt|)*29,m|L");
}

TEST(PipelineLayout, RepeatsApplyToTheSymbolOrGroupBeforeThem) {
  EXPECT_EQ(stages_of("Et*2|t*2L"), "E2|2L");
  // A group may hold stage breaks; (|tt)*2 opens two stages of two.
  EXPECT_EQ(stages_of("E(|tt)*2|L"), "E|2|2|L");
  // Groups nest (Megatron's regular expressions cannot; the same symbols).
  EXPECT_EQ(stages_of("E((t|)*2)*2L"), "E1|1|1|1|L");
  // Commas and spaces are cosmetic; counts may have several digits.
  EXPECT_EQ(stages_of("E t*12 , | t*10 L"), "E12|10L");
  // A stage may be empty but for E or L, or empty altogether.
  EXPECT_EQ(stages_of("E|tt||L"), "E|2||L");
}

TEST(PipelineLayout, EmptyTextIsNoLayout) {
  PipelineLayout l;
  l.stages.emplace_back();
  EXPECT_EQ(parse_pipeline_layout("", l), "");
  EXPECT_TRUE(l.empty());
  EXPECT_EQ(parse_pipeline_layout(" , ", l), "");
  EXPECT_TRUE(l.empty());
}

TEST(PipelineLayout, MalformedTextSaysWhereAndWhy) {
  EXPECT_EQ(stages_of("Etx|L"), "error: unknown symbol 'x' at 3 (known: E embedding, t layer, m MTP module, L output "
                                "and loss, | next stage, (...)*N repeat)");
  EXPECT_EQ(stages_of("E(tt|L"), "error: '(' at 2 is never closed");
  EXPECT_EQ(stages_of("Ett)|L"), "error: ')' at 4 closes no '('");
  EXPECT_EQ(stages_of("E*2tt|L"), "error: E (the embedding) must be the first symbol of the first stage");
  EXPECT_EQ(stages_of("Et*|L"), "error: '*' at 3 needs a count after it");
  EXPECT_EQ(stages_of("*3Et|L"), "error: '*' at 1 repeats nothing");
  EXPECT_EQ(stages_of("Et*99999999999|L"), "error: the count after '*' at 3 is too large");
  EXPECT_EQ(stages_of("E(t*1000)*2000|L"), "error: unrolls to more than 1048576 symbols");
  EXPECT_EQ(stages_of("E" + std::string(17, '(') + "t" + std::string(17, ')') + "|L"),
            "error: '(' at 18 nests groups deeper than 16");
}

TEST(PipelineLayout, EmbeddingFirstLossLastAndMtpAfterTheLayersInOneStage) {
  EXPECT_EQ(stages_of("tE|L"), "error: E (the embedding) must be the first symbol of the first stage");
  EXPECT_EQ(stages_of("Et|tt"), "error: must end with L (the output layer and loss)");
  EXPECT_EQ(stages_of("t|tL"), "error: must begin with E (the embedding)");
  EXPECT_EQ(stages_of("EtL|t"), "error: L (the output layer and loss) must be the last symbol of the last stage");
  EXPECT_EQ(stages_of("Etm|tL"), "error: every transformer layer (t) must come before the MTP modules (m)");
  EXPECT_EQ(stages_of("Et|m|mL"), "error: all MTP modules (m) must be in one stage");
  EXPECT_EQ(stages_of("Et|mmL"), "E1|mmL");
}

}  // namespace
}  // namespace anatomy::workload
