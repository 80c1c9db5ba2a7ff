// Registration: every form returns a move-only RAII Connection; which tools a
// handler sees (HandlerOptions::tools, ToolMatcher, glob_match).
#include <hookbus/hooks.hpp>
#include <hookbus/tool_matcher.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace hookbus {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MockFunction;
using ::testing::Return;
using ::testing::_;

ToolCallEvent bash_call(std::string command) {
  ToolCallEvent event;
  event.tool_call_id = "c1";
  event.tool_name = "bash";
  event.input["command"] = std::move(command);
  return event;
}

TEST(Registration, LambdaHandlerIsCalledWithTheEvent) {
  Hooks hooks;
  MockFunction<void(const TurnStartEvent&)> handler;
  EXPECT_CALL(handler, Call(::testing::Field(&TurnStartEvent::turn_index, 7)));
  auto connection = hooks.on<TurnStartEvent>(handler.AsStdFunction());
  hooks.emit(TurnStartEvent{.turn_index = 7});
}

int free_function_calls = 0;
void count_turn(const TurnStartEvent&) { ++free_function_calls; }

TEST(Registration, FreeFunctionHandlerIsCalled) {
  Hooks hooks;
  free_function_calls = 0;
  auto connection = hooks.on<TurnStartEvent>(&count_turn);
  hooks.emit(TurnStartEvent{});
  EXPECT_EQ(free_function_calls, 1);
}

struct Policy {
  std::optional<ToolCallResult> check(const ToolCallEvent& event) {
    ++calls;
    if (event.input.at("command") == "rm -rf /") return ToolCallResult{.decision = Decision::deny, .reason = "dangerous"};
    return std::nullopt;
  }
  int calls = 0;
};

TEST(Registration, MemberFunctionHandlerIsCalledOnItsObject) {
  Hooks hooks;
  Policy policy;
  auto connection = hooks.on<ToolCallEvent>(&Policy::check, &policy);
  EXPECT_EQ(hooks.emit(bash_call("rm -rf /")).decision, Decision::deny);
  EXPECT_EQ(policy.calls, 1);
}

TEST(Registration, SharedOwnerMemberHandlerStopsWhenOwnerDies) {
  Hooks hooks;
  auto policy = std::make_shared<Policy>();
  auto connection = hooks.on<ToolCallEvent>(&Policy::check, policy);
  EXPECT_EQ(hooks.emit(bash_call("rm -rf /")).decision, Decision::deny);
  policy.reset();
  EXPECT_EQ(hooks.emit(bash_call("rm -rf /")).decision, Decision::none);
  EXPECT_FALSE(connection.connected());
}

TEST(Registration, WeakPtrTrackedHandlerStopsWhenOwnerDies) {
  Hooks hooks;
  auto owner = std::make_shared<int>(0);
  MockFunction<void(const TurnStartEvent&)> handler;
  EXPECT_CALL(handler, Call(_)).Times(1);
  auto connection = hooks.on<TurnStartEvent>(handler.AsStdFunction(), {.track = std::weak_ptr<const void>(owner)});
  hooks.emit(TurnStartEvent{});
  owner.reset();
  hooks.emit(TurnStartEvent{});
  EXPECT_EQ(hooks.handler_count("turn_start"), 0u);
}

// The per-type count (the zero-listener fast path) must not keep counting a
// handler whose owner is gone: the next emit of its event retires it.
TEST(Registration, HandlerWhoseTrackedOwnerDiedStopsCountingAtTheNextEmitOfItsEvent) {
  Hooks hooks;
  auto owner = std::make_shared<int>(0);
  auto tracked = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {}, {.track = std::weak_ptr<const void>(owner)});
  owner.reset();
  EXPECT_FALSE(tracked.connected());
  hooks.emit(TurnStartEvent{});
  EXPECT_FALSE(hooks.has_handlers<TurnStartEvent>());
}

// A connect after the owner died rebuilds the snapshot from the registry at
// the next emit; the dead handler is retired there too, not left counting.
TEST(Registration, HandlerWhoseTrackedOwnerDiedIsRetiredWhenTheSnapshotIsRebuilt) {
  Hooks hooks;
  auto owner = std::make_shared<int>(0);
  MockFunction<void(const TurnStartEvent&)> tracked_handler;
  EXPECT_CALL(tracked_handler, Call(_)).Times(0);
  auto tracked = hooks.on<TurnStartEvent>(tracked_handler.AsStdFunction(), {.track = std::weak_ptr<const void>(owner)});
  owner.reset();
  auto other = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {});
  hooks.emit(TurnStartEvent{});
  other.disconnect();
  EXPECT_FALSE(hooks.has_handlers<TurnStartEvent>());
}

TEST(Registration, HandlerMayReturnTheResultDirectly) {
  Hooks hooks;
  auto connection = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.decision = Decision::deny}; });
  EXPECT_EQ(hooks.emit(bash_call("ls")).decision, Decision::deny);
}

TEST(Registration, VoidHandlerOnResultEventObservesWithoutChanging) {
  Hooks hooks;
  MockFunction<void(const ToolCallEvent&)> observer;
  EXPECT_CALL(observer, Call(_));
  auto connection = hooks.on<ToolCallEvent>(observer.AsStdFunction());
  EXPECT_EQ(hooks.emit(bash_call("ls")), ToolCallResult{});
}

TEST(Registration, SameFunctionTwiceGivesTwoIndependentRegistrations) {
  Hooks hooks;
  MockFunction<void(const TurnStartEvent&)> handler;
  EXPECT_CALL(handler, Call(_)).Times(3);
  auto first = hooks.on<TurnStartEvent>(handler.AsStdFunction());
  auto second = hooks.on<TurnStartEvent>(handler.AsStdFunction());
  hooks.emit(TurnStartEvent{});
  first.disconnect();
  hooks.emit(TurnStartEvent{});
  EXPECT_TRUE(second.connected());
}

TEST(Registration, DisconnectIsIdempotent) {
  Hooks hooks;
  auto connection = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {});
  auto other = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {});
  connection.disconnect();
  connection.disconnect();
  EXPECT_FALSE(connection.connected());
  EXPECT_EQ(hooks.handler_count("turn_start"), 1u);
  EXPECT_TRUE(hooks.has_handlers<TurnStartEvent>());
}

TEST(Registration, DestroyingTheConnectionDisconnects) {
  Hooks hooks;
  MockFunction<void(const TurnStartEvent&)> handler;
  EXPECT_CALL(handler, Call(_)).Times(0);
  { auto connection = hooks.on<TurnStartEvent>(handler.AsStdFunction()); }
  hooks.emit(TurnStartEvent{});
  EXPECT_FALSE(hooks.has_handlers<TurnStartEvent>());
}

TEST(Registration, ReleaseKeepsTheHandlerForTheBusLifetime) {
  Hooks hooks;
  MockFunction<void(const TurnStartEvent&)> handler;
  EXPECT_CALL(handler, Call(_)).Times(1);
  hooks.on<TurnStartEvent>(handler.AsStdFunction()).release();
  hooks.emit(TurnStartEvent{});
}

TEST(Registration, ReleasedHandlerIsStillRemovedByClear) {
  Hooks hooks;
  hooks.on<TurnStartEvent>([](const TurnStartEvent&) {}).release();
  hooks.clear("turn_start");
  EXPECT_FALSE(hooks.has_handlers<TurnStartEvent>());
}

TEST(Registration, MoveAssignmentDisconnectsThePreviousHandler) {
  Hooks hooks;
  MockFunction<void(const TurnStartEvent&)> first, second;
  EXPECT_CALL(first, Call(_)).Times(0);
  EXPECT_CALL(second, Call(_)).Times(1);
  auto connection = hooks.on<TurnStartEvent>(first.AsStdFunction());
  connection = hooks.on<TurnStartEvent>(second.AsStdFunction());
  hooks.emit(TurnStartEvent{});
}

TEST(Registration, ConnectionOutlivingTheBusDisconnectsSafely) {
  Connection connection;
  {
    Hooks hooks;
    connection = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {});
  }
  EXPECT_FALSE(connection.connected());
  connection.disconnect();
}

TEST(Registration, ByNameAcceptsWireNamesAndAliases) {
  Hooks hooks;
  auto blocker = [](const HookEvent&) -> HookOutcome { return ToolCallResult{.decision = Decision::deny, .reason = "named"}; };
  auto connection = hooks.on("before_tool_call", blocker);
  EXPECT_EQ(hooks.emit(bash_call("ls")).reason, "named");
  EXPECT_EQ(hooks.handler_count("tool_call"), 1u);
}

TEST(Registration, ByNameHandlerReceivesTheEventAsVariant) {
  Hooks hooks;
  MockFunction<HookOutcome(const HookEvent&)> handler;
  EXPECT_CALL(handler, Call(::testing::VariantWith<TurnStartEvent>(::testing::Field(&TurnStartEvent::turn_index, 3))))
      .WillOnce(Return(std::monostate{}));
  auto connection = hooks.on("on_turn_start", handler.AsStdFunction());
  hooks.emit(TurnStartEvent{.turn_index = 3});
}

TEST(Registration, ByNameUnknownNameThrowsListingValidNames) {
  Hooks hooks;
  try {
    auto connection = hooks.on("tool_kall", [](const HookEvent&) -> HookOutcome { return {}; });
    FAIL() << "expected UnknownEventError";
  } catch (const UnknownEventError& error) {
    EXPECT_THAT(error.what(), HasSubstr("unknown event 'tool_kall'"));
    EXPECT_THAT(error.what(), HasSubstr("tool_call, permission_request, tool_result"));
  }
}

TEST(Registration, ByNameHandlerReturningAnotherEventsResultIsAFailure) {
  Hooks hooks;
  std::vector<HandlerFailure> errors;
  auto listener = hooks.on_handler_error([&](const HandlerFailure& e) { errors.push_back(e); });
  auto connection = hooks.on("tool_call", [](const HookEvent&) -> HookOutcome { return ContextResult{}; },
                             {.label = "confused"});
  EXPECT_EQ(hooks.emit(bash_call("ls")).decision, Decision::none);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].handler, "confused");
  EXPECT_THAT(errors[0].message, HasSubstr("returned another event's result type"));
}

// on_handler_error is about hookbus's handlers failing; "on_error", another
// system's name, is the agent_error event. Neither hears the other.
TEST(Registration, OnHandlerErrorHearsHandlerFailuresAndNotTheAgentErrorEvent) {
  Hooks hooks;
  std::vector<std::string> handler_failures, agent_errors;
  auto listener = hooks.on_handler_error([&](const HandlerFailure& e) { handler_failures.push_back(e.handler); });
  auto agent = hooks.on("on_error", [&](const HookEvent& e) -> HookOutcome {
    agent_errors.push_back(std::get<AgentErrorEvent>(e).error);
    return {};
  });
  auto failing = hooks.on<TurnStartEvent>([](const TurnStartEvent&) { throw std::runtime_error("broken"); },
                                          {.label = "failing"});
  hooks.emit(AgentErrorEvent{.error = "model unavailable"});
  hooks.emit(TurnStartEvent{});
  EXPECT_THAT(agent_errors, ElementsAre("model unavailable"));
  EXPECT_THAT(handler_failures, ElementsAre("failing"));
}

TEST(Registration, EmptyHandlerIsRejected) {
  Hooks hooks;
  EXPECT_THROW(auto c = hooks.on<TurnStartEvent>(std::function<void(const TurnStartEvent&)>()), std::invalid_argument);
}

TEST(CatchAll, SubscriberSeesEveryEventAfterThatEventsHandlers) {
  Hooks hooks;
  std::vector<std::string> calls;
  auto typed = hooks.on<ToolCallEvent>([&](const ToolCallEvent&) { calls.push_back("typed"); });
  auto all = hooks.subscribe([&](const HookEvent& e) { calls.push_back("all:" + std::to_string(e.index())); });
  (void)hooks.emit(bash_call("ls"));
  hooks.emit(TurnStartEvent{});
  EXPECT_THAT(calls, ElementsAre("typed", "all:" + std::to_string(event_index<ToolCallEvent>),
                                 "all:" + std::to_string(event_index<TurnStartEvent>)));
}

TEST(CatchAll, SubscriberSeesTheEventAsHandlersLeftIt) {
  Hooks hooks;
  auto rewrite = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {
    return ToolCallResult{.input = boost::json::object{{"command", "ls -la"}}};
  });
  std::string seen;
  auto all = hooks.subscribe([&](const HookEvent& e) {
    seen = std::get<ToolCallEvent>(e).input.at("command").as_string().c_str();
  });
  (void)hooks.emit(bash_call("ls"));
  EXPECT_EQ(seen, "ls -la");
}

// A subscriber taking the view (event_ref.hpp) looks at the emitted event
// itself: nothing is copied for it.
TEST(CatchAll, ASubscriberTakingAViewSeesTheEmittedEventWithoutACopy) {
  Hooks hooks;
  const TurnStartEvent* seen = nullptr;
  std::string_view name;
  auto all = hooks.subscribe([&](const EventRef& event) {
    seen = event.get_if<TurnStartEvent>();
    name = event.visit([](const auto& e) { return std::string_view(std::decay_t<decltype(e)>::type); });
  });
  const TurnStartEvent event{.turn_index = 3};
  hooks.emit(event);
  EXPECT_EQ(seen, &event);
  EXPECT_EQ(name, "turn_start");
}

// Subscribers and by-name handlers written against HookEvent share one
// HookEvent per emit, made when the first of them asks.
TEST(CatchAll, SubscribersAndByNameHandlersShareOneHookEventPerEmit) {
  Hooks hooks;
  std::vector<const HookEvent*> seen;
  auto record = [&](const HookEvent& e) -> HookOutcome {
    seen.push_back(&e);
    return std::monostate{};
  };
  auto first = hooks.on("turn_start", record);
  auto second = hooks.on("turn_start", record);
  auto all = hooks.subscribe([&](const HookEvent& e) { seen.push_back(&e); });
  hooks.emit(TurnStartEvent{});
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], seen[1]);
  EXPECT_EQ(seen[1], seen[2]);
}

// An emit given a HookEvent hands that very variant to by-name handlers and
// subscribers while no handler has changed the event.
TEST(CatchAll, AVariantEmitGivesByNameHandlersAndSubscribersTheCallersHookEvent) {
  Hooks hooks;
  std::vector<const HookEvent*> seen;
  auto named = hooks.on("turn_start", [&](const HookEvent& e) -> HookOutcome {
    seen.push_back(&e);
    return std::monostate{};
  });
  auto all = hooks.subscribe([&](const HookEvent& e) { seen.push_back(&e); });
  const HookEvent event = TurnStartEvent{};
  (void)hooks.emit(event);
  EXPECT_THAT(seen, ElementsAre(&event, &event));
}

// Once a handler changed the event, by-name handlers and subscribers see the
// event as changed, not the variant the emit was given.
TEST(CatchAll, AfterAChangeByNameHandlersAndSubscribersSeeTheChangedEvent) {
  Hooks hooks;
  auto rewrite = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {
    return ToolCallResult{.input = boost::json::object{{"command", "ls -la"}}};
  });
  std::vector<std::string> seen;
  auto command_of = [](const HookEvent& e) {
    return std::string(std::get<ToolCallEvent>(e).input.at("command").as_string());
  };
  auto named = hooks.on("tool_call", [&](const HookEvent& e) -> HookOutcome {
    seen.push_back(command_of(e));
    return std::monostate{};
  });
  auto all = hooks.subscribe([&](const HookEvent& e) { seen.push_back(command_of(e)); });
  const HookEvent event = bash_call("ls");
  (void)hooks.emit(event);
  EXPECT_THAT(seen, ElementsAre("ls -la", "ls -la"));
  EXPECT_EQ(command_of(event), "ls");
}

TEST(CatchAll, SubscribersAreCountedAndClearedSeparately) {
  Hooks hooks;
  auto typed = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {});
  auto all = hooks.subscribe([](const HookEvent&) {});
  EXPECT_EQ(hooks.subscriber_count(), 1u);
  hooks.clear();
  EXPECT_EQ(hooks.subscriber_count(), 1u);
  EXPECT_EQ(hooks.handler_count("turn_start"), 0u);
  hooks.clear_subscribers();
  EXPECT_EQ(hooks.subscriber_count(), 0u);
  EXPECT_FALSE(all.connected());
}

struct AuditProvider {
  void register_hooks(Registrar& registrar) {
    registrar.on<ToolCallEvent>([this](const ToolCallEvent&) { ++tool_calls; }, {.label = "audit.call"});
    registrar.on<ToolResultEvent>([this](const ToolResultEvent&) { ++tool_results; }, {.label = "audit.result"});
  }
  int tool_calls = 0;
  int tool_results = 0;
};

TEST(Providers, ProviderRegistersAGroupThatDisconnectsTogether) {
  Hooks hooks;
  AuditProvider audit;
  ConnectionGroup group = hooks.add(audit);
  EXPECT_EQ(group.size(), 2u);
  (void)hooks.emit(bash_call("ls"));
  (void)hooks.emit(ToolResultEvent{});
  group.disconnect();
  (void)hooks.emit(bash_call("ls"));
  EXPECT_EQ(audit.tool_calls, 1);
  EXPECT_EQ(audit.tool_results, 1);
  EXPECT_TRUE(hooks.registered_events().empty());
}

TEST(Providers, DroppingTheGroupDisconnectsEverything) {
  Hooks hooks;
  AuditProvider audit;
  { auto group = hooks.add(audit); }
  EXPECT_TRUE(hooks.registered_events().empty());
}

TEST(Providers, ProviderFunctionGetsItsScopeOnEveryHandler) {
  Hooks hooks;
  ConnectionGroup group = hooks.add(
      [](Registrar& registrar) {
        registrar.on<TurnStartEvent>([](const TurnStartEvent&) {}, {.label = "turns"});
        registrar.on<TurnEndEvent>([](const TurnEndEvent&) {});
      },
      {.label_prefix = "team/", .kind = HandlerKind::plugin, .source = "/opt/team.so"});
  EXPECT_EQ(group.size(), 2u);
  EXPECT_THAT(hooks.handlers("turn_start"), ElementsAre("team/turns"));
  EXPECT_THAT(hooks.handlers("turn_end"), ElementsAre("team/turn_end"));
}

TEST(Providers, ProviderFunctionThatThrowsLeavesNothingRegistered) {
  Hooks hooks;
  EXPECT_THROW(auto group = hooks.add([](Registrar& registrar) {
    registrar.on<TurnStartEvent>([](const TurnStartEvent&) {});
    throw std::runtime_error("bad settings");
  }),
               std::runtime_error);
  EXPECT_TRUE(hooks.registered_events().empty());
}

int static_provider_calls = 0;
HOOKBUS_STATIC_PROVIDER(registration_test_counter) {
  registrar.on<TurnStartEvent>([](const TurnStartEvent&) { ++static_provider_calls; });
}

TEST(Providers, StaticProvidersAreInstalledExplicitly) {
  Hooks hooks;
  static_provider_calls = 0;
  hooks.emit(TurnStartEvent{});
  EXPECT_EQ(static_provider_calls, 0);
  EXPECT_THAT(static_provider_names(), ::testing::Contains("registration_test_counter"));
  auto group = hooks.install_static_providers();
  hooks.emit(TurnStartEvent{});
  EXPECT_EQ(static_provider_calls, 1);
}

struct MemberRegistered {
  explicit MemberRegistered(Hooks& hooks)
      : on_turn(hooks.on<TurnStartEvent>([this](const TurnStartEvent&) { ++turns; }, {.label = "member"})) {}
  int turns = 0;
  Connection on_turn;  // declared last: destroyed first, before `turns`
};

TEST(Providers, MemberConnectionRegistersAtTheDefinitionSite) {
  Hooks hooks;
  {
    MemberRegistered extension(hooks);
    hooks.emit(TurnStartEvent{});
    EXPECT_EQ(extension.turns, 1);
  }
  EXPECT_FALSE(hooks.has_handlers<TurnStartEvent>());
}

TEST(ToolMatcherOption, ExactNameSeesOnlyThatTool) {
  Hooks hooks;
  MockFunction<void(const ToolCallEvent&)> handler;
  EXPECT_CALL(handler, Call(::testing::Field(&ToolCallEvent::tool_name, "bash"))).Times(1);
  auto connection = hooks.on<ToolCallEvent>(handler.AsStdFunction(), {.tools = "bash"});
  (void)hooks.emit(bash_call("ls"));
  ToolCallEvent read;
  read.tool_name = "read";
  (void)hooks.emit(read);
}

TEST(ToolMatcherOption, GlobIsAnchoredToTheWholeName) {
  Hooks hooks;
  std::vector<std::string> seen;
  auto connection = hooks.on<ToolCallEvent>([&](const ToolCallEvent& e) { seen.push_back(e.tool_name); },
                                            {.tools = "mcp__github__*"});
  for (const char* name : {"mcp__github__create_issue", "x_mcp__github__a", "mcp__gitlab__a", "mcp__github__"}) {
    ToolCallEvent event;
    event.tool_name = name;
    (void)hooks.emit(event);
  }
  EXPECT_THAT(seen, ElementsAre("mcp__github__create_issue", "mcp__github__"));
}

TEST(ToolMatcherOption, AlternativesAreSeparatedByBars) {
  Hooks hooks;
  std::vector<std::string> seen;
  auto connection = hooks.on<ToolResultEvent>([&](const ToolResultEvent& e) { seen.push_back(e.tool_name); },
                                              {.tools = "Bash|Shell"});
  for (const char* name : {"Bash", "Shell", "BashX", "Read"}) {
    ToolResultEvent event;
    event.tool_name = name;
    (void)hooks.emit(event);
  }
  EXPECT_THAT(seen, ElementsAre("Bash", "Shell"));
}

TEST(ToolMatcherOption, AppliesToNestedToolNames) {
  Hooks hooks;
  int calls = 0;
  auto connection = hooks.on<ToolExecutionStartEvent>([&](const ToolExecutionStartEvent&) { ++calls; }, {.tools = "bash"});
  hooks.emit(ToolExecutionStartEvent{.tool_call = {.name = "bash"}});
  hooks.emit(ToolExecutionStartEvent{.tool_call = {.name = "read"}});
  EXPECT_EQ(calls, 1);
}

TEST(ToolMatcherOption, OnANonToolEventIsRejected) {
  Hooks hooks;
  EXPECT_THROW(auto c = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {}, {.tools = "bash"}),
               std::invalid_argument);
}

TEST(ToolMatcherOption, EmptyAlternativeIsRejected) {
  Hooks hooks;
  EXPECT_THROW(auto c = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {}, {.tools = "Bash|"}), std::invalid_argument);
}

// glob_match (tool_matcher.hpp), rule by rule: the pattern matches the whole
// text; `*` is any run of bytes, the empty one too; `?` is exactly one byte;
// every other byte matches itself only: case counts, and `[`, `\`, `.` and `|`
// are plain characters (ToolMatcher splits alternatives before glob_match).
TEST(GlobMatch, EveryRuleOnItsTable) {
  const std::string many_a(10000, 'a');
  const std::string many_a_then_b = many_a + "b";
  struct Case {
    std::string_view pattern;
    std::string_view text;
    bool matches;
  };
  const Case cases[] = {
      // The empty pattern matches the empty text only.
      {"", "", true},
      {"", "a", false},
      // Literal characters: the whole text, case and all.
      {"bash", "bash", true},
      {"bash", "Bash", false},
      {"bash", "bas", false},
      {"bash", "bashx", false},
      {"bash", "xbash", false},
      {"bash", "", false},
      {"a b+", "a b+", true},
      // `?`: exactly one byte, whatever it is.
      {"?", "a", true},
      {"?", "", false},
      {"?", "ab", false},
      {"b?sh", "bash", true},
      {"b?sh", "bsh", false},
      {"?", "*", true},
      {"?", "?", true},
      {"??", "\xc3\xa9", true},  // "é" in UTF-8 is two bytes, so two `?`
      {"?", "\xc3\xa9", false},
      // `*`: any run, the empty one too; several in a row are one.
      {"*", "", true},
      {"*", "anything at all", true},
      {"**", "", true},
      {"***", "abc", true},
      // `*` at the end, at the start, at both.
      {"mcp__*", "mcp__github__create_issue", true},
      {"mcp__*", "mcp__", true},
      {"mcp__*", "mcp_", false},
      {"mcp__*", "xmcp__a", false},
      {"*_issue", "create_issue", true},
      {"*_issue", "_issue", true},
      {"*_issue", "create_issues", false},
      {"*hub*", "github", true},
      {"*hub*", "hub", true},
      {"*hub*", "hb", false},
      // Several stars.
      {"mcp__*__create", "mcp__github__create", true},
      {"mcp__*__create", "mcp__a__b__create", true},
      {"mcp__*__create", "mcp__github__create_issue", false},
      {"a*b*c", "abc", true},
      {"a*b*c", "aXbYc", true},
      {"a*b*c", "acb", false},
      {"a*b*c", "abcbc", true},
      {"a*b*c", "abcb", false},
      // `*` beside `?`: the `?` still needs its byte.
      {"*?", "", false},
      {"*?", "a", true},
      {"?*", "", false},
      {"?*", "abc", true},
      {"*?*", "x", true},
      {"a*?", "a", false},
      {"a*?", "ab", true},
      // Backtracking: the first place a star's run could end is not always the right one.
      {"*ab", "aab", true},
      {"*abc", "ababc", true},
      {"*aab", "aaab", true},
      {"a*bc", "abcbc", true},
      {"a*b", "abab", true},
      {"a*b", "abba", false},
      {"*a*b", "aaaa", false},
      {"*a*a*a*a*b", many_a, false},
      {"*a*a*a*a*b", many_a_then_b, true},
      // No character classes, no escapes.
      {"[a]", "[a]", true},
      {"[a]", "a", false},
      {"a.b", "a.b", true},
      {"a.b", "axb", false},
      {"a|b", "a|b", true},
      {"a|b", "a", false},
      {"\\*", "\\x", true},
      {"\\*", "*", false},
  };
  for (const Case& c : cases) {
    const std::string_view text = c.text.size() > 40 ? c.text.substr(0, 40) : c.text;
    EXPECT_EQ(glob_match(c.pattern, c.text), c.matches)
        << "glob_match(\"" << c.pattern << "\", \"" << text << (text.size() < c.text.size() ? "...\"" : "\"")
        << ") of " << c.text.size() << " bytes";
  }
}

// ToolMatcher (tool_matcher.hpp): `|` between alternatives, each a glob; the
// empty pattern matches every tool; an empty alternative is an error.
TEST(ToolMatcher, EveryRuleOnItsTable) {
  struct Case {
    std::string_view pattern;
    std::string_view tool;
    bool matches;
  };
  const Case cases[] = {
      {"", "bash", true},
      {"", "", true},
      {"bash", "bash", true},
      {"bash", "Bash", false},
      {"Bash|Shell", "Bash", true},
      {"Bash|Shell", "Shell", true},
      {"Bash|Shell", "Bash|Shell", false},
      {"Bash|Shell", "BashShell", false},
      {"mcp__github__*|Read", "mcp__github__create_issue", true},
      {"mcp__github__*|Read", "Read", true},
      {"mcp__github__*|Read", "Reader", false},
      {"*|x", "anything", true},
  };
  for (const Case& c : cases)
    EXPECT_EQ(ToolMatcher(c.pattern).matches(c.tool), c.matches)
        << "ToolMatcher(\"" << c.pattern << "\").matches(\"" << c.tool << "\")";
  EXPECT_TRUE(ToolMatcher().matches_every_tool());
  EXPECT_TRUE(ToolMatcher("").matches_every_tool());
  EXPECT_FALSE(ToolMatcher("*").matches_every_tool());  // every tool too, but by its glob
  EXPECT_EQ(ToolMatcher("Bash|Shell").pattern(), "Bash|Shell");
  for (const std::string_view typo : {"|", "Bash|", "|Bash", "a||b"})
    EXPECT_THROW((void)ToolMatcher(typo), std::invalid_argument) << typo;
}

}  // namespace
}  // namespace hookbus
