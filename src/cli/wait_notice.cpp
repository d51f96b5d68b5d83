#include "cli/wait_notice.h"

#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "support/environment.h"

namespace wasmgpu::cli {
namespace {

constexpr std::chrono::seconds kQuietFor{2};

}  // namespace

WaitNotice::WaitNotice(std::string what, const DeviceInfo& device) : what_(std::move(what)) {
  terminal_ = ::isatty(STDERR_FILENO) == 1;
  const std::optional<environment::Progress> setting = environment::progress();
  if (setting ? *setting == environment::Progress::Off : !terminal_) return;
  at_once_ = setting == environment::Progress::Always;
  if (at_once_) terminal_ = false;  // one line now, one at the end
  if (device.type == "CPU" && device.name != "cpu")
    hint_ = "; this device's driver compiles big kernels slowly, --device cpu runs them as native code";
  const std::string on = device.name;
  what_ = fmt::format("{} on {}", what_, on);
  thread_ = std::thread([this] { watch(); });
}

WaitNotice::~WaitNotice() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  done_changed_.notify_all();
  thread_.join();
}

void WaitNotice::watch() {
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const std::string line =
      fmt::format("wasmgpu: waiting for {} (a first launch compiles its pipeline, then runs it{})", what_, hint_);
  std::unique_lock<std::mutex> lock(mutex_);
  // "always": the line at once, whether or not the launch is already done.
  if (!at_once_ && done_changed_.wait_for(lock, kQuietFor, [this] { return done_; })) return;
  if (terminal_) {
    do {
      fmt::print(stderr, "\r{}: {:.0f} s", line, seconds());
      std::fflush(stderr);
    } while (!done_changed_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; }));
    fmt::print(stderr, "\r{}: done after {:.1f} s\n", line, seconds());
  } else {
    fmt::print(stderr, "{}: {:.0f} s so far\n", line, seconds());
    std::fflush(stderr);
    done_changed_.wait(lock, [this] { return done_; });
    fmt::print(stderr, "wasmgpu: {} done after {:.1f} s\n", what_, seconds());
  }
  std::fflush(stderr);
}

}  // namespace wasmgpu::cli
