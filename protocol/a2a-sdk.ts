/**
 * The official A2A SDK's core (`@a2a-js/sdk`: the protocol's types, with their JSON converters) and its client, in one
 * place for the gateway's face (api/a2a/) and its deliveries to A2A agents (activities/). The type declarations are
 * ES-module ones, which a CommonJS project may only import as types (`resolution-mode: import`); the values come
 * from the CommonJS build, which is what `require` loads at run time.
 */
type Sdk = typeof import('@a2a-js/sdk', { with: { 'resolution-mode': 'import' } });
type SdkClient = typeof import('@a2a-js/sdk/client', { with: { 'resolution-mode': 'import' } });

/* eslint-disable @typescript-eslint/no-require-imports */
export const {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  Message,
  SendMessageRequest,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent,
} = require('@a2a-js/sdk') as Sdk;
export const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } =
  require('@a2a-js/sdk/client') as SdkClient;

/** A client the SDK's ClientFactory makes. */
export type A2aClient = Awaited<ReturnType<InstanceType<SdkClient['ClientFactory']>['createFromAgentCard']>>;
