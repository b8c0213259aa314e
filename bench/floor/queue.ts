/** The floor's task queue, apart from the gateway's on the same dev server. */
export const FLOOR_TASK_QUEUE = 'floor';
