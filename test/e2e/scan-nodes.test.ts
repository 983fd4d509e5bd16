/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';

const ADMIN = { email: 'admin@example.com', password: 'enrols the scanners' };
const ANALYST = { email: 'analyst@example.com', password: 'reads what they find' };

// The scan nodes journey in Chromium: an Admin sees the local node, enrols a node with the token
// and command shown once, sees it online once it heartbeats, and revokes it.
describe.runIf(HAS_CHROMIUM)('scan nodes page [browser]', () => {
  let rig: BrowserRig;
  let page: Page;

  beforeAll(async () => {
    rig = await startBrowserRig(
      async ({ rampart, ctx }) => {
        await rampart.services.users.create(ctx, {
          email: ADMIN.email,
          name: 'Ada Admin',
          role: 'Admin',
          password: ADMIN.password,
        });
        await rampart.services.users.create(ctx, {
          email: ANALYST.email,
          name: 'Ann Analyst',
          role: 'Analyst',
          password: ANALYST.password,
        });
        // The server's own node is listed; no scan is queued here, so it sends nothing.
      },
      { env: { RAMPART_LOCAL_SCAN_NODE: 'true' } },
    );
    page = await rig.signIn(ADMIN, { width: 1366, height: 900 });
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
  });

  /** What a node does with the token: enrols, then heartbeats with its own key. */
  async function nodeEnrolsAndHeartbeats(token: string): Promise<string> {
    const enrolled = await fetch(`${rig.base}/api/integration/scannodes/enrol`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        Token: token,
        Name: 'branch-office',
        Kinds: ['Discovery'],
        Version: '0.1.0',
        Capacity: 2,
      }),
    });
    expect(enrolled.status).toBe(201);
    const { NodeKey } = (await enrolled.json()) as { NodeKey: string };
    const beat = await fetch(`${rig.base}/api/integration/scannodes/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${NodeKey}` },
      body: '{}',
    });
    expect(beat.status).toBe(200);
    return NodeKey;
  }

  it('lists the local node, enrols a node with a token shown once, and revokes it', async () => {
    await page.getByRole('link', { name: 'Scan nodes' }).click();
    await page.getByRole('heading', { name: 'Scan nodes', level: 1 }).waitFor();
    const table = page.getByTestId('scan-nodes');
    await table.getByText('(inside the server)').waitFor();

    await page.getByRole('button', { name: 'Enrol a node' }).click();
    await page.getByRole('button', { name: 'Create token' }).click();
    const command = ((await page.getByTestId('scan-node-command').textContent()) ?? '').trim();
    const token = ((await page.getByTestId('scan-node-token').textContent()) ?? '').trim();
    expect(token).toMatch(/^rse_[A-Za-z0-9_-]{43}$/);
    expect(command).toBe(`rampart scan-node --server ${rig.base} --token ${token}`);
    await rig.shot(page, '90-scan-node-enrol');
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByTestId('scan-node-token').count()).toBe(0);

    const nodeKey = await nodeEnrolsAndHeartbeats(token);
    await page.reload();
    const row = table.getByRole('row').filter({ hasText: 'branch-office' });
    await row.getByText('Online').waitFor();
    await expect.poll(() => row.textContent()).toContain('Discovery');
    expect(await row.textContent()).toContain('0.1.0');
    await rig.shot(page, '91-scan-nodes');

    await row.getByRole('button', { name: 'Revoke branch-office' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('Revoked').waitFor();
    const refused = await fetch(`${rig.base}/api/integration/scannodes/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${nodeKey}` },
      body: '{}',
    });
    expect(refused.status).toBe(401);
  });

  it('is for Admins: an Analyst has no link to it', async () => {
    const analyst = await rig.signIn(ANALYST, { width: 1366, height: 900 });
    await analyst.getByRole('link', { name: 'Findings' }).waitFor();
    expect(await analyst.getByRole('link', { name: 'Scan nodes' }).count()).toBe(0);
    await analyst.close();
  });
});
