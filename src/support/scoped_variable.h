// For tests: sets (or, with nullptr, unsets) an environment variable for one
// scope and restores its old value after, so that tests which change
// WASMGPU_* settings leave the process as they found it.
#pragma once
#include <cstdlib>
#include <optional>
#include <string>
#include "support/environment.h"

namespace wasmgpu::environment {

class ScopedVariable {
 public:
  ScopedVariable(std::string name, const char* value) : name_(std::move(name)), old_(get(name_.c_str())) {
    if (value)
      setenv(name_.c_str(), value, 1);
    else
      unsetenv(name_.c_str());
  }
  ~ScopedVariable() {
    if (old_)
      setenv(name_.c_str(), old_->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace wasmgpu::environment
