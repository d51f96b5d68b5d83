// The C++ half of the records kernel: a template, called from C.
#include "records.h"

namespace {
template <class T, int N>
void scale_all(T (&values)[N], T factor) {
  for (T& v : values) v *= factor;
}
}  // namespace

extern "C" record scaled(record r, float factor) {
  scale_all(r.values, factor);
  r.tag += 1000;
  return r;
}
