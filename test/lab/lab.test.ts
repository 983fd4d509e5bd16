// The lab itself: a lab whose process was killed (no afterAll, no exit handler) is swept by the
// next one, and a lab whose process lives is left alone.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { labAvailable, sweepStaleLabs } from './lab.js';

const LAB = path.join(import.meta.dirname, 'lab.ts');

const namespaces = () => execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
const bridges = () => execFileSync('ip', ['-o', 'link', 'show', 'type', 'bridge'], { encoding: 'utf8' });

/** Starts a lab in a child process; resolves with its bridge once it is ready. */
function labInChild(): Promise<{ bridge: string; pid: number; kill(): void }> {
  const script = `
    const { createLab } = await import(${JSON.stringify(LAB)});
    const lab = await createLab([{ name: 'a', index: 2 }, { name: 'b', index: 3, daemons: ['http'] }]);
    console.log(JSON.stringify({ bridge: lab.bridge }));
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) {
        const { bridge } = JSON.parse(out.trim()) as { bridge: string };
        resolve({ bridge, pid: child.pid!, kill: () => child.kill('SIGKILL') });
      }
    });
    child.once('exit', (code) => reject(new Error(`the lab's process exited with ${code}`)));
  });
}

describe.runIf(labAvailable())('[lab] the lab', () => {
  it('is swept by the next lab when its process was killed, and only then', async () => {
    const lab = await labInChild();
    const slot = lab.bridge.slice('rlab'.length);
    const lock = `/tmp/rampart-lab-${slot}`;
    try {
      expect(namespaces()).toContain(`${lab.bridge}-h3`);
      sweepStaleLabs(); // its process is alive: left alone
      expect(bridges()).toContain(`${lab.bridge}:`);
      expect(fs.existsSync(lock)).toBe(true);
    } finally {
      lab.kill();
    }
    await expect.poll(() => isGone(lab.pid)).toBe(true);

    sweepStaleLabs();

    expect(namespaces()).not.toContain(`${lab.bridge}-h`);
    expect(bridges()).not.toContain(`${lab.bridge}:`);
    expect(fs.existsSync(lock)).toBe(false);
    const daemons = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    expect(daemons).not.toMatch(new RegExp(`rampart-lab-files-${slot}-`));
  });
});

function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}
