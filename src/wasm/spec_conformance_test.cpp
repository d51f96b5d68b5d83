// Conformance against the official spec tests: every .wast is converted with
// wast2json, and every module it yields must be accepted or rejected as the
// script says. Text-format assertions cannot be checked at the binary level.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "wasm/decoder.h"

namespace wasmgpu::wasm {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// A fresh temporary directory, removed with the object.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "wasmgpu_spec_XXXXXX").string();
    if (mkdtemp(pattern.data())) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::vector<fs::path> wast_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(WASMGPU_SPEC_TESTS_DIR))
    if (entry.path().extension() == ".wast") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Converts `wast` into `dir`, returning the JSON script path or empty on failure.
fs::path convert(const fs::path& wast, const fs::path& dir) {
  fs::path json = dir / (wast.stem().string() + ".json");
  std::string command =
      "wast2json " + shell_quote(wast.string()) + " -o " + shell_quote(json.string()) + " >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) return {};
  return json;
}

struct Tally {
  int accepted_modules = 0;
  int rejected_malformed = 0;
  int rejected_invalid = 0;
  int accepted_unlinkable_or_uninstantiable = 0;
  int skipped_text = 0;
  int multi_memory_accepted = 0;
  std::vector<std::string> failures;
};

void check_script(const fs::path& json_path, Tally& tally) {
  std::ifstream in(json_path);
  nlohmann::json script = nlohmann::json::parse(in);
  const std::string wast = script.value("source_filename", json_path.string());
  for (const auto& command : script["commands"]) {
    const std::string type = command["type"];
    const bool is_module = type == "module";
    // WebAssembly 3.0 made a second memory valid (multi-memory, which
    // wasmgpu implements): the 2.0 scripts' "multiple memories" modules
    // must now be accepted (docs/deviations.md).
    const bool multi_memory = type == "assert_invalid" && command.value("text", "") == "multiple memories";
    const bool must_reject = (type == "assert_malformed" || type == "assert_invalid") && !multi_memory;
    const bool must_accept =
        is_module || type == "assert_unlinkable" || type == "assert_uninstantiable" || multi_memory;
    if (!must_reject && !must_accept) continue;
    if (command.value("module_type", "binary") == "text") {
      ++tally.skipped_text;  // text-format errors: a text parser's business, not ours
      continue;
    }
    const std::string where = fs::path(wast).filename().string() + ":" + std::to_string(command.value("line", 0));
    std::vector<uint8_t> bytes = read_file(json_path.parent_path() / std::string(command["filename"]));
    Result<Module> module = decode_and_validate(bytes);
    if (must_accept) {
      if (module.ok()) {
        (multi_memory ? tally.multi_memory_accepted
         : is_module  ? tally.accepted_modules
                      : tally.accepted_unlinkable_or_uninstantiable)++;
      } else {
        tally.failures.push_back(where + ": " + type + " rejected: " + module.error().to_string());
      }
    } else if (module.ok()) {
      tally.failures.push_back(where + ": " + type + " accepted (expected \"" + std::string(command.value("text", "")) +
                               "\")");
    } else {
      (type == "assert_malformed" ? tally.rejected_malformed : tally.rejected_invalid)++;
    }
  }
}

TEST(SpecConformance, EveryWastModuleIsAcceptedOrRejectedAsTheScriptSays) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::vector<fs::path> files = wast_files();
  ASSERT_GT(files.size(), 100u) << "spec tests not found in " << WASMGPU_SPEC_TESTS_DIR;
  Tally tally;
  for (const fs::path& wast : files) {
    fs::path json = convert(wast, dir.path());
    if (json.empty()) {
      tally.failures.push_back(wast.filename().string() + ": wast2json failed");
      continue;
    }
    check_script(json, tally);
  }
  std::cout << "spec conformance: " << files.size() << " files\n"
            << "  modules accepted:                  " << tally.accepted_modules << "\n"
            << "  unlinkable/uninstantiable accepted: " << tally.accepted_unlinkable_or_uninstantiable << "\n"
            << "  malformed (binary) rejected:       " << tally.rejected_malformed << "\n"
            << "  invalid rejected:                  " << tally.rejected_invalid << "\n"
            << "  skipped (text-format assertions):  " << tally.skipped_text << "\n"
            << "  2.0 \"multiple memories\" accepted (valid in 3.0): " << tally.multi_memory_accepted << "\n"
            << "  failures:                          " << tally.failures.size() << "\n";
  for (const std::string& failure : tally.failures) std::cout << "  FAIL " << failure << "\n";
  EXPECT_TRUE(tally.failures.empty());
  EXPECT_EQ(tally.multi_memory_accepted, 5);  // memory.wast's two and imports.wast's three
}

// The valid modules of a few spec scripts, as hostile-input seeds.
std::vector<std::vector<uint8_t>> seed_modules(const fs::path& dir) {
  std::vector<std::vector<uint8_t>> modules;
  for (const char* name :
       {"binary", "br_table", "elem", "names", "simd_lane", "data", "i64", "custom", "call_indirect", "global"}) {
    fs::path json_path = convert(fs::path(WASMGPU_SPEC_TESTS_DIR) / (std::string(name) + ".wast"), dir);
    EXPECT_FALSE(json_path.empty()) << name;
    if (json_path.empty()) continue;
    std::ifstream in(json_path);
    nlohmann::json script = nlohmann::json::parse(in);
    for (const auto& command : script["commands"]) {
      if (command["type"] != "module") continue;
      std::vector<uint8_t> bytes = read_file(dir / std::string(command["filename"]));
      EXPECT_TRUE(decode_and_validate(bytes).ok()) << name << ":" << command["line"];
      modules.push_back(std::move(bytes));
    }
  }
  return modules;
}

// Every prefix of a valid module must decode to a value (usually an error),
// never a crash, hang or runaway allocation.
TEST(SpecConformance, TruncatedModulesNeverCrash) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::vector<std::vector<uint8_t>> modules = seed_modules(dir.path());
  EXPECT_GT(modules.size(), 50u);
  int prefixes = 0;
  for (const std::vector<uint8_t>& bytes : modules) {
    // Big modules are sampled so that the test stays fast.
    const size_t step = std::max<size_t>(1, bytes.size() / 2000);
    for (size_t length = 0; length < bytes.size(); length += step) {
      Result<Module> module = decode_and_validate(std::span<const uint8_t>(bytes.data(), length));
      if (length < 8) {
        EXPECT_FALSE(module.ok());
      }
      ++prefixes;
    }
  }
  std::cout << "truncation: " << modules.size() << " modules, " << prefixes << " prefixes decoded\n";
}

// Random byte mutations of valid modules (fixed seed, so reproducible): the
// decoder and validator must answer every one without crashing. Run this
// under -fsanitize=address,undefined to catch what a plain run cannot.
TEST(SpecConformance, MutatedModulesNeverCrash) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::vector<std::vector<uint8_t>> modules = seed_modules(dir.path());
  ASSERT_FALSE(modules.empty());
  std::mt19937_64 random(20240601);
  static constexpr uint8_t kInterestingBytes[] = {0x00, 0x01, 0x02, 0x04, 0x05, 0x0B,
                                                  0x40, 0x7F, 0x80, 0xFC, 0xFD, 0xFF};
  int still_valid = 0;
  constexpr int kMutations = 20000;
  for (int iteration = 0; iteration < kMutations; ++iteration) {
    std::vector<uint8_t> bytes = modules[random() % modules.size()];
    if (bytes.size() <= 8) continue;
    for (int edits = 1 + int(random() % 3); edits > 0 && bytes.size() > 8; --edits) {
      const size_t position = 8 + random() % (bytes.size() - 8);
      switch (random() % 4) {
        case 0: bytes[position] = uint8_t(random()); break;
        case 1: bytes[position] = kInterestingBytes[random() % std::size(kInterestingBytes)]; break;
        case 2: bytes.insert(bytes.begin() + std::ptrdiff_t(position), uint8_t(random())); break;
        case 3: bytes.erase(bytes.begin() + std::ptrdiff_t(position)); break;
      }
    }
    if (decode_and_validate(bytes).ok()) ++still_valid;
  }
  EXPECT_LT(still_valid, kMutations);
  std::cout << "mutation: " << kMutations << " mutants, " << still_valid << " still valid\n";
}

}  // namespace
}  // namespace wasmgpu::wasm
