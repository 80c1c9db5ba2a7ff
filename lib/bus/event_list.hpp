#pragma once
// Internal: the catalogue as an X-macro, for the explicit instantiations the
// library provides (member templates whose definitions stay out of the public
// headers). The static_assert below and the compiler's refusal of a duplicate
// explicit instantiation keep this list equal to HookEvent's alternatives.

#include <hookbus/events.hpp>

#define HOOKBUS_EVENT_TYPES(X)                                                                              \
  X(SessionStartEvent) X(SessionBeforeSwitchEvent) X(SessionBeforeForkEvent) X(SessionBeforeCompactEvent)    \
  X(SessionCompactEvent) X(SessionShutdownEvent) X(SessionBeforeTreeEvent) X(SessionTreeEvent)               \
  X(AgentInitializedEvent) X(InputEvent) X(BeforeAgentStartEvent) X(BootstrapFilesEvent) X(ContextEvent)     \
  X(AgentStartEvent) X(AgentEndEvent) X(AgentErrorEvent) X(SavePointEvent) X(SettledEvent)                   \
  X(TurnStartEvent) X(TurnEndEvent) X(MessageStartEvent) X(MessageUpdateEvent) X(MessageEndEvent)            \
  X(BeforeModelCallEvent) X(AfterModelCallEvent) X(ModelSelectEvent) X(ThinkingLevelSelectEvent)             \
  X(ToolCallEvent) X(PermissionRequestEvent) X(ToolResultEvent) X(ToolResultPersistEvent) X(ToolExecutionStartEvent)                   \
  X(ToolExecutionUpdateEvent) X(ToolExecutionEndEvent) X(ToolExecutionFailureEvent)                          \
  X(PermissionDeniedEvent) X(TokenBudgetExceededEvent) X(ToolsDisabledEvent) X(LoopWarningEvent)              \
  X(SubagentStartEvent) X(SubagentEndEvent)                                                                  \
  X(GatewayStartupEvent) X(GatewayStopEvent) X(ChannelConnectEvent) X(ChannelDisconnectEvent)                \
  X(MessageReceiveEvent) X(MessageSendEvent) X(MessageCancelEvent) X(GatewayErrorEvent)                      \
  X(UserBashEvent) X(ResourcesDiscoverEvent) X(RetryStartEvent) X(RetryEndEvent) X(NotificationEvent)

#define HOOKBUS_COUNT_ONE(T) +1
static_assert((0 HOOKBUS_EVENT_TYPES(HOOKBUS_COUNT_ONE)) == hookbus::event_count,
              "HOOKBUS_EVENT_TYPES must list every alternative of HookEvent");
#undef HOOKBUS_COUNT_ONE
