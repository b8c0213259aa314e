/**
 * A Node test reporter that writes one JSON line per skipped test or suite (`{file, name, reason}`); `npm test`
 * gives it a file and prints the skips as its closing summary.
 */
interface TestEvent {
  type: string;
  data: { name?: string; file?: string; skip?: string | boolean };
}

export default async function* skipReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  for await (const event of source) {
    if (event.type !== 'test:pass' || !event.data.skip) continue;
    const { name, file, skip } = event.data;
    yield `${JSON.stringify({ file, name, reason: typeof skip === 'string' ? skip : 'skipped' })}\n`;
  }
}
