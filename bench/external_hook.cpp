// A tiny compiled external hook for the external-hook benchmark
// (external_bench.cpp), written as a hook author would, with the standard
// library only: `hook` names tool_call; `run` reads the payload and answers
// no change; `serve` answers each request line with its id (no change).
// Installed under a name starting with "sleep" (HOOKBUS_HOOK_NAME), `run`
// takes 50 ms first; with "rewrite", it also rewrites the tool's input (the
// parallel cases of external_bench.cpp).
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>
#include <thread>

int main(int argc, char** argv) {
  const std::string_view command = argc == 2 ? argv[1] : "";
  if (command == "hook") {
    std::cout << "tool_call\n";
    return 0;
  }
  if (command == "run") {
    const std::string payload(std::istreambuf_iterator<char>(std::cin), {});
    const char* name = std::getenv("HOOKBUS_HOOK_NAME");
    const std::string_view hook_name = name == nullptr ? "" : name;
    if (hook_name.starts_with("sleep") || hook_name.starts_with("rewrite"))
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (hook_name.starts_with("rewrite")) std::cout << "{\"input\": {\"command\": \"ls -la\"}}\n";
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
