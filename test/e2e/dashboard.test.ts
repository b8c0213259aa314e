/**
 * The dashboard in a real browser (Debian's Chromium, driven by playwright-core): agents, recent messages, one
 * message's attempts and its trace. Saves a screenshot to test/output/dashboard.png.
 * `.ci/run` installs Chromium; without it (CHROMIUM_PATH, or `chromium` on PATH) this test skips, saying what to install.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { eventually } from '../helpers/eventually';
import { acceptAndConfirm, startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request, TEST_API_KEY } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';
import { chromiumBinary, skipUnlessInstalled } from '../helpers/system-packages';

const OUTPUT = resolve(__dirname, '../output');
let servers: TestServers;
let system: TestSystem;
let agent: FakeAgent;
let browser: Browser;

describe('dashboard', { skip: skipUnlessInstalled([chromiumBinary]) }, () => {
  before(async () => {
    servers = await startTestServers();
    system = await startSystem(servers);
    agent = await startFakeAgent(acceptAndConfirm);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await agent?.stop();
    await system?.stop();
    await servers?.stop();
  });

  it('dashboard - shows agents and messages; a click shows the attempts and the trace', async () => {
    const registered = await registerAgent(system.baseUrl, agent.url, { name: 'dashboard-echo' });
    agent.secret = registered.secret;
    const messageId = `dash-${Date.now()}`;
    await request('POST', `${system.baseUrl}/v1/messages`, {
      message_id: messageId,
      target: { agent_id: registered.agent_id, capability: 'echo' },
    });
    await eventually('processed and listed', async () => {
      const list = await request('GET', `${system.baseUrl}/v1/messages?state=processed`);
      return list.body.items.some((m: { message_id: string }) => m.message_id === messageId) ? true : undefined;
    });

    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`${system.baseUrl}/dashboard`);
    await page.locator('#auth', { hasText: 'Enter an API key' }).waitFor();
    assert.equal(await page.locator('#agents tbody tr').count(), 0, 'no data without a key');
    await page.fill('#api-key', 'rk_000000000000_wrong');
    await page.click('#use-key');
    await page.locator('#auth', { hasText: 'invalid_api_key' }).waitFor();
    await page.fill('#api-key', TEST_API_KEY);
    await page.click('#use-key');
    await page.locator('#agents', { hasText: 'dashboard-echo' }).waitFor();
    assert.equal(await page.locator('#auth').innerText(), '');
    // The router's head: this system routes with BM25 (no head), and says so.
    await page.locator('#router', { hasText: 'head none (lexical)' }).waitFor();
    // The card's examples: its one capability has none, and the line says so.
    await page
      .locator('#router', {
        hasText: `1 of 1 capabilities with fewer than 10 examples (fewest: ${registered.agent_id}/echo 0)`,
      })
      .waitFor();
    assert.match(
      await page.locator('#agents').innerText(),
      new RegExp(`dashboard-echo\\s+${registered.agent_id}\\s+online`),
    );
    await page.locator(`a[data-message="${messageId}"]`).click();
    await page.locator('#attempts', { hasText: 'accepted' }).waitFor();
    assert.match(await page.locator('#detail').innerText(), /state: processed/);
    await page.locator('#detail a', { hasText: 'trace' }).click();
    await page.locator('#trace', { hasText: messageId }).waitFor();
    // A chain: its steps as boxes, by state, with the arrows of after; a step's box opens its message.
    const chainId = `dash-chain-${Date.now()}`;
    const target = { agent_id: registered.agent_id, capability: 'echo' };
    const started = await request('POST', `${system.baseUrl}/v1/chains`, {
      chain_id: chainId,
      steps: [
        { id: 'first', target },
        { id: 'second', target },
        { id: 'third', target, after: ['first'] },
      ],
    });
    assert.equal(started.status, 202);
    await eventually('the chain to complete', async () =>
      (await request('GET', `${system.baseUrl}/v1/chains/${chainId}`)).body.state === 'completed' ? true : undefined,
    );
    // Listed among the recent chains (the page refreshes every 5 s); its link opens the same graph as the form.
    await page.locator('#chains', { hasText: chainId }).waitFor();
    assert.match(await page.locator('#chains').innerText(), new RegExp(`${chainId}\\s+completed\\s+3 of 3 completed`));
    await page.locator(`a[data-chain="${chainId}"]`).click();
    await page.locator('#chain', { hasText: `chain ${chainId}: completed` }).waitFor();
    await page.fill('#chain-id', chainId);
    await page.click('#chain-form button');
    await page.locator('#chain', { hasText: `chain ${chainId}: completed` }).waitFor();
    assert.equal(await page.locator('#chain svg g[data-step]').count(), 3);
    assert.equal(await page.locator('#chain svg line').count(), 2);
    assert.match((await page.locator('#chain svg g[data-step="second"]').textContent()) ?? '', /second\s*completed/);
    await page.locator('#chain svg g[data-step="second"]').click();
    await page.locator('#detail h2', { hasText: `Message ${chainId}:second` }).waitFor();
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'dashboard.png'), fullPage: true });
    assert.ok(existsSync(join(OUTPUT, 'dashboard.png')));
  });
});
