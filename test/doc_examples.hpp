#pragma once
// The doc_examples program: the C++ blocks of README.md and docs/*.md, which
// test/doc_examples.py turns into sources. A block that is a whole program
// registers its main here; doc_examples runs each and expects 0.

namespace doc_examples {

// `where` is "FILE:LINE" of the block. Returns true, for a static initializer.
bool add_program(const char* where, int (*program)());

}  // namespace doc_examples
