/** Debian's Chromium driven by playwright-core (`playwright install` cannot download here), headless and quiet. */
import { chromium, type Browser } from 'playwright-core';
import { chromiumBinary } from './system-packages';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumBinary(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
