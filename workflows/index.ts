/** Every workflow the worker serves; `workflowsPath` points here. */
export { messageWorkflow } from './message';
export { notifyCallerWorkflow } from './notify-caller';
