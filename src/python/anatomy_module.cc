// The Python module: `import anatomy` (build/python/anatomy*.so), a thin
// front end over the same app and sweep calls as the CLI, so its results
// are the CLI's JSON documents as dicts.
//
//   import anatomy
//   r = anatomy.run("validation/a1-1_7b.yaml")           # a path, a YAML string or a dict
//   r["iteration_s"]                                    # as `anatomy run --format json` prints it
//   anatomy.run({"model": "llama3-8b", "cluster": {"system": "dgx-h100", "gpus": 16}},
//               set={"parallelism.tp": 8}, seed=3)
//   anatomy.collective(op="all_reduce", bytes="1GiB", system="dgx-h100", gpus=16)
//   anatomy.validate()                                  # every shipped case; or a file or folder
//   rows = anatomy.sweep("examples/sweep-nic-plan.yaml", store="s.sqlite", threads=2)
//   pandas.DataFrame(rows)
//
// Bad input raises anatomy.InputError (a ValueError) whose file, line,
// field and message attributes say where, as the CLI's one-line error does.
// The GIL is released while a simulation runs.

#include <pybind11/eval.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "app/iteration.h"
#include "app/run_json.h"
#include "app/validate.h"
#include "core/error.h"
#include "core/workers.h"
#include "report/schema.h"
#include "report/validation.h"
#include "sweep/run.h"
#include "sweep/table.h"

namespace py = pybind11;
using namespace anatomy;

namespace {

py::object from_json_text(const std::string& text) { return py::module_::import("json").attr("loads")(text); }
std::string to_json_text(const py::handle& obj) {
  return py::module_::import("json").attr("dumps")(obj).cast<std::string>();
}

// What a scenario (or sweep file) argument is: a dict (JSON is YAML), a
// path to a file, or YAML text.
struct Source {
  std::string path;  // a file
  std::string text;  // or its text, named `name` in errors
  std::string name;
};

Source source_of(const py::object& obj, const char* what) {
  Source s;
  if (py::isinstance<py::dict>(obj)) {
    s.text = to_json_text(obj);
    s.name = fmt::format("<{} dict>", what);
    return s;
  }
  std::string str;
  if (py::isinstance<py::str>(obj)) str = obj.cast<std::string>();
  else if (py::hasattr(obj, "__fspath__")) str = py::str(obj.attr("__fspath__")()).cast<std::string>();
  else throw py::type_error(fmt::format("{} must be a path, a YAML string or a dict", what));
  const bool one_line = str.find('\n') == std::string::npos;
  if (one_line && (std::filesystem::exists(str) || str.ends_with(".yaml") || str.ends_with(".yml"))) {
    s.path = str;
  } else {
    s.text = str;
    s.name = fmt::format("<{} string>", what);
  }
  return s;
}

std::vector<scenario::Override> overrides_of(const py::object& set, const py::object& seed) {
  std::vector<scenario::Override> out;
  if (!set.is_none()) {
    if (!py::isinstance<py::dict>(set)) throw py::type_error("set must be a dict of field paths to values");
    for (const auto& [k, v] : set.cast<py::dict>()) {
      // A value is YAML: JSON (what json.dumps writes) is YAML, and a str is taken as written.
      const std::string value = py::isinstance<py::str>(v) ? v.cast<std::string>() : to_json_text(v);
      out.push_back(scenario::parse_override(py::str(k).cast<std::string>() + "=" + value));
    }
  }
  if (!seed.is_none()) out.push_back({"seed", std::to_string(seed.cast<uint64_t>())});
  return out;
}

scenario::Scenario load(const Source& src, const std::vector<scenario::Override>& overrides) {
  return src.path.empty() ? scenario::parse_scenario(src.text, src.name, overrides)
                          : scenario::load_scenario(src.path, overrides);
}

py::object py_run(const py::object& scenario_arg, const py::object& set, const py::object& seed) {
  const Source src = scenario_arg.is_none() ? Source{"", app::default_scenario_yaml(), "<built-in default>"}
                                            : source_of(scenario_arg, "scenario");
  const auto overrides = overrides_of(set, seed);
  std::string text;
  {
    py::gil_scoped_release release;
    text = report::json_text(app::run_json(load(src, overrides)), 2);
  }
  return from_json_text(text);
}

py::object py_collective(const py::object& scenario_arg, const std::string& op, const py::object& bytes,
                      const std::string& system, int gpus, const std::string& algorithm, const py::object& set) {
  if (!scenario_arg.is_none()) return py_run(scenario_arg, set, py::none());
  std::vector<std::string> sizes;
  const bool many = py::isinstance<py::list>(bytes) || py::isinstance<py::tuple>(bytes);
  if (many)
    for (const auto& b : bytes) sizes.push_back(py::str(b).cast<std::string>());
  else
    sizes.push_back(py::str(bytes).cast<std::string>());
  py::list out;
  for (const std::string& b : sizes) {
    py::dict cluster, coll, s;
    cluster["system"] = system;
    cluster["gpus"] = gpus;
    coll["op"] = op;
    coll["bytes"] = b;
    coll["algorithm"] = algorithm;
    s["name"] = fmt::format("{} of {} on {} x {}", op, b, gpus, system);
    s["cluster"] = cluster;
    s["collective"] = coll;
    out.append(py_run(s, set, py::none()));
  }
  return many ? py::object(out) : out[0];
}

py::object py_validate(const py::object& where, const py::object& set, const py::object& seed, int threads) {
  const auto overrides = overrides_of(set, seed);
  std::string path = where.is_none() ? "" : py::str(where).cast<std::string>();
  std::string text;
  {
    py::gil_scoped_release release;
    text = report::json_text(report::validation_json(app::validate_path(path, overrides, {}, threads)), 2);
  }
  return from_json_text(text);
}

py::object py_sweep(const py::object& space_arg, const std::string& store, const py::object& threads,
                 const std::string& shard, int64_t limit) {
  const Source src = source_of(space_arg, "sweep");
  sweep::RunOptions o;
  o.store = store;
  o.limit = limit;
  o.threads = threads.is_none() ? core::hardware_workers() : threads.cast<int>();
  sweep::parse_shard(shard, o.shard, o.shards);
  std::string text;
  {
    py::gil_scoped_release release;
    const sweep::Space space = src.path.empty() ? sweep::parse_space(src.text, src.name) : sweep::load_space(src.path);
    sweep::run_sweep(space, o);
    text = sweep::table_jsonl(sweep::load_table({o.store}));
  }
  py::list rows;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    rows.append(from_json_text(text.substr(start, nl - start)));
  return rows;
}

py::object py_rows(const std::vector<std::string>& stores) {
  std::string text;
  {
    py::gil_scoped_release release;
    text = sweep::table_jsonl(sweep::load_table(stores));
  }
  py::list out;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    out.append(from_json_text(text.substr(start, nl - start)));
  return out;
}

}  // namespace

// The data anatomy ships is found beside the running binary
// (app/data_dir.h), which in Python is python3 itself: point it at the
// build tree's share/anatomy beside this module (build/python/../share/
// anatomy), unless ANATOMY_DATA_DIR says otherwise, so that a run finds
// the same calibration tables as the CLI and gives the same numbers.
static void find_data_beside_the_module() {
  if (const char* env = std::getenv("ANATOMY_DATA_DIR"); env && *env) return;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&find_data_beside_the_module), &info) == 0 || !info.dli_fname) return;
  std::error_code ec;
  const std::filesystem::path here = std::filesystem::canonical(info.dli_fname, ec).parent_path();
  if (ec) return;
  for (const auto& candidate : {here / ".." / "share" / "anatomy", here / "share" / "anatomy"})
    if (std::filesystem::is_directory(candidate, ec)) {
      setenv("ANATOMY_DATA_DIR", std::filesystem::canonical(candidate, ec).c_str(), 0);
      return;
    }
}

static void define_module(py::module_& m) {
  find_data_beside_the_module();
  m.doc() = "anatomy: where a distributed training job's GPU time goes (the CLI's use cases as functions)";
  py::exec(R"(
class InputError(ValueError):
    """Bad input: file, line (0 when unknown) and field say where, as the CLI's 'file:line: field: message'."""
    def __init__(self, text, file, line, field, message):
        super().__init__(text)
        self.file = file
        self.line = line
        self.field = field
        self.message = message
)",
           m.attr("__dict__"));
  static py::handle input_error = m.attr("InputError");
  input_error.inc_ref();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const core::InputError& e) {
      py::object err = py::reinterpret_borrow<py::object>(input_error)(e.what(), e.where().file, e.where().line,
                                                                        e.where().field, e.message());
      PyErr_SetObject(input_error.ptr(), err.ptr());
    }
  });
  m.attr("version") = sweep::anatomy_version();
  m.def("run", &py_run, py::arg("scenario") = py::none(), py::kw_only(), py::arg("set") = py::none(),
        py::arg("seed") = py::none(),
        "Runs a scenario (a path, a YAML string or a dict; None: the built-in default) as `anatomy run` does; "
        "returns the dict `anatomy run --format json` prints. set: {field.path: value} overrides (--set).");
  m.def("collective", &py_collective, py::arg("scenario") = py::none(), py::kw_only(), py::arg("op") = "all_reduce",
        py::arg("bytes") = "1GiB", py::arg("system") = "dgx-h100", py::arg("gpus") = 8, py::arg("algorithm") = "auto",
        py::arg("set") = py::none(),
        "Times one collective: a collective case scenario, or op / bytes (one size or a list) / system / gpus; "
        "returns the run's dict (a list for a list of sizes).");
  m.def("validate", &py_validate, py::arg("path") = py::none(), py::kw_only(), py::arg("set") = py::none(),
        py::arg("seed") = py::none(), py::arg("threads") = 0,
        "Runs validation cases (a case file, a folder, or None: the shipped ones) on `threads` threads (0: one a "
        "core); returns `anatomy validate --format json`'s dict.");
  m.def("sweep", &py_sweep, py::arg("space"), py::kw_only(), py::arg("store"), py::arg("threads") = py::none(),
        py::arg("shard") = "0/1", py::arg("limit") = 0,
        "Runs a sweep (a sweep file's path, its YAML, or a dict) into `store` (points already there are skipped); "
        "returns every stored point as a flat dict, ready for pandas.DataFrame.");
  m.def("rows", &py_rows, py::arg("stores"), "Every point of one or more sweep stores, as sweep() returns them.");
}

// The module as Python imports it; the embedded form (an interpreter
// linked into a program, ANATOMY_EMBEDDED) defines the same functions.
#ifdef ANATOMY_EMBEDDED
PYBIND11_EMBEDDED_MODULE(anatomy, m) { define_module(m); }
#else
PYBIND11_MODULE(anatomy, m) { define_module(m); }
#endif
