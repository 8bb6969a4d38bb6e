// InputError: what a user sees of bad input is one line,
// "file:line: field: message", however odd the text it quotes.

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/input_file.h"

namespace anatomy::core {
namespace {

TEST(InputError, NamesFileLineAndFieldBeforeTheMessage) {
  const InputError e({"s.yaml", 14, "parallelism.tp"}, "3 does not divide 64 attention heads");
  EXPECT_STREQ(e.what(), "s.yaml:14: parallelism.tp: 3 does not divide 64 attention heads");
  EXPECT_EQ(e.message(), "3 does not divide 64 attention heads");
}

TEST(InputError, QuotedControlCharactersAreEscapedSoTheErrorStaysOneLine) {
  // A YAML key written "a\nb" (double-quoted) is unknown; the error quotes
  // it. Found by a mutation fuzzer: the raw line break made two lines.
  const InputError e({"s.yaml", 3, "training.a\nb"}, "unknown key 'a\nb\t\x01' in training");
  EXPECT_STREQ(e.what(), "s.yaml:3: training.a\\nb: unknown key 'a\\nb\\t\\x01' in training");
  // The message itself keeps the text as written (callers that re-wrap it
  // escape it once, when it is shown).
  EXPECT_EQ(e.message(), "unknown key 'a\nb\t\x01' in training");
}

TEST(InputError, AFileAFieldNamesThatCannotBeReadBecomesAnErrorOfThatField) {
  // read_input_file's whole-file error (no line, no field) is put on the
  // field that named the file; an error inside the file is left alone.
  const InputError whole({"/x.json", 0, ""}, "cannot read the calibration table (missing or unreadable)");
  const InputError moved = as_error_of_field(whole, "compute.calibration");
  EXPECT_EQ(moved.where().file, "");
  EXPECT_EQ(moved.where().field, "compute.calibration");
  EXPECT_EQ(moved.message(), "/x.json: cannot read the calibration table (missing or unreadable)");
  const InputError inside({"/x.json", 12, "gemm[3].tflops"}, "must be positive");
  EXPECT_EQ(as_error_of_field(inside, "compute.calibration").where().line, 12);
  EXPECT_EQ(as_error_of_field(inside, "compute.calibration").where().field, "gemm[3].tflops");
}

}  // namespace
}  // namespace anatomy::core
