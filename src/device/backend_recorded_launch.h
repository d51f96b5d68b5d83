// One launch recorded into a command list: what it reports after the
// submission and how it takes other arguments for the next one.
#pragma once

#include <optional>
#include <span>

#include "device/launch_args.h"
#include "device/trap_report.h"
#include "support/result.h"

namespace wasmgpu::device {

class BackendRecordedLaunch {
 public:
  virtual ~BackendRecordedLaunch() = default;
  // The launch's traps once its submission has finished; nullopt when none
  // trapped.
  virtual std::optional<TrapReport> trap() const = 0;
  // Rewrites the arguments for another submission and clears the trap
  // record; false when the launch must be recorded anew instead (arguments
  // kept in the recording itself).
  virtual Result<bool> rebind(std::span<const BackendArg> args) = 0;
};

}  // namespace wasmgpu::device
