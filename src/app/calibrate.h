#pragma once
// Use case: measure this machine's accelerator into a calibration table
// (`anatomy calibrate --out table.json`). The probe is Python + PyTorch
// (tools/calibrate_probe.py, shipped with the data): GEMM rates over a grid
// of shapes, attention forward and backward, the memory-bound element-wise
// ops, the optimizer step, memory bandwidth, host<->device copies and disk
// writes, in the format of data/calibration/h200.json. On a machine without
// a GPU it measures the CPU. The table is then loaded back as the compute
// model reads it, so what is written is known to load.
//
//   CalibrateRequest q;
//   q.out = "t.json";
//   const CalibrateRun r = app::run_calibrate(q);  // r.table.gemms.size(), ...

#include <string>

#include "hw/compute_model.h"

namespace anatomy::app {

struct CalibrateRequest {
  std::string out;
  std::string device;  // "cuda", "cpu", or "" (the probe's choice: a GPU when there is one)
  bool quick = false;  // a small grid
  int threads = 1;     // CPU threads
  // The Python that runs the probe: $ANATOMY_PYTHON, else /usr/bin/python3
  // (Debian's, with python3-torch), else python3 on PATH.
  std::string python;
};

struct CalibrateRun {
  hw::CalibrationTable table;
  std::string probe;    // the script that ran
  std::string command;  // as run
  std::string summary;  // the probe's last line
};

// Throws InputError (field "--out" or "calibrate") when the probe cannot
// be found or run, fails, or writes a table that does not load.
CalibrateRun run_calibrate(const CalibrateRequest& q);

}  // namespace anatomy::app
