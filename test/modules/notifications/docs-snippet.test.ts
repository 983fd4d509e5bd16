import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, signatureHeader } from '../../../src/modules/notifications/signature.js';

const DOC = path.resolve(import.meta.dirname, '../../../docs/notifications.md');

// The receiver's check that docs/notifications.md gives readers is run as they would run it:
// it must accept what Rampart signs and refuse what it does not.
describe('the signature check of docs/notifications.md', () => {
  it('accepts a signed body and refuses a changed, re-signed or stale one', async () => {
    const text = fs.readFileSync(DOC, 'utf8');
    const code = /```js\n([\s\S]*?)```/.exec(text)?.[1];
    expect(code, 'a ```js block in docs/notifications.md').toBeDefined();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-doc-'));
    const file = path.join(dir, 'verify.mjs');
    fs.writeFileSync(file, code!);
    try {
      const { verifyRampartSignature } = (await import(pathToFileURL(file).href)) as {
        verifyRampartSignature: (
          secret: string,
          header: string | undefined,
          body: string,
          now?: number,
        ) => boolean;
      };
      const secret = newSigningSecret();
      const sentAt = new Date('2026-11-21T12:00:00Z');
      const body = JSON.stringify({ specversion: '1.0', id: '01900000-0000-7000-8000-000000000001' });
      const header = signatureHeader(secret, sentAt, body);
      const at = sentAt.getTime();
      expect(verifyRampartSignature(secret, header, body, at + 1000)).toBe(true);
      expect(verifyRampartSignature(secret, header, `${body} `, at)).toBe(false);
      expect(verifyRampartSignature(newSigningSecret(), header, body, at)).toBe(false);
      expect(verifyRampartSignature(secret, header, body, at + 301_000)).toBe(false);
      expect(verifyRampartSignature(secret, undefined, body, at)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
