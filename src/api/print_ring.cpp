#include "api/print_ring.h"

#include "api/module_slot.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace wasmgpu::detail {

namespace {

// wasmgpu_print_slot_'s magic words ("WGPRRINT").
constexpr std::array<uint8_t, 8> kSlotMagic = {0x57, 0x47, 0x50, 0x52, 0x52, 0x49, 0x4e, 0x54};

constexpr uint32_t kKindPrintf = 1;
constexpr uint32_t kKindBytes = 2;
constexpr uint32_t kKindAssert = 3;
constexpr uint32_t kKindAbort = 4;
constexpr uint32_t kKindPanic = 5;      // trap words of a Rust panic (rust/wasmgpu.rs)
constexpr uint32_t kKindPanicText = 6;  // a record: a Rust panic's formatted message

// A NUL-terminated string at wasm address `address` of the static memory,
// or a note saying where it was.
std::string static_string(std::span<const uint8_t> memory, uint32_t address) {
  if (address >= memory.size()) {
    char note[80];
    std::snprintf(note, sizeof note, "(string at 0x%x, outside the module's static data)", address);
    return note;
  }
  const uint8_t* begin = memory.data() + address;
  const uint8_t* end = std::find(begin, memory.data() + memory.size(), uint8_t(0));
  return std::string(begin, end);
}

// `length` bytes at `address` (a Rust &str).
std::string static_bytes(std::span<const uint8_t> memory, uint32_t address, uint32_t length) {
  if (address > memory.size() || length > memory.size() - address) {
    char note[96];
    std::snprintf(note, sizeof note, "(%u bytes at 0x%x, outside the module's static data)", length, address);
    return note;
  }
  return std::string(memory.begin() + address, memory.begin() + address + length);
}

// Reads the argument bytes of a printf record: the arguments were copied
// from wasm address `va` on.
struct Arguments {
  std::span<const uint32_t> words;
  uint32_t va = 0;
  uint32_t at = 0;  // absolute wasm address of the next argument
  bool overrun = false;

  uint64_t take(uint32_t size) {
    at = (at + size - 1) & ~(size - 1);
    const uint64_t offset = uint64_t(at) - va;
    at += size;
    if (offset + size > words.size() * 4ull) {
      overrun = true;
      return 0;
    }
    uint64_t value = 0;
    std::memcpy(&value, reinterpret_cast<const uint8_t*>(words.data()) + offset, std::min<uint32_t>(size, 8));
    return value;
  }
};

// printf's formatting of one record: the conversions the kernel side sizes
// (include/wasmgpu_runtime.c, arguments_end), each formatted by the host's
// snprintf with the value read at its wasm32 position.
std::string format_printf(std::span<const uint8_t> memory, uint32_t format_address, Arguments args) {
  const std::string format = static_string(memory, format_address);
  if (format_address >= memory.size()) return format;
  std::string out;
  char buffer[512];
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    const size_t start = i++;
    if (i < format.size() && format[i] == '%') {
      out += '%';
      continue;
    }
    std::string spec = "%";
    while (i < format.size() && std::strchr("-+ #0'", format[i])) spec += format[i++];
    if (i < format.size() && format[i] == '*') {
      spec += std::to_string(int32_t(args.take(4)));
      ++i;
    } else {
      while (i < format.size() && format[i] >= '0' && format[i] <= '9') spec += format[i++];
    }
    if (i < format.size() && format[i] == '.') {
      spec += format[i++];
      if (i < format.size() && format[i] == '*') {
        const int32_t precision = int32_t(args.take(4));
        spec += precision < 0 ? std::string() : std::to_string(precision);
        if (precision < 0) spec.pop_back();  // a negative precision is none
        ++i;
      } else {
        while (i < format.size() && format[i] >= '0' && format[i] <= '9') spec += format[i++];
      }
    }
    enum class Length { None, Char, Short, Long, LongLong, Size, LongDouble } length = Length::None;
    if (i < format.size()) {
      const char c = format[i];
      if (c == 'h') {
        length = Length::Short;
        if (++i < format.size() && format[i] == 'h') length = Length::Char, ++i;
      } else if (c == 'l') {
        length = Length::Long;
        if (++i < format.size() && format[i] == 'l') length = Length::LongLong, ++i;
      } else if (c == 'j' || c == 'q') {
        length = Length::LongLong, ++i;
      } else if (c == 'z' || c == 't') {
        length = Length::Size, ++i;
      } else if (c == 'L') {
        length = Length::LongDouble, ++i;
      }
    }
    if (i >= format.size()) {
      out += format.substr(start);
      break;
    }
    const char conversion = format[i];
    const bool wide = length == Length::LongLong;
    switch (conversion) {
      case 'd':
      case 'i': {
        const uint64_t raw = args.take(wide ? 8 : 4);
        int64_t value = wide ? int64_t(raw) : int64_t(int32_t(uint32_t(raw)));
        if (length == Length::Short) value = int16_t(value);
        if (length == Length::Char) value = int8_t(value);
        std::snprintf(buffer, sizeof buffer, (spec + "lld").c_str(), (long long)value);
        out += buffer;
        break;
      }
      case 'u':
      case 'o':
      case 'x':
      case 'X': {
        const uint64_t raw = args.take(wide ? 8 : 4);
        uint64_t value = wide ? raw : uint32_t(raw);
        if (length == Length::Short) value = uint16_t(value);
        if (length == Length::Char) value = uint8_t(value);
        std::snprintf(buffer, sizeof buffer, (spec + "ll" + conversion).c_str(), (unsigned long long)value);
        out += buffer;
        break;
      }
      case 'c': {
        std::snprintf(buffer, sizeof buffer, (spec + "c").c_str(), int(int32_t(args.take(4))));
        out += buffer;
        break;
      }
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        if (length == Length::LongDouble) {
          args.take(16);
          out += "(long double)";
          break;
        }
        double value;
        const uint64_t bits = args.take(8);
        std::memcpy(&value, &bits, 8);
        std::snprintf(buffer, sizeof buffer, (spec + conversion).c_str(), value);
        out += buffer;
        break;
      }
      case 's': {
        const std::string text = static_string(memory, uint32_t(args.take(4)));
        const int n = std::snprintf(nullptr, 0, (spec + "s").c_str(), text.c_str());
        std::string formatted(size_t(std::max(n, 0)) + 1, '\0');
        std::snprintf(formatted.data(), formatted.size(), (spec + "s").c_str(), text.c_str());
        formatted.pop_back();
        out += formatted;
        break;
      }
      case 'p': {
        std::snprintf(buffer, sizeof buffer, "0x%x", uint32_t(args.take(4)));
        out += buffer;
        break;
      }
      case 'n': args.take(4); break;  // nothing is stored back
      default: out += format.substr(start, i + 1 - start); break;
    }
  }
  if (args.overrun) out += "(printf record cut short)";
  return out;
}

void append_with_prefix(std::string& out, const std::string& text, uint32_t invocation, bool prefix,
                        bool& at_line_start) {
  for (char c : text) {
    // A module's own fd_write (api/wasi_fd_write.h) does not know its invocation.
    if (prefix && at_line_start)
      out += invocation == 0xFFFF'FFFFu ? std::string("[?] ") : "[" + std::to_string(invocation) + "] ";
    out += c;
    at_line_start = c == '\n';
  }
}

}  // namespace

PrintSlot find_print_slot(std::span<const uint8_t> bytes) {
  PrintSlot slot;
  const FoundSlot found = find_module_slot(bytes, kSlotMagic, 12);
  if (found.result == SlotSearch::Repeated)
    slot.error = "the module holds the print slot's magic words (wasmgpu_runtime.c) more than once";
  else if (found.result == SlotSearch::CutShort)
    slot.error = "the module's print slot (wasmgpu_runtime.c) is cut short";
  else if (found.result == SlotSearch::Found)
    slot.ring_field = found.fields;
  return slot;
}

std::vector<uint8_t> static_memory(const wasm::Module& module) {
  std::vector<uint8_t> memory;
  for (const wasm::DataSegment& segment : module.data) {
    if (segment.mode != wasm::DataSegment::Mode::Active || segment.offset.instrs.empty() ||
        segment.offset.instrs[0].op != wasm::Opcode::I32Const)
      continue;
    const uint64_t offset = uint32_t(segment.offset.instrs[0].imm64);
    if (offset + segment.bytes.size() > (uint64_t(256) << 20)) continue;
    if (memory.size() < offset + segment.bytes.size()) memory.resize(offset + segment.bytes.size());
    std::copy(segment.bytes.begin(), segment.bytes.end(), memory.begin() + offset);
  }
  return memory;
}

DrainedOutput format_print_ring(std::span<const uint32_t> words, std::span<const uint8_t> memory,
                                bool invocation_prefix) {
  DrainedOutput out;
  if (words.size() < kPrintRingHeaderWords) return out;
  out.dropped_records = words[kPrintRingDroppedRecords];
  out.dropped_bytes = uint64_t(words[kPrintRingDroppedWords]) * 4;
  if (words[kPrintRingTrapClaimed]) {
    KernelTrapText trap;
    trap.invocation = words[6];
    if (words[5] == kKindAssert) {
      trap.text = "assertion failed: " + static_string(memory, words[8]) + " (" + static_string(memory, words[9]) +
                  ":" + std::to_string(words[7]) + ", in function '" + static_string(memory, words[10]) + "')";
    } else if (words[5] == kKindAbort) {
      trap.text = "abort() called";
    } else if (words[5] == kKindPanic) {
      // Replaced below by the message record of the same invocation, if any.
      trap.text = "panicked at " + static_bytes(memory, words[8], words[9]) + ":" + std::to_string(words[7]) + ":" +
                  std::to_string(words[10]) +
                  " (the message shows when the kernel is built with --cfg wasmgpu_panic_message)";
    }
    if (!trap.text.empty()) out.trap = trap;
  }
  const uint64_t used = std::min<uint64_t>(words[kPrintRingUsed], words[kPrintRingCapacity]);
  const std::span<const uint32_t> records =
      words.subspan(kPrintRingHeaderWords, std::min<uint64_t>(used, words.size() - kPrintRingHeaderWords));
  bool at_line_start = true, error_at_line_start = true;
  for (size_t at = 0; at < records.size();) {
    const uint32_t kind = records[at] & 0xff, size = records[at] >> 8;
    if (kind == 0 && size >= 1 && size <= records.size() - at) break;  // the filler before the end
    if (size < 4 || size > records.size() - at) {
      out.text += "(a print record was not written: its invocation trapped)\n";
      break;
    }
    const uint32_t invocation = records[at + 1];
    const std::span<const uint32_t> payload = records.subspan(at + 4, size - 4);
    std::string text;
    bool error = false;
    if (kind == kKindPrintf) {
      text = format_printf(memory, records[at + 2], Arguments{payload, records[at + 3], records[at + 3]});
    } else if (kind == kKindBytes || kind == kKindPanicText) {
      const uint32_t count = std::min<uint64_t>(records[at + 3], payload.size() * 4ull);
      text.assign(reinterpret_cast<const char*>(payload.data()), count);
      error = kind == kKindBytes && records[at + 2] == 2;
    }
    if (kind == kKindPanicText) {  // the trap's text, not output
      if (out.trap && words[5] == kKindPanic && invocation == out.trap->invocation) out.trap->text = std::move(text);
      at += size;
      continue;
    }
    if (error)
      append_with_prefix(out.error_text, text, invocation, invocation_prefix, error_at_line_start);
    else
      append_with_prefix(out.text, text, invocation, invocation_prefix, at_line_start);
    at += size;
  }
  return out;
}

}  // namespace wasmgpu::detail
