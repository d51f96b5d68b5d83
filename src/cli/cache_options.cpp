#include "cli/cache_options.h"

#include <fmt/core.h>

namespace wasmgpu::cli {

std::string cache_report(const CacheStats& s) {
  std::string text = s.directory.empty() ? "cache off (" + s.disabled_reason + ")" : "cache " + s.directory;
  text +=
      fmt::format(": {} compiled to SPIR-V ({:.1f} ms), {} from cache ({:.1f} ms reading the cache)", s.spirv_compiles,
                  1e3 * s.spirv_compile_seconds, s.spirv_cache_hits, 1e3 * s.spirv_cache_read_seconds);
  if (s.spirv_cache_corrupt > 0) text += fmt::format(" ({} damaged entries ignored)", s.spirv_cache_corrupt);
  text += fmt::format("; pipelines: {} created ({:.1f} ms in the driver)", s.pipelines_created,
                      1e3 * s.pipeline_create_seconds);
  if (s.pipeline_feedback) text += fmt::format(", {} found in the pipeline cache", s.pipeline_cache_hits);
  if (!s.directory.empty())
    text += fmt::format(" ({} bytes of pipeline cache loaded{})", s.pipeline_cache_loaded_bytes,
                        s.pipeline_cache_rejected ? "; a stale or damaged file was ignored" : "");
  if (s.cache_write_failures > 0)
    text += fmt::format("; {} write(s) failed: {}", s.cache_write_failures, s.last_write_failure);
  return text;
}

}  // namespace wasmgpu::cli
