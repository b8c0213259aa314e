/**
 * The official A2A SDK, `@a2a-js/sdk`, in one place. Its type declarations are ES-module ones, which a CommonJS
 * project may only import as types (`resolution-mode: import`); the values come from its CommonJS build, which is
 * what `require` loads at run time.
 */
type Sdk = typeof import('@a2a-js/sdk', { with: { 'resolution-mode': 'import' } });
type SdkErrors = typeof import('@a2a-js/sdk/errors', { with: { 'resolution-mode': 'import' } });
type SdkExpress = typeof import('@a2a-js/sdk/server/express', { with: { 'resolution-mode': 'import' } });

/* eslint-disable @typescript-eslint/no-require-imports */
export const { AgentCard, Message, Task, TaskStatusUpdateEvent, TaskArtifactUpdateEvent } = require('@a2a-js/sdk') as Sdk;
export const {
  ContentTypeNotSupportedError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  A2AError,
} = require('@a2a-js/sdk/errors') as SdkErrors;
export const { jsonRpcHandler } = require('@a2a-js/sdk/server/express') as SdkExpress;

export type {
  AgentCard as AgentCardType,
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksResponse,
  ListTaskPushNotificationConfigsResponse,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task as TaskType,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk' with { 'resolution-mode': 'import' };
export type { A2ARequestHandler, ServerCallContext, User } from '@a2a-js/sdk/server' with { 'resolution-mode': 'import' };
