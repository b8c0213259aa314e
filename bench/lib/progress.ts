/** One progress line rewritten in place on a terminal (a line every 5 s otherwise); final lines stay. */
export function progressPrinter(stream: NodeJS.WriteStream = process.stderr) {
  let lastPlain = 0;
  return (line: string, final = false): void => {
    if (stream.isTTY) {
      stream.write(`\r\x1b[2K${line}${final ? '\n' : ''}`);
      return;
    }
    if (final || Date.now() - lastPlain >= 5_000) {
      lastPlain = Date.now();
      stream.write(`${line}\n`);
    }
  };
}
