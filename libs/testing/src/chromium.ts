/**
 * Debian's Chromium as browser tests and benches launch it (Playwright's own download cannot reach
 * the internet here). Without the background-networking flags Chromium keeps dialling Google's
 * hosts, which this machine's closed network refuses, many at a time.
 */
export function systemChromium(): { executablePath: string; args: string[] } {
  return {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
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
  };
}
