import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/modules/notifications/signature.js';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';
import { type Receiver, startReceiver } from '../modules/notifications/receiver.js';

const ADMIN = { email: 'admin@example.com', password: 'hears of every change' };
/** Where the screenshots are also copied for a look (light and dark). */
const LOOK = process.env.RAMPART_SHOTS_DIR ?? '/tmp/shots-webhooks';

// Notifications in the web app: an Admin adds a webhook to a receiver on loopback (its signing
// secret shown once), a rule for API key events, an event happens, and the delivery shows in the
// endpoint's log with its status code; the receiver verifies the signature.
describe.runIf(HAS_CHROMIUM)('notifications [browser]', () => {
  let rig: BrowserRig;
  let page: Page;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    rig = await startBrowserRig(
      async ({ rampart, ctx }) => {
        await rampart.services.users.create(ctx, {
          email: ADMIN.email,
          role: 'Admin',
          password: ADMIN.password,
        });
      },
      { env: { RAMPART_NOTIFY_ALLOW_LOOPBACK: 'true' } },
    );
    page = await rig.signIn(ADMIN, { width: 1366, height: 900 });
    fs.mkdirSync(LOOK, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
    await receiver?.close();
  });

  async function shots(name: string) {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.waitForTimeout(250);
    fs.writeFileSync(path.join(LOOK, `${name}.png`), await rig.shot(page, name));
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForTimeout(250);
    fs.writeFileSync(path.join(LOOK, `${name}-dark.png`), await rig.shot(page, `${name}-dark`));
    await page.emulateMedia({ colorScheme: 'light' });
  }

  let secret = '';

  it('is in the navigation of Admins and starts empty', async () => {
    await page.getByRole('link', { name: 'Notifications' }).click();
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
    await page.getByText('No rules yet').waitFor();
  });

  it('refuses an endpoint to the metadata address, naming why', async () => {
    await page.getByRole('tab', { name: 'Endpoints' }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add endpoint' });
    await dialog.getByLabel('Name').fill('SIEM');
    await dialog.getByLabel('URL').fill('http://169.254.169.254/latest/meta-data/');
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    await dialog.getByText(/AlwaysRefused: 169\.254\.169\.254 is in the link-local block/).waitFor();
    await shots('notifications-endpoint-refused');
  });

  it('adds a webhook and shows its signing secret once', async () => {
    const dialog = page.getByRole('dialog', { name: 'Add endpoint' });
    await dialog.getByLabel('URL').fill(receiver.url);
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    const shown = dialog.getByTestId('new-signing-secret');
    await shown.waitFor();
    secret = (await shown.textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await shots('notifications-secret');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('row').filter({ hasText: 'SIEM' }).filter({ hasText: 'Enabled' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    await shots('notifications-endpoints');
  });

  it('adds a rule for API key events', async () => {
    await page.getByRole('tab', { name: 'Rules' }).click();
    await page.getByRole('button', { name: 'Add rule' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add rule' });
    await dialog.getByLabel('Name').fill('Key changes to the SIEM');
    await dialog.getByRole('textbox', { name: 'Events' }).click();
    await page.getByRole('option', { name: 'apikey.created' }).click();
    await page.getByRole('option', { name: 'apikey.revoked' }).click();
    await page.keyboard.press('Escape');
    await dialog.getByRole('textbox', { name: 'Send to' }).click();
    await page.getByRole('option', { name: 'SIEM' }).click();
    await page.keyboard.press('Escape');
    await shots('notifications-rule-form');
    await dialog.getByRole('button', { name: 'Add rule' }).click();
    await page
      .getByRole('row')
      .filter({ hasText: 'Key changes to the SIEM' })
      .filter({ hasText: 'SIEM' })
      .waitFor();
    await shots('notifications-rules');
  });

  it('delivers an event to the receiver, signed, and shows it in the log', async () => {
    // An event written to the outbox as a module writes it in its change's transaction.
    const eventId = await rig.rampart.services.events.publish(
      rig.database.db,
      rig.ctx.organizationId,
      'apikey.created',
      {
        ApiKey: {
          Id: '01900000-0000-7000-8000-000000000001',
          Name: 'CI pipeline',
          AccessKey: 'AKEXAMPLE',
          UserId: '01900000-0000-7000-8000-000000000002',
        },
        Actor: { Type: 'system', Id: null },
      },
    );
    await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBeGreaterThan(0);
    const request = receiver.received[0]!;
    expect(request.headers['rampart-event-id']).toBe(eventId);
    expect(
      verifySignature(secret, request.headers['rampart-signature'] as string, request.body, new Date()).ok,
    ).toBe(true);
    await page.getByRole('tab', { name: 'Deliveries' }).click();
    const row = page.getByRole('row').filter({ hasText: 'apikey.created' });
    await row.filter({ hasText: 'Succeeded' }).filter({ hasText: '200' }).waitFor({ timeout: 20_000 });
    await row.getByRole('button', { name: 'Attempts' }).click();
    await page.getByRole('table', { name: 'Attempts of apikey.created' }).waitFor();
    await shots('notifications-deliveries');
  });

  it('redelivers by hand', async () => {
    await page.getByRole('button', { name: /^Redeliver apikey\.created/ }).click();
    await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(2);
    expect(receiver.received[1]!.headers['rampart-event-id']).toBe(
      receiver.received[0]!.headers['rampart-event-id'],
    );
  });

  it('sends a test event from the endpoint’s menu', async () => {
    await page.getByRole('tab', { name: 'Endpoints' }).click();
    await page.getByRole('button', { name: 'Actions for SIEM' }).click();
    await page.getByRole('menuitem', { name: 'Send a test event' }).click();
    await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(3);
    expect(JSON.parse(receiver.received[2]!.body).type).toBe('rampart.notification.test');
    await page.getByRole('button', { name: 'Actions for SIEM' }).click();
    await page.getByRole('menuitem', { name: 'Delivery log' }).click();
    await page
      .getByRole('row')
      .filter({ hasText: 'notification.test' })
      .filter({ hasText: 'Succeeded' })
      .waitFor({ timeout: 20_000 });
  });
});
