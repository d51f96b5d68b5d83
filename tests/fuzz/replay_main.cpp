// Runs a libFuzzer target once on each input, without libFuzzer: the files
// named on the command line, and every regular file below the directories
// named there, in sorted order so that runs are repeatable. A target that finds
// a bug aborts (or a sanitizer reports it), which fails the replay.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> inputs_of(const fs::path& root) {
  std::vector<fs::path> found;
  if (fs::is_directory(root)) {
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root))
      if (entry.is_regular_file()) found.push_back(entry.path());
  } else {
    found.push_back(root);
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::fprintf(stderr,
                 "usage: %s FILE_OR_DIR...\n"
                 "Runs this fuzz target once on each file (directories recursively, in sorted order).\n",
                 argv[0]);
    return argc < 2 ? 2 : 0;
  }
  size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    if (!fs::exists(argv[i])) {
      std::fprintf(stderr, "%s: no such file or directory: %s\n", argv[0], argv[i]);
      return 2;
    }
    for (const fs::path& path : inputs_of(argv[i])) {
      std::ifstream file(path, std::ios::binary);
      const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
      if (!file.good() && !file.eof()) {
        std::fprintf(stderr, "%s: cannot read %s\n", argv[0], path.c_str());
        return 2;
      }
      // Named first, so that the input of a crash is the last one named.
      std::fprintf(stderr, "input: %s\n", path.c_str());
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++count;
    }
  }
  std::printf("%s: ran %zu inputs\n", argv[0], count);
  return 0;
}
