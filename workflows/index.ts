/** Every workflow the worker serves; `workflowsPath` points here. */
export { leanMessageWorkflow, messageWorkflow } from './message';
export { notifyCallerWorkflow } from './notify-caller';
/** The public entry of Temporal-native callers (see docs/architecture.md). */
export { sendMessage } from './send-message';
export { runChain } from './chain';
