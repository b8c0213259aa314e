/**
 * The official A2A SDK, `@a2a-js/sdk`, as the face uses it: the core from protocol/a2a-sdk.ts, and the SDK's
 * errors and express server (loaded the same way: ES-module types, CommonJS values).
 */
type SdkErrors = typeof import('@a2a-js/sdk/errors', { with: { 'resolution-mode': 'import' } });
type SdkExpress = typeof import('@a2a-js/sdk/server/express', { with: { 'resolution-mode': 'import' } });

/* eslint-disable @typescript-eslint/no-require-imports */
export { AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '../../protocol/a2a-sdk';
export const {
  ContentTypeNotSupportedError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  A2AError,
} = require('@a2a-js/sdk/errors') as SdkErrors;
export const { jsonRpcHandler, restHandler } = require('@a2a-js/sdk/server/express') as SdkExpress;

export type {
  AgentCard as AgentCardType,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  ListTasksResponse,
  ListTaskPushNotificationConfigsResponse,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task as TaskType,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk' with { 'resolution-mode': 'import' };
export type { A2ARequestHandler, ServerCallContext, User } from '@a2a-js/sdk/server' with {
  'resolution-mode': 'import',
};
