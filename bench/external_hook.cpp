// A tiny compiled external hook for the external-hook benchmark
// (external_bench.cpp), written as a hook author would, with the standard
// library only: `hook` names tool_call; `run` reads the payload and answers
// no change; `serve` answers each request line with its id (no change).
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>

int main(int argc, char** argv) {
  const std::string_view command = argc == 2 ? argv[1] : "";
  if (command == "hook") {
    std::cout << "tool_call\n";
    return 0;
  }
  if (command == "run") {
    const std::string payload(std::istreambuf_iterator<char>(std::cin), {});
    return payload.empty() ? 1 : 0;
  }
  if (command == "serve") {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
      // hookbus writes the id first: {"id":N,"event":...
      const auto start = line.find(':') + 1;
      std::cout << "{\"id\":" << std::string_view(line).substr(start, line.find(',', start) - start) << "}\n"
                << std::flush;
    }
    return 0;
  }
  std::cerr << "usage: " << argv[0] << " hook|run|serve\n";
  return 2;
}
