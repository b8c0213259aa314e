/** Types of skip-reporter.mjs (plain JavaScript: Node loads test reporters before tsx). */
export interface TestEvent {
  type: string;
  data: { name?: string; file?: string; skip?: string | boolean };
}

export default function skipReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string>;
