#include "core/input_file.h"

#include <cctype>

#include <sys/stat.h>

#include <fstream>

#include <fmt/format.h>

#include "core/error.h"
#include "core/units.h"

namespace anatomy::core {

std::string read_input_file(const std::string& path, int64_t max_bytes, const std::string& what) {
  // stat before open: opening a FIFO blocks until a writer comes.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError({path, 0, ""}, fmt::format("cannot read the {} (missing or unreadable)", what));
  if (!S_ISREG(st.st_mode))
    throw InputError({path, 0, ""}, fmt::format("the {} is not a regular file (a device, FIFO or folder)", what));
  if (st.st_size > max_bytes)
    throw InputError({path, 0, ""}, fmt::format("the {} is {}, over the limit of {}", what,
                                                format_bytes(Bytes(st.st_size)), format_bytes(Bytes(max_bytes))));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({path, 0, ""}, fmt::format("cannot read the {} (missing or unreadable)", what));
  std::string text(static_cast<size_t>(st.st_size), '\0');
  in.read(text.data(), st.st_size);
  text.resize(static_cast<size_t>(in.gcount()));
  // A file that grew since stat: refuse it rather than read without bound.
  if (in && in.peek() != std::char_traits<char>::eof())
    throw InputError({path, 0, ""}, fmt::format("the {} changed while it was read", what));
  return text;
}

InputError as_error_of_field(const InputError& e, const std::string& field) {
  if (e.where().line > 0 || !e.where().field.empty()) return e;
  return InputError({"", 0, field}, fmt::format("{}: {}", e.where().file, e.message()));
}

std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> w;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) w.push_back(line.substr(start, i - start));
  }
  return w;
}

}  // namespace anatomy::core
