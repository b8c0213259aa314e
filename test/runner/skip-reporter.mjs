/**
 * A Node test reporter that writes one JSON line per skipped test or suite (`{file, name, reason}`); `npm test`
 * gives it a file and prints the skips as its closing summary. Plain JavaScript: Node loads reporters before tsx.
 */
export default async function* skipReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' || !event.data.skip) continue;
    const { name, file, skip } = event.data;
    yield `${JSON.stringify({ file, name, reason: typeof skip === 'string' ? skip : 'skipped' })}\n`;
  }
}
