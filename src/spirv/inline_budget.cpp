#include "spirv/inline_budget.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <utility>

namespace wasmgpu::spirv {
namespace {

constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kOpFunction = 54;
constexpr uint32_t kOpFunctionEnd = 56;
constexpr uint32_t kOpFunctionCall = 57;
constexpr uint32_t kOpLabel = 248;
constexpr uint32_t kInlineMask = 0x1;
constexpr uint32_t kDontInlineMask = 0x2;
constexpr size_t kHeaderWords = 5;

// Sizes grow as products along call chains; they saturate instead of wrapping.
constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max() / 2;
uint64_t add(uint64_t a, uint64_t b) { return std::min(kSaturated, a + b); }
uint64_t mul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kSaturated / b ? kSaturated : a * b;
}

struct Function {
  size_t control_word = 0;                             // index of the OpFunction's function-control operand
  uint64_t own = 0;                                    // instructions, a call counting as one
  uint64_t blocks = 0;                                 // basic blocks (OpLabel)
  std::vector<std::pair<uint32_t, uint64_t>> callees;  // (function, call sites)
  bool entry = false;
  bool out_of_line = false;
};

// The functions of a module and their direct calls; false when the words are
// not a module this pass understands.
bool read_functions(const std::vector<uint32_t>& words, std::vector<Function>& functions) {
  std::unordered_map<uint32_t, uint32_t> index_of_id;
  std::vector<uint32_t> entry_ids;
  std::vector<std::unordered_map<uint32_t, uint64_t>> call_ids;  // per function: callee id -> sites
  Function* current = nullptr;
  for (size_t i = kHeaderWords; i < words.size();) {
    const uint32_t count = words[i] >> 16, op = words[i] & 0xFFFF;
    if (count == 0 || i + count > words.size()) return false;
    if (op == kOpEntryPoint && count >= 3) entry_ids.push_back(words[i + 2]);
    if (op == kOpFunction) {
      if (current || count < 5) return false;
      index_of_id[words[i + 2]] = uint32_t(functions.size());
      functions.emplace_back();
      call_ids.emplace_back();
      current = &functions.back();
      current->control_word = i + 3;
    }
    if (current) {
      ++current->own;
      if (op == kOpLabel) ++current->blocks;
      if (op == kOpFunctionCall && count >= 4) ++call_ids.back()[words[i + 3]];
      if (op == kOpFunctionEnd) current = nullptr;
    }
    i += count;
  }
  if (current) return false;
  for (size_t f = 0; f < functions.size(); ++f) {
    for (const auto& [id, sites] : call_ids[f]) {
      auto it = index_of_id.find(id);
      if (it == index_of_id.end()) return false;
      functions[f].callees.emplace_back(it->second, sites);
    }
    std::sort(functions[f].callees.begin(), functions[f].callees.end());
  }
  for (uint32_t id : entry_ids) {
    auto it = index_of_id.find(id);
    if (it == index_of_id.end()) return false;
    functions[it->second].entry = true;
  }
  return true;
}

// Callees before callers; false on a cycle.
bool callees_first(const std::vector<Function>& functions, std::vector<uint32_t>& order) {
  enum class Mark : uint8_t { None, Open, Done };
  std::vector<Mark> mark(functions.size(), Mark::None);
  std::vector<std::pair<uint32_t, size_t>> stack;  // (function, next callee)
  for (uint32_t root = 0; root < functions.size(); ++root) {
    if (mark[root] != Mark::None) continue;
    stack.emplace_back(root, 0);
    mark[root] = Mark::Open;
    while (!stack.empty()) {
      auto& [f, next] = stack.back();
      if (next < functions[f].callees.size()) {
        const uint32_t callee = functions[f].callees[next++].first;
        if (mark[callee] == Mark::Open) return false;
        if (mark[callee] == Mark::None) {
          mark[callee] = Mark::Open;
          stack.emplace_back(callee, 0);
        }
        continue;
      }
      mark[f] = Mark::Done;
      order.push_back(f);
      stack.pop_back();
    }
  }
  return true;
}

struct Sizes {
  std::vector<uint64_t> inlined;  // a function's size with its inlinable callees in it
  std::vector<uint64_t> copies;   // copies of a function the driver compiles
  uint64_t total = 0;
  uint64_t total_blocks = 0;
};

Sizes measure(const std::vector<Function>& functions, const std::vector<uint32_t>& order) {
  Sizes s;
  s.inlined.assign(functions.size(), 0);
  s.copies.assign(functions.size(), 0);
  for (uint32_t f : order) {
    uint64_t size = functions[f].own;
    for (const auto& [callee, sites] : functions[f].callees)
      if (!functions[callee].out_of_line) size = add(size, mul(sites, s.inlined[callee]));
    s.inlined[f] = size;
  }
  for (uint32_t f = 0; f < functions.size(); ++f)
    if (functions[f].entry) s.copies[f] = 1;
  // Callers before callees: a function's copies are known before it passes them on.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const uint32_t f = *it;
    if (s.copies[f] == 0) continue;
    for (const auto& [callee, sites] : functions[f].callees) {
      if (functions[callee].out_of_line)
        s.copies[callee] = std::max<uint64_t>(s.copies[callee], 1);  // compiled once, on its own
      else
        s.copies[callee] = add(s.copies[callee], mul(s.copies[f], sites));
    }
  }
  for (uint32_t f = 0; f < functions.size(); ++f) {
    s.total = add(s.total, mul(s.copies[f], functions[f].own));
    s.total_blocks = add(s.total_blocks, mul(s.copies[f], functions[f].blocks));
  }
  return s;
}

}  // namespace

InlineBudgetResult apply_inline_budget(std::vector<uint32_t>& words, uint64_t budget) {
  InlineBudgetResult result;
  std::vector<Function> functions;
  std::vector<uint32_t> order;
  if (!read_functions(words, functions) || !callees_first(functions, order)) return result;
  for (Function& f : functions) f.out_of_line = (words[f.control_word] & kDontInlineMask) != 0;
  Sizes sizes = measure(functions, order);
  result.inlined_instructions = sizes.total;
  result.inlined_blocks = sizes.total_blocks;
  while (budget != 0 && sizes.total > budget) {
    // Marking g leaves one copy of its inlined body where there were copies[g].
    uint32_t best = 0;
    uint64_t best_saving = 0;
    for (uint32_t g = 0; g < functions.size(); ++g) {
      if (functions[g].entry || functions[g].out_of_line || sizes.copies[g] < 2) continue;
      const uint64_t saving = mul(sizes.copies[g] - 1, sizes.inlined[g]);
      if (saving > best_saving) best = g, best_saving = saving;
    }
    if (best_saving == 0) break;
    functions[best].out_of_line = true;
    uint32_t& control = words[functions[best].control_word];
    control = (control & ~kInlineMask) | kDontInlineMask;
    ++result.functions_kept_out_of_line;
    sizes = measure(functions, order);
  }
  result.instructions_after = sizes.total;
  result.blocks_after = sizes.total_blocks;
  return result;
}

}  // namespace wasmgpu::spirv
