// Runs the doc blocks that are whole programs (doc_examples.hpp); the others
// only had to compile.
#include "doc_examples.hpp"

#include <cstdio>
#include <exception>
#include <vector>

namespace doc_examples {
namespace {

struct Program {
  const char* where;
  int (*run)();
};

std::vector<Program>& programs() {
  static std::vector<Program> all;
  return all;
}

}  // namespace

bool add_program(const char* where, int (*program)()) {
  programs().push_back({where, program});
  return true;
}

}  // namespace doc_examples

int main() {
  int failed = 0;
  for (const auto& [where, run] : doc_examples::programs()) {
    try {
      if (const int code = run(); code != 0) {
        std::fprintf(stderr, "%s: the example's main returned %d\n", where, code);
        ++failed;
      }
    } catch (const std::exception& error) {
      std::fprintf(stderr, "%s: the example threw: %s\n", where, error.what());
      ++failed;
    }
  }
  std::printf("%zu example programs run, %d failed\n", doc_examples::programs().size(), failed);
  return failed == 0 ? 0 : 1;
}
