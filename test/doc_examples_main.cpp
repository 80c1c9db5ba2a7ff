// Runs the doc blocks that are whole programs (doc_examples.hpp); the others
// only had to compile.
#include "doc_examples.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace doc_examples {

// ctest's SKIP_RETURN_CODE for doc_examples_cpp (test/CMakeLists.txt).
constexpr int kNotRun = 77;

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

// With no argument, every program, then a summary. With DOC (`docs/engine.md`),
// only that document's programs, with nothing of our own around their output:
// doc_examples_sh runs a document's engine so against the document's project.
int main(int argc, char** argv) {
  if (argc == 2) {
    const std::string prefix = std::string(argv[1]) + ":";
    int found = 0;
    for (const auto& [where, run] : doc_examples::programs()) {
      if (!std::string_view(where).starts_with(prefix)) continue;
      ++found;
      if (const int code = run(); code != 0) return code;
    }
    if (found == 0) std::fprintf(stderr, "doc_examples: %s has no whole program (`int main()`)\n", argv[1]);
    return found == 0 ? 2 : 0;
  }
  // HOOKBUS_MANAGED_DIR isolates the programs' managed layer only where
  // nothing is at /etc/hookbus (docs/security.md, test/needs_root.hpp).
  if (struct stat st {}; ::lstat("/etc/hookbus", &st) == 0) {
    std::fprintf(stderr, "*** NOT RUN: doc_examples_cpp: /etc/hookbus exists, so HOOKBUS_MANAGED_DIR cannot isolate "
                         "the managed layer; run the tests where it does not (a container)\n");
    return std::getenv("HOOKBUS_REQUIRE_ROOT_TESTS") != nullptr ? 1 : doc_examples::kNotRun;
  }
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
