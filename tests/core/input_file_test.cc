#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/input_file.h"

namespace anatomy::core {
namespace {

namespace fs = std::filesystem;

std::string message_for(const std::string& path, int64_t limit) {
  try {
    read_input_file(path, limit, "scenario file");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

fs::path temp_path(const std::string& name) { return fs::temp_directory_path() / ("anatomy_input_" + name); }

TEST(InputFile, ReadsARegularFileWhole) {
  const fs::path p = temp_path("ok.yaml");
  std::ofstream(p) << "name: x\n";
  EXPECT_EQ(read_input_file(p.string(), 100, "scenario file"), "name: x\n");
  fs::remove(p);
}

TEST(InputFile, RefusesADeviceInsteadOfReadingForever) {
  // /dev/zero never ends: it is refused before a byte is read.
  EXPECT_EQ(message_for("/dev/zero", 100), "/dev/zero: the scenario file is not a regular file (a device, FIFO or folder)");
}

TEST(InputFile, RefusesAFifoInsteadOfWaitingForAWriter) {
  const fs::path p = temp_path("fifo.yaml");
  fs::remove(p);
  ASSERT_EQ(mkfifo(p.c_str(), 0600), 0);
  EXPECT_NE(message_for(p.string(), 100).find("is not a regular file"), std::string::npos);
  fs::remove(p);
}

TEST(InputFile, RefusesAFileOverTheLimitNamingBoth) {
  // 11 bytes against a 10-byte limit.
  const fs::path p = temp_path("big.yaml");
  std::ofstream(p) << "0123456789\n";
  EXPECT_EQ(message_for(p.string(), 10), p.string() + ": the scenario file is 11B, over the limit of 10B");
  fs::remove(p);
}

TEST(InputFile, AMissingFileNamesItself) {
  EXPECT_EQ(message_for("/nonexistent/x.yaml", 100), "/nonexistent/x.yaml: cannot read the scenario file (missing or unreadable)");
}

}  // namespace
}  // namespace anatomy::core
