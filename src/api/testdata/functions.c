/* Exported functions that are not kernels (scalar parameters, results),
 * for Module::call. */
#define EXPORT(name) __attribute__((export_name(#name)))

EXPORT(add) int add(int a, int b) { return a + b; }
EXPORT(quotient) int quotient(int a, int b) { return a / b; }
EXPORT(halve) double halve(double x) { return x * 0.5; }

static int total;
EXPORT(accumulate) int accumulate(int amount) {
  total += amount;
  return total;
}

/* Reads memory only: a call without side effects. */
static const int table[4] = {10, 20, 30, 40};
EXPORT(lookup) int lookup(int i) { return table[i & 3]; }
